package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
	"github.com/offgrid-ai/offgrid/tools"
)

// Limits of what a prompt shows; the call itself always runs in full.
const (
	maxString      = 200     // runes of a string argument
	maxPreviewLine = 160     // runes of a line in a change preview
	maxChanged     = 12      // removed, and added, lines in a preview
	diffContext    = 3       // unchanged lines before and after a change
	maxPreviewFile = 1 << 20 // larger files get no preview
)

// Render returns what the user reads before approving a call, as plain
// text to be shown verbatim (no Markdown): the tool and its risk, the
// arguments exactly as they will run (indented JSON in the call's key
// order, numbers as written, long strings cut with their full size,
// control characters and escape sequences shown as \x1b and the like,
// never interpreted), and for write_file, replace_lines and insert_lines a
// preview of the change against the file as it is now in files, the
// tools' root (nil: no preview).
func Render(req Request, files fs.FS) string {
	var b strings.Builder
	b.WriteString(title(req))
	b.WriteString("\nArguments:\n")
	b.WriteString(FormatArgs(req.Args))
	b.WriteByte('\n')
	if files != nil {
		b.WriteString(preview(req, files))
	}
	return b.String()
}

func title(req Request) string {
	t := fmt.Sprintf("Tool call: %s (%s risk)", visible(req.Tool, 64), req.Risk)
	if req.Risk == tools.High {
		t = "⚠ " + t + " — it can change files or run commands"
	}
	if _, warning, ok := strings.Cut(req.Description, tools.Unconfined+": "); ok {
		t += "\n⚠ " + tools.Unconfined + ": " + visible(warning, maxString)
	}
	return t
}

// FormatArgs shows a call's JSON arguments for a person: indented, keys
// in the order of the call, numbers as written, strings quoted with
// control characters made visible and cut after maxString runes with the
// string's full size. Text that is not JSON is shown escaped as it is.
func FormatArgs(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(no arguments)"
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return fmt.Sprintf("(not a JSON object: %s)\n%s", visible(err.Error(), maxString), visible(string(raw), maxString*4))
	}
	if v.Kind == jsonx.Object && len(v.Members) == 0 {
		return "(no arguments)"
	}
	var b strings.Builder
	writeValue(&b, v, "")
	return b.String()
}

// writeValue writes v indented by indent, strings as quote shows them.
func writeValue(b *strings.Builder, v *jsonx.Value, indent string) {
	switch v.Kind {
	case jsonx.Object, jsonx.Array:
		open, closing, n := "[", "]", len(v.Elems)
		if v.Kind == jsonx.Object {
			open, closing, n = "{", "}", len(v.Members)
		}
		b.WriteString(open)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + indent + "  ")
			if v.Kind == jsonx.Array {
				writeValue(b, v.Elems[i], indent+"  ")
				continue
			}
			b.WriteString(quote(v.Members[i].Key, maxString))
			b.WriteString(": ")
			writeValue(b, v.Members[i].Value, indent+"  ")
		}
		if n > 0 {
			b.WriteString("\n" + indent)
		}
		b.WriteString(closing)
	case jsonx.String:
		b.WriteString(quote(v.Text, maxString))
	case jsonx.Number:
		b.WriteString(v.Text)
	case jsonx.Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	default:
		b.WriteString("null")
	}
}

// quote writes s as a JSON-like string literal with every character that
// could move the cursor, change colours or reorder text escaped, cut
// after limit runes: "abc…" (12,431 bytes).
func quote(s string, limit int) string {
	e, cut := escape(s, limit)
	if cut {
		return `"` + e + `…" (` + size(len(s)) + `)`
	}
	return `"` + e + `"`
}

// visible escapes s for a terminal: quotes and backslashes as in JSON,
// \n \t \r, other control characters as \xHH (C0, DEL) or \uHHHH (C1,
// and format characters such as bidirectional overrides and zero-width
// spaces, which can hide text). More than limit runes (limit > 0) are cut
// and "…" appended.
func visible(s string, limit int) string {
	e, cut := escape(s, limit)
	if cut {
		return e + "…"
	}
	return e
}

// escape is visible without the "…"; cut reports that runes were left out.
func escape(s string, limit int) (e string, cut bool) {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if limit > 0 && n == limit {
			return b.String(), true
		}
		n++
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"): // a byte that is not UTF-8
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0xa0 && r >= 0x80, unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), false
}

// size formats n bytes with thousands separators: "12,431 bytes".
func size(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n == 1 {
		return s + " byte"
	}
	return s + " bytes"
}

// editArgs are the arguments of the file-writing tools.
type editArgs struct {
	Path       string  `json:"path"`
	Content    *string `json:"content"`
	LineStart  int     `json:"line_start"`
	LineEnd    int     `json:"line_end"`
	NewContent string  `json:"new_content"`
}

// preview shows the change a file-writing call would make, or "" for
// other tools.
func preview(req Request, files fs.FS) string {
	switch req.Tool {
	case "write_file", "replace_lines", "insert_lines":
	default:
		return ""
	}
	var a editArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return "(no preview: " + visible(err.Error(), maxString) + ")\n"
	}
	name := path.Clean(filepath.ToSlash(a.Path))
	shown := visible(a.Path, maxString)
	if !fs.ValidPath(name) || name == "." {
		return fmt.Sprintf("(no preview: %s is not a file in the working directory)\n", shown)
	}
	old, err := readPreview(files, name)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Sprintf("(no preview of %s: %s)\n", shown, visible(err.Error(), maxString))
	}
	var updated []byte
	switch req.Tool {
	case "write_file":
		if a.Content == nil {
			return "(no preview: no content)\n"
		}
		updated = []byte(*a.Content)
	default:
		if missing {
			return fmt.Sprintf("(%s does not exist: the call will fail)\n", shown)
		}
		last := a.LineEnd
		if req.Tool == "insert_lines" {
			last = a.LineStart - 1
		}
		if updated, err = tools.EditLines(old, a.LineStart, last, a.NewContent); err != nil {
			return fmt.Sprintf("(no preview of %s: %v; the call will fail)\n", shown, err)
		}
	}
	head := "Change to " + shown + ":\n"
	if missing {
		head = "New file " + shown + ":\n"
	}
	return head + diff(old, updated)
}

// readPreview reads a text file small enough to preview.
func readPreview(files fs.FS, name string) ([]byte, error) {
	fi, err := fs.Stat(files, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > maxPreviewFile {
		return nil, fmt.Errorf("the file is %s", size(int(fi.Size())))
	}
	data, err := fs.ReadFile(files, name)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, errors.New("a binary file")
	}
	return data, nil
}

// diff shows the change from old to updated as one unified-diff hunk: the
// lines between their common start and end marked '-' and '+', with up to
// diffContext unchanged lines around them. Each side shows at most
// maxChanged lines and says how many more there are; each line is made
// visible and cut like a string argument.
func diff(old, updated []byte) string {
	a, b := lines(old), lines(updated)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	if p == len(a) && p == len(b) {
		if bytes.Equal(old, updated) {
			return "(no change)\n"
		}
		return "(only line endings change)\n"
	}
	lo := max(p-diffContext, 0)
	hiA, hiB := len(a)-s, len(b)-s
	after := min(s, diffContext)
	var out strings.Builder
	fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(lo, hiA+after-lo), span(lo, hiB+after-lo))
	for _, l := range a[lo:p] {
		out.WriteString(" " + visible(l, maxPreviewLine) + "\n")
	}
	side(&out, "-", a[p:hiA])
	side(&out, "+", b[p:hiB])
	for _, l := range b[hiB : hiB+after] {
		out.WriteString(" " + visible(l, maxPreviewLine) + "\n")
	}
	return out.String()
}

func side(out *strings.Builder, mark string, ls []string) {
	for i, l := range ls {
		if i == maxChanged {
			what := map[string]string{"-": "removed", "+": "added"}[mark]
			fmt.Fprintf(out, "%s… %d more lines %s\n", mark, len(ls)-i, what)
			return
		}
		out.WriteString(mark + visible(l, maxPreviewLine) + "\n")
	}
}

// span is a unified-diff range: first line (1-based) and count, with the
// line before an empty range.
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lines splits text into lines without their endings.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}
