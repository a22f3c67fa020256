package checker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyLower is Python's str.lower(). It differs from strings.ToLower, which
// maps each rune to one rune, in two ways: İ (U+0130) lowers to i followed
// by a combining dot above (U+0307), Unicode's full mapping; and Σ lowers
// to ς at the end of a word (the Final_Sigma condition), to σ elsewhere.
func pyLower(s string) string {
	if !strings.ContainsAny(s, "İΣ") {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	for i, r := range s {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the Σ at s[i] is in Unicode's Final_Sigma
// context, tested as CPython does: skipping case-ignorable characters, a
// cased character comes before it and none comes after.
func finalSigma(s string, i int) bool {
	before := s[:i]
	for len(before) > 0 {
		r, n := utf8.DecodeLastRuneInString(before)
		if !caseIgnorable(r) {
			if !cased(r) {
				return false
			}
			break
		}
		before = before[:len(before)-n]
	}
	if len(before) == 0 {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// and the Word_Break classes MidLetter, MidNumLet and Single_Quote (listed,
// as package unicode has no Word_Break table).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
