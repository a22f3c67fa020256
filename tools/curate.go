package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/offgrid-ai/offgrid/curator"
)

// A Curator chooses the parts of a long file a request needs;
// *curator.Curator is one.
type Curator interface {
	Curate(ctx context.Context, request, name, text string) (curator.Selection, error)
}

type requestKey struct{}

// WithRequest returns a context that carries the user's request the tool
// calls made under it serve; read_file's curator (see [WithCurator])
// chooses what to show for it.
func WithRequest(ctx context.Context, request string) context.Context {
	return context.WithValue(ctx, requestKey{}, request)
}

func requestOf(ctx context.Context) string {
	s, _ := ctx.Value(requestKey{}).(string)
	return s
}

// A file read whole is curated when it has more than curateLines lines
// and more than curateBytes bytes; others come back whole.
const (
	curateLines = 100
	curateBytes = 8 << 10
)

// curated reads the rest of br (the file at path) and returns the parts of
// it the request needs, numbered, with "…" for the lines left out and a
// note on how to read them. A file short enough to be read whole is not
// curated: ok is false and rest, what was read, is to be read instead of br.
func (f *fileTools) curated(ctx context.Context, path string, br *bufio.Reader, request string) (out string, rest *bufio.Reader, ok bool, err error) {
	b, err := io.ReadAll(io.LimitReader(br, maxWholeFile+1))
	if err != nil {
		return "", nil, false, f.sb.pathError(path, err)
	}
	text := string(b)
	if strings.Count(strings.TrimSuffix(text, "\n"), "\n")+1 <= curateLines {
		return "", bufio.NewReader(strings.NewReader(text)), false, nil
	}
	sel, err := f.curator.Curate(ctx, request, path, text)
	if err != nil {
		return "", nil, false, err
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var w strings.Builder
	shown, prev := 0, 0
	for _, r := range sel.Ranges {
		if r.From > prev+1 {
			w.WriteString("…\n")
		}
		for n := r.From; n <= r.To && n <= len(lines); n++ {
			line := strings.TrimSuffix(lines[n-1], "\r")
			if len(line) > maxLine {
				line = strings.ToValidUTF8(line[:maxLine], "") + fmt.Sprintf(" [line cut at %s]", humanSize(maxLine))
			}
			fmt.Fprintf(&w, "%d: %s\n", n, line)
			shown++
		}
		prev = r.To
	}
	if prev < len(lines) {
		w.WriteString("…\n")
	}
	var spans []string
	for _, r := range sel.Ranges {
		spans = append(spans, r.String())
	}
	fmt.Fprintf(&w, "[%s has %d lines; shown: lines %s, the parts that matter for the request (chosen by offgrid's file curator); call read_file with an offset to read from another line]\n",
		path, len(lines), strings.Join(spans, ", "))
	return w.String(), nil, true, nil
}
