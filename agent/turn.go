package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// turnState is one Send in progress: the request, what the assists found
// before the model's first reply, and the loop's state.
type turnState struct {
	text    string // the request
	on      func(Event)
	turn    Turn      // what Send returns
	x       *Executor // the model's calls, which Options.Limits bound
	repeats repeatGuard

	// What the assists found before the first reply (beforeFirstReply).
	named   []tools.Mention // the files and folders the request names
	in      intent          // what the request needs, as the model chose; unknown unless an assist asked
	pending []grammar.Call  // the first reply's calls, already written (Rewrite)

	look     bool     // the first reply must be a call (LookFirst)
	find     []string // the first reply must be a call, not of these tools (FindFirst)
	called   bool     // the model has made a call this turn
	textOnly bool     // the next reply must answer in text
	exclude  []string // tools the next reply may not call (RepeatAnother)
	retried  bool     // RepeatAnother has made a reply again this turn
}

// Send adds a user message and runs the loop until the model answers, a
// limit ends the turn (Turn.Stop), or an error occurs. Events are passed
// to on (which may be nil) as they happen. When ctx is cancelled the turn
// ends with ErrInterrupted; the history keeps what happened, with a note.
//
// The loop is: the assists that act before the first reply
// (beforeFirstReply), then replies until one answers; the calls of each
// are run and their results shown to the model. The assists that review
// a reply (onRepeat) or its results (afterChange, remind) have their
// place in it.
func (a *Agent) Send(ctx context.Context, text string, on func(Event)) (Turn, error) {
	if on == nil {
		on = func(Event) {}
	}
	ctx = tools.WithRequest(ctx, text) // what read_file's curator chooses for
	a.refreshTools(on)
	a.walked = walk{}
	a.budget.turn = len(a.history)
	a.history = append(a.history, Message{Role: RoleUser, Content: text})
	a.turns++
	t := &turnState{text: text, on: on, x: NewExecutor(a.reg, a.policy, a.opts.Limits), repeats: repeatGuard{}}
	t.turn.request = text
	if end, err := a.beforeFirstReply(ctx, t); end || err != nil {
		return t.turn, err
	}
	for {
		comp, err := a.reply(ctx, t)
		if err != nil {
			return a.failed(ctx, &t.turn, comp, err, on)
		}
		switch {
		case comp.ParseErr != nil:
			if st := a.malformed(t, comp); st.Action == ActionStop {
				return a.stop(&t.turn, st.Err, on)
			}
			continue
		case len(comp.Calls) == 0 && strings.TrimSpace(comp.Content) == "" && len(t.turn.Calls) > 0:
			// An empty answer after tool calls tells the user nothing:
			// have it written from the results without the tools.
			return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
		case len(comp.Calls) == 0 && a.clockAnswer(t.turn):
			// Written again, from the clock's date in the request's
			// language (clock.go).
			return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
		case len(comp.Calls) == 0:
			// A weekday named from nowhere: the clock is read, and the
			// answer written from its date (clock.go).
			again, err := a.readClock(ctx, &t.turn, comp.Content, on)
			if err == nil && !again {
				// A contact or a date from nowhere: the files are
				// searched, and the answer written from them
				// (lookunheld.go).
				again, err = a.lookUnheld(ctx, t, comp.Content)
			}
			switch {
			case err != nil:
				return t.turn, err
			case again:
				return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
			}
			return a.final(t, comp), nil
		}
		switch a.onRepeat(t, comp.Calls) {
		case replyAgain:
			continue
		case answerNow:
			if a.opts.Answer == AnswerSeparate {
				return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
			}
			t.textOnly = true
			continue
		}
		t.called = true
		calls := a.assignIDs(comp.Calls)
		a.history = append(a.history, Message{Role: RoleAssistant, Content: comp.Content, ToolCalls: calls, Raw: comp.Raw})
		for _, c := range calls {
			on(Event{Type: EventToolCall, ID: c.ID, Tool: c.Name, Arguments: argsOrEmpty(c.Arguments)})
		}
		if c, ok := t.repeats.third(calls); ok {
			return a.stop(&t.turn, &Error{Code: ToolLoopLimitReached,
				Message: fmt.Sprintf("the model made the same call (%s %s) a third time", c.Name, argsOrEmpty(c.Arguments))}, on)
		}
		step, results, full, err := a.runCalls(ctx, t.x, &t.turn, t.repeats, calls, false, on)
		if err != nil {
			return t.turn, err
		}
		for i, c := range calls {
			a.history = append(a.history, Message{Role: RoleTool, Content: results[i], ToolCallID: c.ID, Name: c.Name})
		}
		going := step.Action != ActionStop && ctx.Err() == nil
		if full && going {
			if a.opts.Answer == AnswerSeparate {
				// The answer's own prompt fits the results to the window;
				// this conversation may leave no room even for a reply.
				on(Event{Type: EventWarning, Text: "the context window is full; the model answers from the results it has"})
				return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
			}
			t.textOnly = true
		}
		if going && a.afterChange(t) == answerNow {
			if a.opts.Answer == AnswerSeparate {
				return a.answerSeparately(ctx, a.budget.turn, &t.turn, on)
			}
			t.textOnly = true
			continue
		}
		a.remind(t)
		if ctx.Err() != nil {
			a.note("", "(interrupted by the user)")
			on(Event{Type: EventError, Text: "interrupted"})
			return t.turn, ErrInterrupted
		}
		if step.Action == ActionStop {
			return a.stop(&t.turn, step.Err, on)
		}
	}
}

// reply is the model's next reply: the first reply's calls when an
// assist wrote them (Rewrite), else a completion, a call required when
// LookFirst says so and tools left out after a repeat (RepeatAnother).
func (a *Agent) reply(ctx context.Context, t *turnState) (Completion, error) {
	if len(t.pending) > 0 {
		comp := Completion{Calls: t.pending}
		t.pending = nil
		return comp, nil
	}
	choice := a.opts.ToolChoice
	if t.look && !t.called && !t.textOnly {
		choice = grammar.Required
	}
	if len(t.find) > 0 && !t.called && !t.textOnly {
		choice = grammar.Required
	}
	if choice == grammar.Required && t.called {
		choice = grammar.Auto
	}
	req := a.request(choice, t.textOnly)
	req.Exclude, t.exclude = t.exclude, nil
	if len(t.find) > 0 && !t.called && !t.textOnly {
		req.Exclude = append(req.Exclude, t.find...)
	}
	if err := a.makeRoom(&req, 0, t.on); err != nil {
		return Completion{}, err
	}
	return a.complete(ctx, &t.turn, t.on, req)
}

// malformed feeds a reply that began a call it did not complete back to
// the model, like invalid arguments, and returns the executor's verdict.
func (a *Agent) malformed(t *turnState, comp Completion) Step {
	t.x.Malformed()
	a.history = append(a.history,
		Message{Role: RoleAssistant, Content: comp.Content, Raw: comp.Raw},
		Message{Role: RoleUser, Content: fmt.Sprintf("%s (%d): your reply could not be read as a tool call: %v. Reply again with a valid call or answer in text.",
			InvalidToolSignature, int(InvalidToolSignature), comp.ParseErr)})
	t.on(Event{Type: EventError, Code: InvalidToolSignature, Text: comp.ParseErr.Error()})
	return t.x.final()
}

// final ends the turn with the model's answer, grounded in the calls'
// results (see groundedAnswer).
func (a *Agent) final(t *turnState, comp Completion) Turn {
	a.history = append(a.history, Message{Role: RoleAssistant, Content: comp.Content, Raw: comp.Raw})
	t.turn.Content = a.answerOf(t.turn, a.answerNote(t.turn), comp.Content)
	t.on(Event{Type: EventFinal, Text: t.turn.Content, Calls: t.turn.Calls})
	return t.turn
}
