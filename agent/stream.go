package agent

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/offgrid-ai/offgrid/grammar"
)

// visibleStream passes on the user-visible part of a reply while it is
// generated: text before any tool-call markup, or the answer inside a
// generic {"response": ...} object. Markup never reaches the user.
type visibleStream struct {
	format  grammar.Format
	out     func(string)
	raw     strings.Builder
	emitted string
	broken  bool
}

func newVisibleStream(f grammar.Format, out func(string)) *visibleStream {
	return &visibleStream{format: f, out: out}
}

// write adds generated text.
func (v *visibleStream) write(s string) {
	if v.out == nil || s == "" {
		return
	}
	v.raw.WriteString(s)
	if v.broken {
		return
	}
	// Trailing space waits for what follows: it is dropped before markup
	// and at the end.
	vis := strings.TrimRight(visibleText(v.format, v.raw.String()), " \t\r\n")
	if !strings.HasPrefix(vis, v.emitted) {
		v.broken = true // cannot take back what was shown
		return
	}
	if d := vis[len(v.emitted):]; d != "" {
		v.emitted = vis
		v.out(d)
	}
}

// finish shows the final content when nothing was streamed, e.g. a
// reply held back as possible markup that turned out to be text.
func (v *visibleStream) finish(content string) {
	if v.out == nil || v.emitted != "" || content == "" {
		return
	}
	v.emitted = content
	v.out(content)
}

// visibleText returns the part of a partial reply that can be shown.
func visibleText(f grammar.Format, raw string) string {
	t := strings.TrimLeft(raw, " \t\r\n")
	if t == "" {
		return ""
	}
	switch f {
	case grammar.Hermes:
		return textBefore(t, "<tool_call>")
	case grammar.Mistral:
		return textBefore(t, "[TOOL_CALLS]")
	case grammar.Llama3:
		if t[0] == '{' || isPrefixEither(t, "<|python_tag|>") {
			return ""
		}
	case grammar.Pythonic:
		if t[0] == '[' || isPrefixEither(t, "```") {
			return ""
		}
	case grammar.Generic:
		if t[0] == '{' {
			return jsonResponse(t)
		}
	}
	return t
}

// isPrefixEither reports whether a or b is a prefix of the other.
func isPrefixEither(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// textBefore returns the text before marker, holding back a tail that
// could be the start of marker.
func textBefore(t, marker string) string {
	if i := strings.Index(t, marker); i >= 0 {
		return strings.TrimRight(t[:i], " \t\r\n")
	}
	for k := min(len(marker)-1, len(t)); k > 0; k-- {
		if strings.HasSuffix(t, marker[:k]) {
			return t[:len(t)-k]
		}
	}
	return t
}

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
