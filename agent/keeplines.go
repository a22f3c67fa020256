package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// Keeping a file's lines: a small model asked a question about a file it
// read sometimes "answers" by replacing most of the file with one line
// (the 0.5B replaced 15 of a 16-line CSV with the product ids a Japanese
// question asked for, and 10 lines of Italian meeting notes with one).
// Such a call is not run: it fails, and the model is told to replace
// only the lines that change. Deleting lines (empty new content) and
// short replacements are run as asked; so is any call on a file the
// conversation has not read whole, or has changed since: offgrid cannot
// tell, and fails open. Tried and not kept: the reply not run and the
// model asked to answer, as after a repeat; for the CSV the 0.5B then
// advised a shell command writing a file no tool had named (a
// fabricated answer on the dev split, where the failed call gave none).
//
// A write_file over a file the conversation read whole is held back
// the same way when it would keep fewer than half of its lines: asked to
// add a row at the end of a 4-line CSV, the 1.5B wrote the new row alone
// and lost the other four. Unlike replace_lines, whose purpose is a few
// lines, write_file's is to replace a file whole, which a user may want:
// the model is told to ask them, and the same call made in a later turn,
// after the user's next message, is run (it fails open to the user, not
// to the model, which repeats calls).

// minDropped is the fewest lines a replacement must take out to be held
// back: a change of three lines into one is an edit, not a loss.
const minDropped = 4

// dropsLines returns why a call is not run, or "" to run it: a
// replace_lines call that would replace more than half of a file that the
// conversation read whole (and has not changed since) with fewer than
// half as many lines, and at least minDropped of them; or a write_file
// call that would do that to the whole file (overwrites).
func (a *Agent) dropsLines(name string, arguments json.RawMessage) string {
	switch name {
	case "replace_lines":
		var args struct {
			Path       string `json:"path"`
			LineStart  int    `json:"line_start"`
			LineEnd    int    `json:"line_end"`
			NewContent string `json:"new_content"`
		}
		if json.Unmarshal(arguments, &args) != nil {
			return ""
		}
		n := a.linesRead(args.Path)
		replaced, kept, loses := losesLines(n, args.LineStart, args.LineEnd, args.NewContent)
		if !loses {
			return ""
		}
		return fmt.Sprintf("not run: it would replace %d of the %d lines of %s with %d; replace only the lines that change, or answer in text if the request asks for no change",
			replaced, n, args.Path, kept)
	case "write_file":
		return a.overwrites(arguments)
	}
	return ""
}

// losesLines reports whether replacing lines start to end of a file of
// n lines, as read, with content loses lines as dropsLines holds back,
// with how many lines are replaced and how many content has. n is 0 for
// a file not read whole; deleting lines (content empty) loses none.
func losesLines(n, start, end int, content string) (replaced, kept int, loses bool) {
	end = min(end, n)
	if n == 0 || strings.TrimSpace(content) == "" || start < 1 || end < start {
		return 0, 0, false
	}
	replaced = end - start + 1
	kept = len(strings.Split(strings.TrimSuffix(content, "\n"), "\n"))
	return replaced, kept, replaced >= minDropped && 2*replaced > n && 2*kept < replaced
}

// overwrites returns why a write_file call is not run, or "" to run it:
// it would keep fewer than half of the lines of a file the conversation
// read whole, and was not held back so in an earlier turn.
func (a *Agent) overwrites(arguments json.RawMessage) string {
	var args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if json.Unmarshal(arguments, &args) != nil {
		return ""
	}
	key := repeatKey(grammar.Call{Name: "write_file", Arguments: arguments})
	if t, ok := a.held[key]; ok && t < a.turns {
		return "" // made again after the user's next message
	}
	n := a.linesRead(args.Path)
	_, kept, loses := losesLines(n, 1, n, args.Content)
	if !loses {
		return ""
	}
	if a.held == nil {
		a.held = map[string]int{}
	}
	if _, ok := a.held[key]; !ok {
		a.held[key] = a.turns
	}
	return fmt.Sprintf("not run: it would replace all %d lines of %s with %d, and the others would be lost; %s; if the whole file is to be replaced, ask the user: the same call is run after their next message",
		n, args.Path, kept, a.editTools())
}

// editTools says which tools change some lines of a file, for a
// write_file held back by dropsLines.
func (a *Agent) editTools() string {
	var ways []string
	for _, w := range []struct{ tool, way string }{
		{"insert_lines", "call insert_lines to add lines"},
		{"replace_lines", "replace_lines to change some"},
	} {
		if a.reg == nil {
			break // an agent without tools, as in tests of dropsLines alone
		}
		if _, ok := a.reg.Lookup(w.tool); ok {
			ways = append(ways, w.way)
		}
	}
	if len(ways) == 0 {
		return "write it whole with the lines that stay"
	}
	return strings.Join(ways, ", ")
}

// linesRead returns the number of lines of the file at path as the
// conversation's last whole read of it showed, or 0 when it was not
// read whole or a call changed it since.
func (a *Agent) linesRead(path string) int {
	for i := len(a.records) - 1; i >= 0; i-- {
		r := a.records[i]
		if !r.OK() || callTarget(r) != path {
			continue
		}
		if r.Name != readFileTool || r.Result.Data == nil {
			return 0 // changed, or seen some other way
		}
		n, _ := tools.WholeLines(*r.Result.Data)
		return n
	}
	return 0
}
