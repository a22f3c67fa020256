package grammar

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

var responseOpen = regexp.MustCompile(`^\{\s*"response"\s*:\s*"`)

// jsonResponse decodes as much of the string in {"response": "..."} as
// is complete.
func jsonResponse(t string) string {
	loc := responseOpen.FindStringIndex(t)
	if loc == nil {
		return ""
	}
	s := t[loc[1]:]
	var sb strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return sb.String()
		case c != '\\':
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return sb.String()
		}
		switch s[i+1] {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'u':
			r, n, ok := hexRune(s[i:])
			if !ok {
				return sb.String()
			}
			sb.WriteRune(r)
			i += n
			continue
		default: // \" \\ \/
			sb.WriteByte(s[i+1])
		}
		i += 2
	}
	return sb.String()
}

// hexRune decodes \uXXXX (with a surrogate pair) at the start of s.
func hexRune(s string) (rune, int, bool) {
	u := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(n), err == nil
	}
	r, ok := u(s)
	if !ok {
		return 0, 0, false
	}
	if utf16.IsSurrogate(r) {
		r2, ok := u(s[6:])
		if !ok {
			return 0, 0, false
		}
		return utf16.DecodeRune(r, r2), 12, true
	}
	return r, 6, true
}
