// Package words splits text into words in any script. It is the one
// home of offgrid's word splitting and matching: the requests' words
// (tools.Fields), the curator's terms, grep_search's ranked lines and the
// tool names the agent compares.
package words

import (
	"strings"
	"unicode"
)

// Split returns the words of s: runs of letters, digits, marks and
// underscores ("max_retries", "Größe", "1024"), and each letter of a
// script written without spaces between words (Chinese, Japanese, Thai…)
// on its own, so that "配置文件" is four words and not one.
func Split(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		switch {
		case Unspaced(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_':
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
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
// spaces between words.
func Unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
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
// match (Matches): each word in lower case without its underscores
// ("ParseLine" and "parse_line" are both "parseline"), then the parts of
// an identifier split at underscores, lower-to-upper case changes and
// letter-digit changes ("max" and "retries" of "MAX_RETRIES", "parse" and
// "line" of "ParseLine").
func Keys(text string) []string {
	var keys []string
	for _, w := range Split(text) {
		keys = append(keys, Key(w))
		parts := identParts(w)
		if len(parts) > 1 {
			for _, p := range parts {
				keys = append(keys, strings.ToLower(p))
			}
		}
	}
	return keys
}

// Key is the form of a search term that Matches compares: lower case,
// without underscores.
func Key(term string) string {
	return strings.ReplaceAll(strings.ToLower(term), "_", "")
}

// Matches reports whether the search term (a Key) matches key, one of
// Keys: equal, or for a term of four bytes or more a prefix of it, so
// that "listen" matches "listens" and "decision" "decisions".
func Matches(key, term string) bool {
	return key == term || len(term) >= 4 && strings.HasPrefix(key, term)
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
