package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// ValueEdit: a change that sets a number, which the model's rewrite left
// undone. Asked in Portuguese to move the orders' lead time "de 48 para
// 72 horas", the 0.5B was shown `delai_minimum_heures: 48` and wrote
// lines without their numbers. offgrid writes the lines the change could
// be, each line of the file with one of its numbers set to the number
// the request writes (tools.Numbers; when the request writes the line's
// number too, as the old value, set to its other number), and the model
// copies the one that is the change, under a grammar of those lines;
// offgrid then replaces that line. Offered "no change" as well, the 0.5B
// chose it over the one right line, so it is not offered: a request
// whose one number a line holds already gets no choice instead. Nothing
// in it reads the request's words: the numbers are the same in every
// language.

// maxValueLines bounds the lines the model chooses among: those nearest
// the search's best line of the file, or the file's first.
const maxValueLines = 8

// valueLine is a line of the file as the change would make it.
type valueLine struct {
	n    int    // the line's number, from 1
	text string // the line with one number set
}

// valueLines returns the lines of all changed so that one of their
// numbers is one the request writes: with one number written, each
// other number of each line set to it; with more, a number of a line
// that the request writes too (the old value) set to each of its others.
// At most maxValueLines, those nearest line near (1 when 0) first, then
// in the file's order; none when the request writes no number, or
// writes one that a line of the file holds already.
func valueLines(all []string, request string, near int) []valueLine {
	values := distinctValues(tools.Numbers(request))
	nums := make([][]tools.Number, len(all))
	for i, line := range all {
		nums[i] = tools.Numbers(line)
		if len(values) == 1 && slices.ContainsFunc(nums[i], func(x tools.Number) bool { return x.Value == values[0].Value }) {
			return nil // a line holds it already: made, or not the change's number
		}
	}
	var out []valueLine
	for i, line := range all {
		for _, x := range nums[i] {
			for _, to := range setTo(values, x) {
				out = append(out, valueLine{i + 1, line[:x.Start] + to + line[x.End:]})
			}
		}
	}
	near = max(near, 1)
	dist := func(v valueLine) int { return max(v.n-near, near-v.n) }
	slices.SortStableFunc(out, func(x, y valueLine) int { return cmp.Compare(dist(x), dist(y)) })
	return out[:min(len(out), maxValueLines)]
}

// distinctValues returns the numbers of written with distinct values,
// the first text of each, in order.
func distinctValues(written []tools.Number) []tools.Number {
	var out []tools.Number
	for _, w := range written {
		if !slices.ContainsFunc(out, func(o tools.Number) bool { return o.Value == w.Value }) {
			out = append(out, w)
		}
	}
	return out
}

// setTo returns the texts a number x of a line may be set to, of the
// request's numbers of distinct values (see valueLines).
func setTo(values []tools.Number, x tools.Number) []string {
	isX := func(w tools.Number) bool { return w.Value == x.Value }
	if len(values) == 1 {
		if isX(values[0]) {
			return nil
		}
		return []string{values[0].Text}
	}
	if !slices.ContainsFunc(values, isX) {
		return nil
	}
	var out []string
	for _, w := range values {
		if !isX(w) {
			out = append(out, w.Text)
		}
	}
	return out
}

// valueEdit returns the call that sets the number the model chooses in
// the file rec read, for the request (Options.ValueEdit); no call when
// the assist is off, the request writes no number a line could take, or
// the model's reply is none of the lines.
func (a *Agent) valueEdit(ctx context.Context, turn *Turn, request string, rec *ToolRecord, on func(Event)) ([]grammar.Call, error) {
	if !a.opts.ValueEdit || rec == nil || rec.Result.Data == nil || a.opts.NoGrammar || !a.offers("replace_lines") {
		return nil, nil
	}
	all, ok := tools.Unnumbered(*rec.Result.Data)
	if !ok {
		return nil, nil
	}
	source := rec.argPath()
	vs := valueLines(all, request, foundLine(turn.Calls, source))
	if len(vs) == 0 {
		return nil, nil
	}
	var choices []string
	at := map[string]valueLine{}
	for _, v := range vs {
		text := strings.TrimSpace(v.text)
		if _, dup := at[text]; dup {
			text = fmt.Sprintf("%s (line %d)", text, v.n)
		}
		choices = append(choices, text)
		at[text] = v
	}
	line, err := a.choose(ctx, turn, on, []Message{
		{Role: RoleSystem, Content: "The request sets a number in the file. Copy the file's line as the change makes it."},
		fileMessage(source, *rec.Result.Data, request)}, choices)
	v, chosen := at[line]
	if err != nil || !chosen {
		return nil, err
	}
	updated := append([]string(nil), all...)
	updated[v.n-1] = v.text
	if call, ok := lineEdit(source, 1, all, updated); ok {
		return []grammar.Call{call}, nil
	}
	return nil, nil
}
