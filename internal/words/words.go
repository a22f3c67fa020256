// Package words splits text into words in any script. It is the one
// home of offgrid's word splitting: the requests' words (tools.Fields),
// the curator's terms and the tool names the agent compares.
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
