package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// markdown renders the model's final answers, which are Markdown, at a
// terminal: headings, lists, code blocks with highlighting. The answer
// streams in raw; once it is complete it is replaced by its rendering.
type markdown struct {
	fd      int
	profile termenv.Profile
	style   string
}

// terminalOut returns w's file descriptor if w is a terminal.
func terminalOut(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// newMarkdown returns a renderer for w, or nil when w is not a terminal
// (output to a file or a pipe stays raw).
func newMarkdown(w io.Writer, getenv func(string) string) *markdown {
	fd, ok := terminalOut(w)
	if !ok {
		return nil
	}
	style := styles.DarkStyle
	if s := getenv("GLAMOUR_STYLE"); s != "" {
		style = s
	}
	return &markdown{fd: fd, profile: termenv.NewOutput(w.(*os.File), termenv.WithEnvironment(envFunc(getenv))).EnvColorProfile(), style: style}
}

// envFunc lets termenv read the command's environment.
type envFunc func(string) string

func (e envFunc) Environ() []string        { return nil }
func (e envFunc) Getenv(key string) string { return e(key) }

// render returns text rendered for a terminal width columns wide.
func (md *markdown) render(text string, width int) (string, error) {
	opts := []glamour.TermRendererOption{glamour.WithColorProfile(md.profile), glamour.WithWordWrap(max(20, width-4))}
	if _, ok := styles.DefaultStyles[md.style]; ok {
		opts = append(opts, glamour.WithStandardStyle(md.style))
	} else {
		opts = append(opts, glamour.WithStylePath(md.style))
	}
	r, err := glamour.NewTermRenderer(opts...)
	if err != nil {
		return "", err
	}
	out, err := r.Render(text)
	if err != nil {
		return "", err
	}
	// Drop glamour's blank margin lines above and below.
	lines := strings.Split(out, "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\x1b[0m\n", nil
}

// replace writes the rendering of text to w in place of streamed, the
// same answer as it was streamed raw, the cursor at its end. It writes
// nothing and reports false when it cannot: the raw text is then left as
// it is (e.g. an answer taller than the screen, whose top has scrolled
// out of reach).
func (md *markdown) replace(w io.Writer, streamed, text string) bool {
	width, height, err := term.GetSize(md.fd)
	if err != nil || width <= 0 {
		return false
	}
	out, err := md.render(text, width)
	if err != nil {
		return false
	}
	up := rows(streamed, width) - 1
	if up >= height-1 {
		return false
	}
	// Back to the first row of the answer, clear to the end of the screen.
	fmt.Fprint(w, "\r")
	if up > 0 {
		fmt.Fprintf(w, "\x1b[%dA", up)
	}
	fmt.Fprint(w, "\x1b[J", out)
	return true
}

// rows is how many terminal rows text takes when written from the first
// column of a terminal width columns wide; the cursor ends on the last.
func rows(text string, width int) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		w := lineWidth(line)
		// A line exactly as wide as the terminal leaves the cursor in its
		// last column (the wrap is pending), not on a new row.
		n += max(1, (w+width-1)/width)
	}
	return n
}

// lineWidth is the display width of one line, tabs expanded to stops of
// eight columns.
func lineWidth(line string) int {
	w := 0
	for i, part := range strings.Split(line, "\t") {
		if i > 0 {
			w += 8 - w%8
		}
		w += ansi.StringWidth(strings.TrimSuffix(part, "\r"))
	}
	return w
}
