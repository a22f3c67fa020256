package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// The assists (see Assists) act at three points of a turn (Send):
// before the model's first reply (beforeFirstReply), on a reply that
// repeats a call (onRepeat), and after a round of results (afterChange,
// remind). Each is off unless its Options field is set; each lives in a
// file of its own where it is more than a few lines (intent.go,
// locate.go, readfirst.go, rewrite.go).

// next is what the loop does after an assist that reviews a reply.
type next int

const (
	goOn       next = iota // as without the assist
	replyAgain             // the reply is made again (RepeatAnother)
	answerNow              // the model answers from the results it has
)

// beforeFirstReply runs the assists that act before the model's first
// reply, in order: what the request names (Mentions), the model's choice
// of what it needs (intent: ToolsByTopic, Rewrite, ReadAnswer, Locate,
// SearchFirst), the file it is about (Locate), the tools offered
// (ToolsByTopic), the search for a request that names no file
// (SearchFirst), the files read for the model (ReadFirst), whether the
// first reply must be a call (LookFirst) or find (FindFirst), the file
// written whole (Rewrite), and the answer from the files read
// (ReadAnswer). It reports whether the turn ended.
func (a *Agent) beforeFirstReply(ctx context.Context, t *turnState) (bool, error) {
	if a.opts.Mentions != nil && (a.opts.ReadFirst || a.opts.LookFirst || a.opts.Rewrite) {
		t.named = a.opts.Mentions(t.text)
	}
	if a.opts.ToolChoice != grammar.None && len(a.defs) > 0 && (a.opts.ToolsByTopic || a.opts.Rewrite || a.opts.ReadAnswer || a.opts.Locate || a.opts.SearchFirst) {
		t.in = a.intent(ctx, &t.turn, t.text, t.named, t.on)
		t.turn.change, t.turn.Need = t.in.known && t.in.change, t.in.label
	}
	t.named = append(t.named, a.locate(ctx, &t.turn, t.text, t.in, t.named, t.on)...)
	a.need(t.in, t.named)
	a.offer()
	// offgrid's own calls have an executor of their own: they are not
	// the model's rounds or calls, which the limits bound.
	own := NewExecutor(a.reg, a.policy, a.opts.Limits)
	list := listFolders(t.in, t.named) // by what the request names, not what a search finds
	step, found, err := a.searchFirst(ctx, own, t)
	if err != nil {
		return true, err
	}
	if step.Action == ActionStop {
		t.turn, err = a.stop(&t.turn, step.Err, t.on)
		return true, err
	}
	if !list {
		// A question that names folders gets their listing and the
		// search's lines, not the best line's file: given the file too,
		// the 0.5B answered "what modules are in greenhouse/control?"
		// from the file and "which recipes have we got?" with a recipe
		// twice.
		t.named = append(t.named, found...)
	}
	step, read, err := a.readFirst(ctx, own, &t.turn, t.repeats, t.named, list, t.on)
	if err != nil {
		return true, err
	}
	if step.Action == ActionStop {
		t.turn, err = a.stop(&t.turn, step.Err, t.on)
		return true, err
	}
	t.look = !read && a.opts.LookFirst && (a.opts.ToolChoice == "" || a.opts.ToolChoice == grammar.Auto) &&
		!a.opts.NoGrammar && (len(t.named) > 0 || t.in.topic == tools.TopicFiles) && len(a.offered) > 0
	t.find = a.findFirst(t, read)
	var kept bool
	if t.pending, kept, err = a.rewrite(ctx, &t.turn, t.text, t.in, t.named, t.on); err != nil {
		t.turn, err = a.failed(ctx, &t.turn, Completion{}, err, t.on)
		return true, err
	}
	// A file the model wrote back as it was, asked for the change, needs
	// none: the request was a question about it (the 0.5B chose a change
	// for an Italian "who must cancel the contract, and by when?", kept
	// the notes, then replaced them with one line in the loop).
	if read && a.opts.ReadAnswer && (len(t.pending) == 0 && onlyReads(t.in, t.turn.Calls) || kept) {
		if !kept {
			if err := a.queryTable(ctx, &t.turn, t.text, 0, t.on); err != nil {
				t.turn, err = a.failed(ctx, &t.turn, Completion{}, err, t.on)
				return true, err
			}
		}
		t.turn, err = a.answerSeparately(ctx, a.budget.turn, &t.turn, t.on)
		return true, err
	}
	return false, nil
}

// findFirst returns the tools the first reply may not call when it must
// find what a request is about (Options.FindFirst): every offered tool
// but those that search (their arguments require a pattern or a query:
// grep_search) when one is offered, else the tools that take a path to
// work on. It returns nil, the assist off, when the request names a file
// or folder, offgrid read files for it, the model did not choose that it
// needs the files, or no tool would be left.
func (a *Agent) findFirst(t *turnState, read bool) []string {
	if !a.opts.FindFirst || read || len(t.named) > 0 || !t.in.known || t.in.topic != tools.TopicFiles || t.in.list ||
		a.opts.NoGrammar || a.opts.ToolChoice == grammar.None {
		return nil
	}
	var search, other, atPath []string
	for _, d := range a.offered {
		var schema struct {
			Required []string `json:"required"`
		}
		json.Unmarshal(d.Parameters, &schema)
		switch {
		case slices.Contains(schema.Required, "pattern") || slices.Contains(schema.Required, "query"):
			search = append(search, d.Name)
		case slices.Contains(schema.Required, "path"):
			atPath = append(atPath, d.Name)
			other = append(other, d.Name)
		default:
			other = append(other, d.Name)
		}
	}
	switch {
	case len(search) > 0:
		return other
	case len(atPath) > 0 && len(atPath) < len(a.offered):
		return atPath
	}
	return nil
}

// onRepeat reviews a reply that repeats a call made before in the turn
// (Options.OnRepeat): with RepeatAnother, once per turn, the reply is
// made again with that tool left out of the grammar; with RepeatAnswer
// (and RepeatAnother after that), the model answers from the results it
// has, which are in the context already.
func (a *Agent) onRepeat(t *turnState, calls []grammar.Call) next {
	if a.opts.OnRepeat != RepeatAnswer && a.opts.OnRepeat != RepeatAnother || t.textOnly {
		return goOn
	}
	c, ok := t.repeats.again(calls)
	what := "with the same arguments"
	if !ok {
		if c, ok = t.repeats.reapplied(calls); !ok {
			return goOn
		}
		what = "on its own result"
	}
	if a.opts.OnRepeat == RepeatAnother && !t.retried && len(a.offered) > 1 && !a.opts.NoGrammar {
		t.retried = true
		t.exclude = []string{c.Name}
		t.on(Event{Type: EventWarning, Text: fmt.Sprintf("the model called %s again %s; it is asked for another call or an answer", c.Name, what)})
		return replyAgain
	}
	t.on(Event{Type: EventWarning, Text: fmt.Sprintf("the model called %s again %s; it is asked to answer instead", c.Name, what)})
	return answerNow
}

// afterChange has the model answer once a call of the round changed
// something (Options.AnswerAfterChange).
func (a *Agent) afterChange(t *turnState) next {
	if !a.opts.AnswerAfterChange || t.textOnly || !changed(t.x.Calls()) {
		return goOn
	}
	return answerNow // not a warning to the user: the answer reports the change
}

// remind adds the user's request to the last result of the round
// (Options.Remind).
func (a *Agent) remind(t *turnState) {
	if !a.opts.Remind {
		return
	}
	last := &a.history[len(a.history)-1]
	last.Content += fmt.Sprintf("\n\n(Use this to answer the request %q in plain text, or call another tool if it needs one.)", t.text)
}
