// Package words splits text into words in any script. It is the one
// home of offgrid's word splitting and matching: the requests' words
// (tools.Fields), the curator's terms, grep_search's ranked lines and the
// tool names the agent compares.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Split returns the words of s: runs of letters, digits, marks and
// underscores ("max_retries", "Größe", "1024"), and each letter of a
// script written without spaces between words (Chinese, Japanese, Thai…)
// on its own, so that "配置文件" is four words and not one.
func Split(s string) []string {
	var out []string
	for _, w := range spans(s) {
		out = append(out, s[w[0]:w[1]])
	}
	return out
}

// spans returns where the words of s (Split) start and end.
func spans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		switch {
		case Unspaced(r):
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			out = append(out, [2]int{i, i + len(string(r))})
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_':
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// Terms returns the search terms of s: its words (Split), but for words
// joined by single hyphens, dots or slashes into a token that holds a
// digit, which stay one term: an identifier, a version or a date
// ("P-104", "1.4.2", "2026-07-02"). Split, "P-104" would be "P" and "104",
// and the schema's "^P-[0-9]{3}$" would hold as many of them.
func Terms(s string) []string {
	return terms(s, spans(s))
}

// terms is Terms of s whose words are at ws (spans).
func terms(s string, ws [][2]int) []string {
	var out []string
	for i := 0; i < len(ws); {
		j := i
		for j+1 < len(ws) && ws[j+1][0] == ws[j][1]+1 && strings.IndexByte("-./", s[ws[j][1]]) >= 0 &&
			!unspacedAt(s, ws[j]) && !unspacedAt(s, ws[j+1]) {
			j++
		}
		if tok := s[ws[i][0]:ws[j][1]]; j > i && strings.ContainsFunc(tok, unicode.IsDigit) {
			out = append(out, tok)
		} else {
			for k := i; k <= j; k++ {
				out = append(out, s[ws[k][0]:ws[k][1]])
			}
		}
		i = j + 1
	}
	return out
}

// unspacedAt reports whether the word at w of s is a letter of a script
// written without spaces.
func unspacedAt(s string, w [2]int) bool {
	r, _ := utf8.DecodeRuneInString(s[w[0]:])
	return Unspaced(r)
}

// Parts returns the words of an identifier: Split, with underscores
// between words too ("write_file" is "write" and "file").
func Parts(name string) []string {
	return Split(strings.Map(func(r rune) rune {
		if r == '_' {
			return ' '
		}
		return r
	}, name))
}

// Unspaced reports whether r is a letter of a script written without
// spaces between words. Korean is written with spaces: a Hangul word
// ("환불", "정책은") is a word, not one per syllable.
func Unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// Width is how long a word is, in the letters of alphabetic scripts: a
// letter written wide (a Hangul syllable, a Chinese character, a kana)
// counts two, as it takes two columns of a fixed-width font and stands
// for about two letters ("환불" is as long as "refund" is to a filter of
// short words: longer than "is").
func Width(w string) int {
	n := 0
	for _, r := range w {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// Count returns how often term occurs in text, both lower case: as a
// substring for terms of four bytes or more (identifiers join words:
// "maxheaderbytes" holds "header"), as a whole word (Split) otherwise.
func Count(text, term string) int {
	if len(term) >= 4 {
		return strings.Count(text, term)
	}
	n := 0
	for _, w := range Split(text) {
		if w == term {
			n++
		}
	}
	return n
}

// Keys returns the forms of the words of text that a search term can
// match (Form.Matches): each word in lower case without its underscores
// ("ParseLine" and "parse_line" are both "parseline"), then the parts of
// an identifier split at underscores, lower-to-upper case changes and
// letter-digit changes ("max" and "retries" of "MAX_RETRIES", "parse" and
// "line" of "ParseLine"), and the tokens that Terms keeps whole, lower
// case ("p-104"). Forms says which is which.
func Keys(text string) []string {
	fs := Forms(text)
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.Key
	}
	return keys
}

// A Form is one of the keys of a text (Keys) and whether it was a word
// of letters alone, which may join words: a compound such as
// "Lindenstraße", not an identifier, number or token.
type Form struct {
	Key  string
	Word bool
}

// Forms returns the keys of text (Keys), each with what it was.
func Forms(text string) []Form {
	var fs []Form
	ws := spans(text)
	for _, t := range terms(text, ws) {
		if strings.ContainsAny(t, "-./") {
			fs = append(fs, Form{Key: Key(t)})
		}
	}
	for _, sp := range ws {
		w := text[sp[0]:sp[1]]
		parts := identParts(w)
		word := len(parts) == 1 && !strings.Contains(w, "_") && letters(w)
		fs = append(fs, Form{Key(w), word})
		if len(parts) > 1 {
			for _, p := range parts {
				fs = append(fs, Form{Key: strings.ToLower(p)})
			}
		}
	}
	return fs
}

// letters reports whether s is letters and marks alone.
func letters(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) })
}

// Key is the form of a search term that Form.Matches compares: lower
// case, without underscores.
func Key(term string) string {
	return strings.ReplaceAll(strings.ToLower(term), "_", "")
}

// Matches reports whether the search term (a Key) matches f:
//   - equal;
//   - for a term of four bytes or more, f's start, so that "listen"
//     matches "listens" and "decision" "decisions";
//   - for a term of six bytes or more, the end of a Form.Word, the last
//     part of a compound: asked for the "Straße" of a shop, the line
//     naming "Lindenstraße" was not found ("order" of "border" is too
//     short, and "TestParseLine" is a name of its own).
//
// A part of an identifier matching the start of a term, as "min" of
// "min_stock" would match "minimum", matched too much: "list" of
// "list_items" matched "listen", and "set" would match "settings".
//
// A term in Hangul also matches by its stems, without its last syllable
// or two (two at least left): Korean writes a word's particles onto it
// ("회의에서" is "회의" and "에서", "시간을" is "시간" and "을"), so the
// request's "회의에서" is the files' "회의록" and its "시간을" their
// "수업시간".
func (f Form) Matches(term string) bool {
	if f.matches(term) {
		return true
	}
	for _, stem := range hangulStems(term) {
		if f.matches(stem) {
			return true
		}
	}
	return false
}

func (f Form) matches(term string) bool {
	k := f.Key
	return k == term || len(term) >= 4 && strings.HasPrefix(k, term) ||
		f.Word && len(term) >= 6 && strings.HasSuffix(k, term)
}

// hangulStems returns term without its last syllable and without its
// last two, each of two syllables or more, for a term of Hangul
// syllables alone; nil for any other.
func hangulStems(term string) []string {
	rs := []rune(term)
	if len(rs) < 3 || strings.ContainsFunc(term, func(r rune) bool { return !unicode.Is(unicode.Hangul, r) }) {
		return nil
	}
	var stems []string
	for cut := 1; cut <= 2 && len(rs)-cut >= 2; cut++ {
		stems = append(stems, string(rs[:len(rs)-cut]))
	}
	return stems
}

// identParts splits an identifier at underscores, at a lower-case letter
// followed by an upper-case one, and between letters and digits.
func identParts(w string) []string {
	var parts []string
	for _, f := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' }) {
		rs := []rune(f)
		start := 0
		for i := 1; i < len(rs); i++ {
			a, b := rs[i-1], rs[i]
			if unicode.IsLower(a) && unicode.IsUpper(b) || unicode.IsDigit(a) != unicode.IsDigit(b) {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		parts = append(parts, string(rs[start:]))
	}
	return parts
}

// Fold returns s with the accents of its Latin letters taken off, so
// that a word typed without them matches one written with them: "dias"
// and "días", "reuniao" and "reunião", "electrovanne" and "électrovanne".
// Marks of other scripts stay: the dakuten of "が" makes another letter.
func Fold(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return s
	}
	var b strings.Builder
	latin := false // the last letter is Latin
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			if latin {
				continue
			}
		} else {
			latin = unicode.Is(unicode.Latin, r)
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}
