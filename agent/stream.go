package agent

import (
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// visibleStream passes on the user-visible part of a reply while it is
// generated: text before any tool-call markup, or the answer inside a
// generic {"response": ...} object. Markup never reaches the user.
type visibleStream struct {
	format  grammar.Format
	plain   bool // no tools offered: all of the reply is text
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
	v.raw.WriteString(s)
	if v.out == nil || s == "" || v.broken {
		return
	}
	// Trailing space waits for what follows: it is dropped before markup
	// and at the end.
	vis := v.raw.String()
	if !v.plain {
		vis = visibleText(v.format, vis)
	}
	vis = strings.TrimRight(vis, " \t\r\n")
	if !strings.HasPrefix(vis, v.emitted) {
		v.broken = true // cannot take back what was shown
		return
	}
	if d := vis[len(v.emitted):]; d != "" {
		v.emitted = vis
		v.out(d)
	}
}

// reset replaces the reply so far with raw, a prefix of it whose visible
// part was shown already.
func (v *visibleStream) reset(raw string) {
	v.raw.Reset()
	v.raw.WriteString(raw)
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
func visibleText(f grammar.Format, raw string) string { return grammar.Visible(f, raw) }
