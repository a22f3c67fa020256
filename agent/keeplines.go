package agent

import (
	"encoding/json"
	"fmt"
	"strings"

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

// minDropped is the fewest lines a replacement must take out to be held
// back: a change of three lines into one is an edit, not a loss.
const minDropped = 4

// dropsLines returns why a replace_lines call is not run, or "" to run
// it: it would replace more than half of a file that the conversation
// read whole (and has not changed since) with fewer than half as many
// lines, and at least minDropped of them.
func (a *Agent) dropsLines(name string, arguments json.RawMessage) string {
	if name != "replace_lines" {
		return ""
	}
	var args struct {
		Path       string `json:"path"`
		LineStart  int    `json:"line_start"`
		LineEnd    int    `json:"line_end"`
		NewContent string `json:"new_content"`
	}
	if json.Unmarshal(arguments, &args) != nil || strings.TrimSpace(args.NewContent) == "" {
		return ""
	}
	n := a.linesRead(args.Path)
	end := min(args.LineEnd, n)
	if n == 0 || args.LineStart < 1 || end < args.LineStart {
		return ""
	}
	replaced := end - args.LineStart + 1
	kept := len(strings.Split(strings.TrimSuffix(args.NewContent, "\n"), "\n"))
	if replaced < minDropped || 2*replaced <= n || 2*kept >= replaced {
		return ""
	}
	return fmt.Sprintf("not run: it would replace %d of the %d lines of %s with %d; replace only the lines that change, or answer in text if the request asks for no change",
		replaced, n, args.Path, kept)
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
