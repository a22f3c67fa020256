package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// Compaction records one shrinking of the conversation to fit the window.
type Compaction struct {
	// Before and After are the prompt's tokens; Window and Reply the
	// window and the reply budget it had to fit.
	Before int `json:"before"`
	After  int `json:"after"`
	Window int `json:"window"`
	Reply  int `json:"reply"`
	// Results counts tool results replaced by their summary, Turns the
	// earlier turns removed.
	Results int `json:"results"`
	Turns   int `json:"turns"`
}

func (c Compaction) String() string {
	var parts []string
	if c.Results > 0 {
		parts = append(parts, fmt.Sprintf("%d tool %s summarised", c.Results, plural(c.Results, "result", "results")))
	}
	if c.Turns > 0 {
		parts = append(parts, fmt.Sprintf("%d earlier %s removed", c.Turns, plural(c.Turns, "turn", "turns")))
	}
	if len(parts) == 0 {
		parts = append(parts, "reply budget reduced")
	}
	return fmt.Sprintf("context compacted: %s (%s → %s tokens; window %s, reply %s)",
		strings.Join(parts, ", "), thousands(c.Before), thousands(c.After), thousands(c.Window), thousands(c.Reply))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Compactions returns the session's compactions, oldest first.
func (a *Agent) Compactions() []Compaction { return append([]Compaction(nil), a.budget.compactions...) }

// budgetState is what the agent keeps for the token budget.
type budgetState struct {
	turn        int // index in the history of the current turn's user message
	compactions []Compaction
}

// compactedMark starts a tool result replaced by its summary.
const compactedMark = "[compacted by offgrid to save context: "

// minReply is the smallest reply budget a compaction may leave.
const minReply = 64

// ErrNoRoom is returned (wrapping inference.ErrContextFull) when not even
// the system prompt, the tool definitions and the current request fit.
var ErrNoRoom = fmt.Errorf("%w even after compaction", inference.ErrContextFull)

// request is the next completion request of the loop.
func (a *Agent) request(choice grammar.ToolChoice, textOnly bool) CompletionRequest {
	return CompletionRequest{
		Messages: a.history, Tools: a.offered, Format: a.opts.Format, ToolChoice: choice,
		Parallel: a.opts.Parallel, NoGrammar: a.opts.NoGrammar, MaxTokens: a.opts.MaxTokens,
		ResultsAsUser: a.opts.ResultsAsUser, CompactTools: a.opts.CompactTools, TextOnly: textOnly,
		Examples: a.examples, AnyOpening: choice == grammar.Required, UnknownAsText: a.opts.UnknownAsText,
	}
}

// makeRoom compacts the history until req's prompt, its reply budget and
// extra tokens fit the window; req.Messages (and, as a last resort when
// extra is 0, req.MaxTokens) are updated. Each compaction is recorded
// and reported to on. With extra > 0 (room wanted for new tool results)
// it does what it can and never fails.
func (a *Agent) makeRoom(req *CompletionRequest, extra int, on func(Event)) error {
	window := a.c.Window()
	if window <= 0 {
		return nil
	}
	reply := replyBudget(window, req.MaxTokens)
	count := func() (int, error) {
		req.Messages = a.history
		return a.c.PromptTokens(*req)
	}
	n, err := count()
	if err != nil || n+reply+extra <= window {
		return err
	}
	c := Compaction{Before: n, Window: window, Reply: reply}
	target := (window - reply - extra) * 3 / 4
	done := func() bool { return n <= target }
	// Summarise the results of tool messages in history[from:to].
	summarise := func(from, to int) error {
		for i := from; i < to && i < len(a.history) && !done(); i++ {
			if a.compactResult(i) {
				c.Results++
				if n, err = count(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// 1. Tool results of earlier turns, oldest first.
	if err := summarise(0, a.budget.turn); err != nil {
		return err
	}
	// 2. The oldest turns.
	for !done() {
		from, to := a.oldestTurn()
		if from < 0 {
			break
		}
		a.history = append(a.history[:from], a.history[to:]...)
		a.budget.turn -= to - from
		c.Turns++
		if n, err = count(); err != nil {
			return err
		}
	}
	// 3. Last resorts, as long as there is no room: results of the
	// current turn before its last round, then the last round's.
	if n+reply+extra > window {
		target = window - reply - extra
		if err := summarise(a.budget.turn, a.lastRound()); err != nil {
			return err
		}
		if err := summarise(a.lastRound(), len(a.history)); err != nil {
			return err
		}
	}
	// 4. A smaller reply.
	if extra == 0 && n+reply > window && window-n >= minReply {
		reply = window - n
		req.MaxTokens = reply
	}
	c.After, c.Reply = n, reply
	if extra > 0 && c.Results == 0 && c.Turns == 0 {
		return nil // nothing could be done (only when extra > 0)
	}
	a.budget.compactions = append(a.budget.compactions, c)
	on(Event{Type: EventCompact, Text: c.String(), Compaction: &c})
	if extra == 0 && n+reply > window {
		return fmt.Errorf("%w: the prompt takes %s tokens and the reply needs %d of the %s-token window; raise --ctx-size or shorten the system prompt",
			ErrNoRoom, thousands(n), minReply, thousands(window))
	}
	return nil
}

// compactResult replaces the tool message at i by its one-line summary;
// it reports whether it did.
func (a *Agent) compactResult(i int) bool {
	m := &a.history[i]
	if m.Role != RoleTool || strings.HasPrefix(m.Content, compactedMark) {
		return false
	}
	summary := ""
	for j := len(a.records) - 1; j >= 0; j-- {
		if r := a.records[j]; r.ID == m.ToolCallID && r.ID != "" {
			summary = fmt.Sprintf("%s %s → %s %s", r.Name, argsOrEmpty(r.Arguments), r.Status(), r.Summary())
			break
		}
	}
	if summary == "" {
		summary = fmt.Sprintf("%s → %s", m.Name, shorten(m.Content, 100))
	}
	m.Content = compactedMark + summary + "; call the tool again if you need it]"
	return true
}

// oldestTurn returns the span of the oldest turn before the current one
// (from its user message to the next), or -1.
func (a *Agent) oldestTurn() (from, to int) {
	from = -1
	for i := 0; i < a.budget.turn; i++ {
		if a.history[i].Role != RoleUser {
			continue
		}
		if from < 0 {
			from = i
			continue
		}
		return from, i
	}
	if from >= 0 {
		return from, a.budget.turn
	}
	return -1, -1
}

// lastRound is the index of the last assistant message of the current
// turn: the results after it answer its calls.
func (a *Agent) lastRound() int {
	for i := len(a.history) - 1; i > a.budget.turn; i-- {
		if a.history[i].Role == RoleAssistant {
			return i
		}
	}
	return a.budget.turn
}

// roomForResults compacts the conversation, if need be, so that the
// results about to be added have a quarter of the window: the model has
// already answered the results before them.
func (a *Agent) roomForResults(next CompletionRequest, on func(Event)) {
	a.makeRoom(&next, a.c.Window()/4, on)
}

// resultLimit is how many tokens the next tool result may take: half of
// what remains of the window once the prompt with the results so far
// (plus an empty message for this one) and the reply budget are counted,
// shared by the left results of the round still to come. -1 means no
// limit (the window is unknown).
func (a *Agent) resultLimit(req CompletionRequest, call grammar.Call, left int) (int, error) {
	window := a.c.Window()
	if window <= 0 {
		return -1, nil
	}
	req.Messages = append(a.history[:len(a.history):len(a.history)], Message{Role: RoleTool, ToolCallID: call.ID, Name: call.Name})
	n, err := a.c.PromptTokens(req)
	if err != nil {
		return 0, err
	}
	room := window - replyBudget(window, req.MaxTokens) - n
	return max(room/(2*max(left, 1)), 0), nil
}

// modelResultFitted is the tool result as the model is shown it, cut to
// the budget. Should counting fail, the result is shown whole (with a
// warning): the compaction before the next reply still applies.
func (a *Agent) modelResultFitted(req CompletionRequest, call grammar.Call, r tools.Result, left int, on func(Event)) (string, *Cut) {
	limit, err := a.resultLimit(req, call, left)
	if err == nil && limit >= 0 {
		var shown tools.Result
		var cut *Cut
		if shown, cut, err = a.fitResult(call.Name, r, limit); err == nil {
			return a.modelResult(shown), cut
		}
	}
	if err != nil {
		on(Event{Type: EventWarning, Text: fmt.Sprintf("the result of %s was not fitted to the context window: %v", call.Name, err)})
	}
	return a.modelResult(r), nil
}

// answerPrompt is the prompt of an answer written without tools for the
// turn that began at history[start] (see answerMessages), its results
// fitted, if need be, so that it and the reply fit the window: each
// result gets an equal share of the room.
func (a *Agent) answerPrompt(start int, turn Turn) []Message {
	calls := turn.Calls
	if msgs, ok := a.plainAnswer(start, turn); ok {
		return msgs
	}
	// The request with what the assists added to it (the files read
	// first, a search), though the calls' results hold them too: shown
	// them only among the results, the 0.5B answered "What is on line
	// 2999 of big.txt?" with another line (TestRunDefaultModel).
	earlier, request := a.history[:start], a.history[start].Content
	unchanged := a.unchanged(turn)
	msgs := answerMessages(earlier, request, calls, unchanged, func(r ToolRecord) string { return a.modelResult(r.Result) })
	window := a.c.Window()
	if window <= 0 || len(calls) == 0 {
		return msgs
	}
	req := CompletionRequest{Messages: msgs, Format: a.opts.Format, ToolChoice: grammar.None}
	reply := replyBudget(window, a.opts.MaxTokens)
	if n, err := a.c.PromptTokens(req); err != nil || n+reply <= window {
		return msgs
	}
	req.Messages = answerMessages(earlier, request, calls, unchanged, func(ToolRecord) string { return "" })
	base, err := a.c.PromptTokens(req)
	if err != nil {
		return msgs
	}
	limit := max((window-reply-base)/len(calls), 0)
	return answerMessages(earlier, request, calls, unchanged, func(r ToolRecord) string {
		shown, _, err := a.fitResult(r.Name, r.Result, limit)
		if err != nil {
			return a.modelResult(r.Result)
		}
		return a.modelResult(shown)
	})
}

// tokenizer is what BaseTokens needs of a model.
type tokenizer interface {
	Tokenize(text string, addSpecial, parseSpecial bool) ([]inference.Token, error)
}

// countOnly is an Engine that can only count.
type countOnly struct{ tokenizer }

func (countOnly) Generate(context.Context, inference.Request, func(inference.Piece) error) (inference.Result, error) {
	return inference.Result{}, errors.New("agent: countOnly cannot generate")
}

// BaseTokens counts the tokens of the smallest prompt an Agent with these
// options sends: the system prompt, the tool definitions and a one-word
// request. A context window must hold it, the reply budget and room for
// tool results.
func BaseTokens(tok tokenizer, info ModelInfo, reg *tools.Registry, opts Options) (int, error) {
	defs, err := grammar.ParseTools(reg.OpenAI())
	if err != nil {
		return 0, fmt.Errorf("agent: tool definitions: %w", err)
	}
	var msgs []Message
	if opts.System != "" {
		msgs = append(msgs, Message{Role: RoleSystem, Content: opts.System})
	}
	msgs = append(msgs, Message{Role: RoleUser, Content: "Hello."})
	var examples []ToolExample
	if opts.ToolExamples {
		examples = toolExamples(reg, defs)
	}
	return NewCompleter(countOnly{tok}, info).PromptTokens(CompletionRequest{
		Messages: msgs, Tools: defs, Format: opts.Format, ToolChoice: opts.ToolChoice, Parallel: opts.Parallel,
		ResultsAsUser: opts.ResultsAsUser, CompactTools: opts.CompactTools, Examples: examples,
	})
}
