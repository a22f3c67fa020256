package agent

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// Diverge: lines of a file the model was asked to change and wrote back
// as they were are written again from the token where the model most
// nearly wrote something else. Asked to raise "retries: 3" to 5, or to
// bump a version, the 0.5B copies the line it must change, yet at the
// figure it gives the new one some probability: the copy is taken up to
// that token, the other token is written in its place, and the model
// goes on from there. The same in every language: what decides is the
// model's own hesitation, not the request's words.

// divergeAlternatives is how many other tokens each step of a copy keeps.
const divergeAlternatives = 3

// divergeTries bounds the places a copy is written again from.
const divergeTries = 2

// divergeMin is the least probability of a fork a copy is written again
// from. On dev's 52 requests the intent took for changes, the forks that
// made the change asked for had 0.30 and 0.34 ("2" for "1" in a version,
// a changelog entry's flag); those below it, up to 0.14, made a change
// nothing asked for: a version in a CI file the user only asked about,
// a line of code another question was about, a customer row's id, a
// README's first line.
const divergeMin = 0.2

// fork is a place where the model could have written something else:
// the reply's text before it, the other token's text, and its
// probability.
type fork struct {
	before, text string
	prob         float64
}

// forks returns the places in the lines of a numbered fenced block (the
// reply whose steps these are) where the model gave another token some
// probability, most probable first: only within a line's text, after its
// number, and only a token that keeps the block a block (no backtick, no
// end token, whole UTF-8).
func forks(steps []inference.Step, eog []string) []fork {
	var out []fork
	var text strings.Builder
	for _, s := range steps {
		before := text.String()
		text.WriteString(s.Text)
		open := strings.IndexByte(before, '\n')
		if open < 0 || strings.Contains(s.Text, "`") {
			continue // the opening fence, or the closing one
		}
		line := before[strings.LastIndexByte(before, '\n')+1:]
		if _, _, ok := tools.NumberedLine(line); !ok || !strings.Contains(line, ": ") && !strings.HasSuffix(line, ":") {
			continue // the line's number
		}
		if !utf8.ValidString(before) {
			continue
		}
		for _, alt := range s.Alts {
			if alt.Text == "" || strings.Contains(alt.Text, "`") || !utf8.ValidString(alt.Text) ||
				slices.Contains(eog, alt.Text) || strings.ContainsRune(alt.Text, 0) {
				continue
			}
			out = append(out, fork{before: before, text: alt.Text, prob: alt.Prob})
		}
	}
	slices.SortStableFunc(out, func(x, y fork) int { return cmp.Compare(y.prob, x.prob) })
	return out
}

// diverge writes again, from its most probable forks, the reply comp
// that gave lines old of a file (shown numbered from first) back as they
// were, and returns the first lines that differ; false when none does.
func (a *Agent) diverge(ctx context.Context, turn *Turn, req CompletionRequest, comp Completion, first int, old []string, on func(Event)) ([]string, bool, error) {
	fs := forks(comp.Steps, a.c.info.EOG)
	for _, f := range fs[:min(len(fs), divergeTries)] {
		if f.prob < divergeMin {
			break
		}
		r := req
		r.Prefix, r.Alternatives = f.before+f.text, 0
		c, err := a.complete(ctx, turn, on, r)
		if err != nil {
			return nil, false, err
		}
		if updated, ok := blockLines(c, true, first, old); ok && !slices.Equal(keepLayout(old, updated), old) {
			return updated, true, nil
		}
	}
	return nil, false, nil
}
