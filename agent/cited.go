package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// Read the file the answer cites (Options.ReadCited): asked for the
// lowest humidity of June, the 0.5B searched, was given the best line's
// file (docs/wiring.md, for its "since June 2024") and answered
// "According to the data in the `data/readings_2024-06.csv` file, the
// lowest humidity recorded in June was 4.0%": a file it had seen three
// lines of in the search, and a figure from one of them. The answer
// names the file that holds what was asked, which the search's ranking
// did not choose; offgrid reads that file and the model answers again,
// from both reads. File names are the same in every language.

// citedFile returns the one file of the working directory, other than
// the one the turn read, that answer names, when the turn read exactly
// one file and changed nothing; "" otherwise. Folders, files that do not
// exist or lie outside, and a second file named leave it "": an answer
// that names several files lists them (a search's answer), and is not
// about one the turn missed.
func (a *Agent) citedFile(turn Turn, answer string) string {
	if a.opts.Mentions == nil || turn.change {
		return ""
	}
	var read string
	for _, r := range turn.Calls {
		if changes(a.reg, r.Name) {
			return ""
		}
		if r.Name != readFileTool || !r.OK() {
			continue
		}
		if read != "" {
			return "" // more than one file read
		}
		read = readPath(r)
	}
	if read == "" {
		return ""
	}
	cited := ""
	for _, m := range a.opts.Mentions(answer) {
		p := cleanPath(m.Path)
		if m.Dir || m.Missing || m.Outside() || p == read {
			continue
		}
		if cited != "" && cited != p {
			return "" // several files
		}
		cited = p
	}
	return cited
}

// readPath returns the cleaned path a read_file record read.
func readPath(r ToolRecord) string { return cleanPath(r.argPath()) }

// cleanPath returns p without a leading "./", cleaned ("" stays "").
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(strings.TrimPrefix(p, "./"))
}

// readCited reads the file answer cites (citedFile) for the model, and
// queries it when it is a table (queryTable). It reports whether the
// read succeeded, so that the model answers again.
func (a *Agent) readCited(ctx context.Context, turn *Turn, answer string, on func(Event)) (bool, error) {
	if !a.opts.ReadCited || a.opts.ToolChoice == grammar.None {
		return false, nil
	}
	p := a.citedFile(*turn, answer)
	if p == "" {
		return false, nil
	}
	if _, ok := a.reg.Lookup(readFileTool); !ok {
		return false, nil
	}
	args, err := json.Marshal(map[string]string{"path": p})
	if err != nil {
		return false, err
	}
	// The answer streamed so far is a draft: say why another follows.
	on(Event{Type: EventWarning, Text: fmt.Sprintf("the answer names %s, which was not read: reading it and answering again", p)})
	calls := a.assignIDs([]grammar.Call{{Name: readFileTool, Arguments: args}})
	on(Event{Type: EventToolCall, ID: calls[0].ID, Tool: readFileTool, Arguments: argsOrEmpty(calls[0].Arguments), ByAgent: true})
	if _, _, _, err := a.runCalls(ctx, NewExecutor(a.reg, a.policy, a.opts.Limits), turn, repeatGuard{}, calls, true, on); err != nil {
		return false, err
	}
	if last := turn.Calls[len(turn.Calls)-1]; !last.OK() {
		return false, nil // the first answer stands; the record shows the failed read
	}
	if err := a.queryTable(ctx, turn, turn.request, len(turn.Calls)-1, on); err != nil {
		return false, err
	}
	return true, nil
}
