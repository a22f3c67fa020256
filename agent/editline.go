package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/words"
	"github.com/offgrid-ai/offgrid/tools"
)

// EditLine: a change to the one file read that the model's rewrite
// (Rewrite) left as it was is made at one line. The line is one that
// holds the most of the names the request holds; of up to four such, the
// model copies the one the change is about, under a grammar (among all
// of a file's lines, the 0.5B chose one unrelated to the request). Then,
// shown that line, the request and examples, it chooses the edit: delete
// the line, change it, add lines after it, or none. offgrid deletes the
// line itself, or has the model write the one line, or the new lines
// alone. Asked to rewrite a whole file, or 7 lines of it, the 0.5B wrote
// them back unchanged for "delete the sentence about Windows" and "note
// in the changelog that we added …": what it must copy is what it does
// not change.

// The edits of a line the model chooses among.
const (
	editDelete = "delete it"
	editChange = "change it"
	editAdd    = "add new lines after it"
	editNone   = "no change"
)

// editExamples are a line, a request about it, and the edit it asks for.
var editExamples = []struct{ line, request, edit string }{
	{"- Buy milk", "We already bought the milk, take it off the list.", editDelete},
	{"port: 8080", "Le port doit être 9090.", editChange},
	{"## [Unreleased]", "Im Changelog unter Unreleased vermerken, dass der Export jetzt CSV kann.", editAdd},
	{"timeout: 30", "超时设置是多少？", editNone},
	{"- [ ] Call the plumber", "Marque a tarefa do encanador como feita.", editChange},
	{"Legacy API: /v1/items", "古い API の行はもう要らないので消して。", editDelete},
	{"## Contributors", "Añade a Lucía a la lista de colaboradores.", editAdd},
}

// editMessages is the choice of the edit a request asks for of the line
// it is about: examples as earlier turns, then the line and the request.
func editMessages(line, request string) []Message {
	ask := func(line, request string) string {
		return fmt.Sprintf("Line: %s\nRequest: %s", strings.TrimSpace(line), request)
	}
	return fewShot(fmt.Sprintf("Choose what a request asks to do with a line of a file: %q, %q, %q, or %q.", editDelete, editChange, editAdd, editNone),
		editExamples, func(ex struct{ line, request, edit string }) (string, string) {
			return ask(ex.line, ex.request), ex.edit
		}, ask(line, request))
}

// fileMessage shows the model the file source, numbered as read_file
// shows it, and the request.
func fileMessage(source, numbered, request string) Message {
	return Message{Role: RoleUser, Content: fmt.Sprintf("%s\n\nRequest: %s", shownFile(source, numbered), request)}
}

// maxEditLines bounds the lines the model chooses the edited one among.
const maxEditLines = 4

// namedLines returns the numbers of the lines of all that hold the most
// of the names the request's spelling marks (markedWords: "Windows",
// "Office Hub Altona", "__version__", "1.4.2"; the same in every
// language), best first, at most maxEditLines; none when no line holds
// one.
func namedLines(all []string, request string) []int {
	var keys []string
	for _, w := range markedWords(request) {
		if k := words.Key(w); k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	held := make([]int, len(all))
	var out []int
	for i, l := range all {
		forms := words.Forms(l)
		for _, k := range keys {
			if slices.ContainsFunc(forms, func(f words.Form) bool { return f.Matches(k) }) {
				held[i]++
			}
		}
		if held[i] > 0 {
			out = append(out, i+1)
		}
	}
	slices.SortStableFunc(out, func(x, y int) int { return cmp.Compare(held[y-1], held[x-1]) })
	return out[:min(len(out), maxEditLines)]
}

// lineChoices returns the lines ns of all as the model chooses among
// them, without their numbers, and the line number of each; a text that
// more than one of them holds has " (line N)" after it.
func lineChoices(all []string, ns []int) ([]string, map[string]int) {
	seen := map[string]int{}
	for _, n := range ns {
		seen[strings.TrimSpace(all[n-1])]++
	}
	var choices []string
	at := map[string]int{}
	for _, n := range ns {
		text := strings.TrimSpace(all[n-1])
		if seen[text] > 1 {
			text = fmt.Sprintf("%s (line %d)", text, n)
		}
		choices = append(choices, text)
		at[text] = n
	}
	return choices, at
}

// editLine returns the call that makes the one line edit the model
// chooses of the file rec read, for the request (Options.EditLine); no
// call when the assist is off, the model chooses no change, or the
// lines it writes change nothing.
func (a *Agent) editLine(ctx context.Context, turn *Turn, request string, rec *ToolRecord, on func(Event)) ([]grammar.Call, error) {
	if !a.opts.EditLine || rec == nil || a.opts.NoGrammar || !a.offers("replace_lines") || !a.offers("insert_lines") {
		return nil, nil
	}
	all, ok := tools.Unnumbered(*rec.Result.Data)
	if !ok {
		return nil, nil
	}
	source, numbered := rec.argPath(), *rec.Result.Data
	ns := namedLines(all, request)
	if len(ns) == 0 {
		return nil, nil
	}
	file := fileMessage(source, numbered, request)
	n := ns[0]
	if len(ns) > 1 {
		choices, at := lineChoices(all, ns)
		line, err := a.choose(ctx, turn, on, []Message{
			{Role: RoleSystem, Content: "Copy the one line of the file that the request is about: the line to delete, the line to change, or the line after which new lines go."},
			file}, choices)
		if err != nil || line == "" {
			return nil, err
		}
		n = at[line]
	}
	op, err := a.choose(ctx, turn, on, editMessages(all[n-1], request), []string{editDelete, editChange, editAdd, editNone})
	if err != nil {
		return nil, err
	}
	updated := append([]string(nil), all[:n-1]...)
	switch op {
	case editDelete:
	case editChange:
		lines, ok, err := a.writeLines(ctx, turn, windowPrompt(source, numbered, n, 1, request), source, n, all[n-1:n], on)
		if err != nil || !ok || len(lines) == 0 {
			return nil, err
		}
		updated = append(updated, lines...)
	case editAdd:
		lines, ok, err := a.writeLines(ctx, turn, addPrompt(source, numbered, n, request), "", 0, nil, on)
		if err != nil || !ok {
			return nil, err
		}
		updated = append(updated, all[n-1])
		updated = append(updated, newLines(lines, all, n)...)
	default:
		return nil, nil
	}
	updated = append(updated, all[n:]...)
	if call, ok := lineEdit(source, 1, all, updated); ok {
		return []grammar.Call{call}, nil
	}
	return nil, nil
}

// addPrompt asks for the lines to add after line n of the file source
// shown whole (numbered: as read_file shows it).
func addPrompt(source, numbered string, n int, request string) string {
	return fmt.Sprintf("%s\n\n%s\n\nReply with the new lines to add after line %d, without line numbers, in one %s block, and nothing else.",
		shownFile(source, numbered), request, n, codeFence(numbered))
}

// newLines returns the lines the model wrote to add after line n of the
// file all: without their numbers when every one has one, and without
// the lines it copied of the file around line n. Asked for the new
// lines alone, the 0.5B wrote them numbered between copies of their
// neighbours.
func newLines(lines, all []string, n int) []string {
	numbered := len(lines) > 0
	for _, l := range lines {
		numbered = numbered && isNumbered(l)
	}
	near := map[string]bool{}
	for _, l := range all[max(0, n-1-rewriteAround):min(len(all), n+rewriteAround)] {
		near[strings.TrimSpace(l)] = strings.TrimSpace(l) != ""
	}
	var out []string
	for _, l := range lines {
		if numbered {
			_, l, _ = tools.NumberedLine(l)
		}
		if !near[strings.TrimSpace(l)] {
			out = append(out, l)
		}
	}
	return out
}
