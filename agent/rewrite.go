package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// changeWords are the words of a request to change a file (see
// Options.Rewrite); removeWords those of one that may take lines out.
var (
	changeWords = []string{"change", "replace", "edit", "update", "modify", "set", "fix", "correct", "add", "insert",
		"append", "prepend", "remove", "delete", "rename", "mark", "put"}
	removeWords = []string{"remove", "delete", "drop", "clear", "empty", "replace", "rewrite"}
)

// numberedLine is a line as read_file numbers it.
var numberedLine = regexp.MustCompile(`^[0-9]+: `)

// Limits of a file Options.Rewrite has the model write whole.
const (
	maxRewriteLines = 200
	maxRewriteBytes = 8 << 10
)

// rewrite has the model write the whole new content of the one file the
// request names and offgrid has read (Options.Rewrite), in a prompt of
// its own, and returns the line edit that makes the file so: a
// replace_lines or insert_lines call of the lines that differ. It
// returns no call when the request is not about a change, the file does
// not qualify, the edit tools are not offered, or the model's content is
// the file unchanged, unreadable or, for a request that takes nothing
// out, shorter by more than half.
func (a *Agent) rewrite(ctx context.Context, turn *Turn, request string, on func(Event)) ([]grammar.Call, error) {
	if !a.opts.Rewrite || !tools.About(request, changeWords) || !a.offers("replace_lines") || !a.offers("insert_lines") {
		return nil, nil
	}
	var rec *ToolRecord
	for i := range turn.Calls {
		r := &turn.Calls[i]
		if !r.ByAgent || r.Name != readFileTool {
			continue
		}
		if rec != nil {
			return nil, nil // more than one file
		}
		rec = r
	}
	if rec == nil || !rec.OK() || rec.Result.Data == nil || len(*rec.Result.Data) > 2*maxRewriteBytes {
		return nil, nil
	}
	var args struct{ Path string }
	if json.Unmarshal(rec.Arguments, &args) != nil {
		return nil, nil
	}
	old, ok := tools.Unnumbered(*rec.Result.Data)
	if !ok || len(old) > maxRewriteLines {
		return nil, nil
	}
	numbered := *rec.Result.Data // as read_file shows it: "1: text"
	if len(numbered) > maxRewriteBytes {
		return nil, nil
	}
	fence := codeFence(numbered)
	prompt := fmt.Sprintf("The file %s holds (with line numbers):\n%s\n%s%s\n\n%s\n\nReply with the whole new content of %s, with line numbers, in one %s block, and nothing else.",
		args.Path, fence, numbered, fence, request, args.Path, fence)
	comp, err := a.complete(ctx, turn, on, CompletionRequest{
		Messages:   []Message{{Role: RoleUser, Content: prompt}},
		Format:     a.opts.Format,
		MaxTokens:  len(numbered)/2 + 256,
		ToolChoice: grammar.None,
	})
	if err != nil {
		return nil, err
	}
	block, ok := fencedLines(comp.Content)
	if !ok {
		return nil, nil
	}
	// The lines come numbered, as shown; without numbers they are taken
	// as they are, unless some are numbered and others not.
	updated, ok := tools.Unnumbered(strings.Join(block, "\n") + "\n")
	if !ok {
		if slices.ContainsFunc(block, numberedLine.MatchString) {
			return nil, nil
		}
		updated = block
	}
	for len(updated) > 0 && updated[len(updated)-1] == "" && (len(old) == 0 || old[len(old)-1] != "") {
		updated = updated[:len(updated)-1] // a blank line before the closing fence
	}
	if 2*len(updated) < len(old) && !tools.About(request, removeWords) {
		on(Event{Type: EventWarning, Text: fmt.Sprintf("the model's rewrite of %s drops most of its lines; it is not used", args.Path)})
		return nil, nil
	}
	call, ok := lineEdit(args.Path, old, updated)
	if !ok {
		return nil, nil
	}
	return []grammar.Call{call}, nil
}

// offers reports whether the tool name is offered this turn.
func (a *Agent) offers(name string) bool {
	for _, d := range a.offered {
		if d.Name == name {
			return true
		}
	}
	return false
}

// fencedLines returns the lines of the first fenced block of reply (a
// line of three or more backticks, maybe with a language, to the next
// line of as many); false when there is none or it is not closed.
func fencedLines(reply string) ([]string, bool) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		if n < 3 || strings.Contains(t[n:], "`") {
			continue
		}
		fence := t[:n]
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				return lines[i+1 : j], true
			}
		}
		return nil, false
	}
	return nil, false
}

// lineEdit returns the replace_lines or insert_lines call that turns the
// lines old of the file path into updated: the lines between their
// common head and tail. It reports false when they are the same.
func lineEdit(path string, old, updated []string) (grammar.Call, bool) {
	head := 0
	for head < len(old) && head < len(updated) && old[head] == updated[head] {
		head++
	}
	tail := 0
	for tail < len(old)-head && tail < len(updated)-head && old[len(old)-1-tail] == updated[len(updated)-1-tail] {
		tail++
	}
	gone, added := old[head:len(old)-tail], updated[head:len(updated)-tail]
	if len(gone) == 0 && len(added) == 0 {
		return grammar.Call{}, false
	}
	var args []byte
	if len(gone) == 0 {
		args, _ = json.Marshal(struct {
			Path       string `json:"path"`
			LineStart  int    `json:"line_start"`
			NewContent string `json:"new_content"`
		}{path, head + 1, strings.Join(added, "\n")})
		return grammar.Call{Name: "insert_lines", Arguments: args}, true
	}
	args, _ = json.Marshal(struct {
		Path       string `json:"path"`
		LineStart  int    `json:"line_start"`
		LineEnd    int    `json:"line_end"`
		NewContent string `json:"new_content"`
	}{path, head + 1, len(old) - tail, strings.Join(added, "\n")})
	return grammar.Call{Name: "replace_lines", Arguments: args}, true
}
