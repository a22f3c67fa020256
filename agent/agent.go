package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// Options configures an Agent.
type Options struct {
	// System is the system prompt; "" means none (tool instructions, when
	// offgrid adds them, still go into a system message).
	System string
	// Format is the tool-call format; "" or FormatAuto detects it.
	Format grammar.Format
	// ToolChoice: Auto ("") lets the model answer or call; Required makes
	// the model call a tool before it may answer (replies after the first
	// call of a turn may answer), opening the call in any wrapper the
	// format knows (grammar.ToolOptions.AnyOpening); None offers no tools.
	ToolChoice grammar.ToolChoice
	// Parallel allows several calls per reply.
	Parallel bool
	// NoGrammar turns grammar-constrained decoding off.
	NoGrammar bool
	Sampling  inference.Sampling
	// MaxTokens caps each reply; 0 means no cap beyond the context.
	MaxTokens int
	Limits    Limits
	// Results is how tool results are shown to the model: ResultsCompact
	// ("" ) or ResultsFull. Users and --json events always get the full
	// ToolResult.
	Results ResultStyle
	// ResultsAsUser shows tool results to the model in a user message
	// instead of the template's tool role.
	ResultsAsUser bool
	// CompactTools presents the tools with offgrid's short instructions
	// instead of the template's JSON schemas.
	CompactTools bool
	// ToolExamples adds the offered tools' examples (tools.Tool.Examples)
	// to the system message while tools are offered: a request and the
	// first call that serves it, each call in the format's own form. Not
	// in the prompt of a separate answer.
	ToolExamples bool
	// OnRepeat is what a repeated call does. RepeatStop (""): the second
	// identical call is run and its result carries a note, a third ends
	// the turn with a message. RepeatAnswer: a call identical to one made
	// before in the turn is not run; the model answers in text from the
	// results it has (see Answer). RepeatAnother: the first repeat in a
	// turn is not run either; the reply is made again with the repeated
	// tool left out of the grammar, so the model calls another tool or
	// answers; a repeat after that is handled as by RepeatAnswer.
	OnRepeat RepeatPolicy
	// Answer is how the model answers once it has results and repeats
	// itself: AnswerInline ("") in the same conversation, tools offered
	// but a call forbidden; AnswerSeparate in a prompt without tools,
	// the turn's calls and results in its system message. Small
	// models shown tool definitions keep calling; without them they
	// answer.
	Answer AnswerStyle
	// AnswerAfterChange ends a turn with the model's answer (written as
	// Answer says) once a call that changes something (a high-risk tool:
	// a file edit or a command) has succeeded, instead of offering the
	// tools again. Small models that made the change asked for go on to
	// make it again, or another one, and damage the file.
	AnswerAfterChange bool
	// Remind adds the user's request to the last tool result of each
	// round, asking for an answer or a further call: small models
	// otherwise tend to repeat the call instead of answering.
	Remind bool
	// Mentions, if set, returns the files and directories of the working
	// directory a request names (tools.Mentioned over the tools' root).
	// LookFirst and ReadFirst use it. See LookIn.
	Mentions func(request string) []tools.Mention
	// Files, if set, returns the paths of the working directory's files
	// (tools.Files over the tools' root), at most max, and whether there
	// are more. Locate and the intent choice use it. See LookIn.
	Files func(ctx context.Context, max int) (paths []string, more bool, err error)
	// Sample, if set, returns the beginnings of the working directory's
	// files, at most max bytes (tools.Sample over the tools' root).
	// FilesLanguage uses it. See LookIn.
	Sample func(ctx context.Context, max int) (string, error)
	// LookFirst: in auto mode, the first reply to a request that names a
	// file or directory (Mentions), or that needs the files as the model
	// chooses (see ToolsByTopic), must be a call, so that the model looks
	// before it answers: small models otherwise describe a file they
	// never read, or say where a function is defined without searching. Like every required reply, the call may open in
	// any wrapper the format knows: forced into the template's
	// <tool_call>, the 0.5B asked for files from line 100.
	LookFirst bool
	// ReadFirst: offgrid reads the files a request names (Mentions, at
	// most three) with read_file before the model's first reply, and
	// shows them to the model in the request, as "The file NAME holds:"
	// and the result. The calls go through the permission policy like
	// any other and are recorded with ByAgent set. Small models
	// otherwise read the wrong file, or none, and answer from nothing;
	// shown the read as their own call, they read it again.
	ReadFirst bool
	// UnknownAsText: a reply that opens a fenced or bare call of a tool
	// whose name shares no word with any offered tool ("multiply" for
	// "What is 12 times 12?", "say_hello") is continued as an answer in
	// text from where the call began, instead of being forced into a call
	// of an offered tool. Names that share a word ("create_file" and
	// write_file) are still forced into a call. It helps the 1.5B, which
	// otherwise calls tools for questions that need none; the 0.5B then
	// answers some questions about files without reading them.
	UnknownAsText bool
	// ToolsByTopic offers a tool that has a topic (tools.Tool.Topic)
	// only once a request of the conversation needs that topic, as the
	// model itself chooses among lettered options under a grammar (see
	// intent.go), in whatever language the request is; a request that
	// names a file of the working directory needs the files. Tools
	// without a topic are always offered; a request that needs none is
	// answered without tools; when no choice can be had, every tool is
	// offered. Shown the task list's tools, the 0.5B calls update_task to
	// change a file; shown any tool, it calls one for "What is 12 times
	// 12?".
	ToolsByTopic bool
	// Rewrite: when the model chooses (as for ToolsByTopic) that a
	// request changes files and ReadFirst has read the one file it names
	// (a text file of at most 200 lines and 8 KiB), the model first
	// writes the file's whole new content, in a prompt of its own without
	// tools, and offgrid makes the lines that differ a replace_lines or
	// insert_lines call of the model's, which runs like any other
	// (permission, preview, undo). Small models shown the file and the
	// tools read it again instead of editing, or edit the wrong lines;
	// asked for the file, the 0.5B writes it right. A rewrite that leaves
	// the file as it is, or drops most of its lines, is not used, and the
	// model goes on as without Rewrite. A request to make a new file it
	// names ("Copy notes.txt into backup.txt", "Create data.json with …")
	// has the model write that file, as one fenced block under a grammar,
	// which becomes a write_file call of the model's.
	Rewrite bool
	// EditLine: with Rewrite, a change the model's rewrite left undone
	// is made at one line that holds a name the request holds: the model
	// chooses, under a grammar, the line, then to delete it, change it or
	// add lines after it (see editline.go).
	EditLine bool
	// ValueEdit: with Rewrite, a change the model's rewrite left undone
	// that writes a number is made at one line: the model chooses, under
	// a grammar, the line with one of its numbers set to the request's
	// (see valueedit.go).
	ValueEdit bool
	// Diverge: with Rewrite, lines of a file to change that the model
	// wrote back as they were are written again from the token where it
	// most nearly wrote another (see diverge.go).
	Diverge bool
	// TableQuery: with ReadAnswer, a question answered from a table
	// offgrid read has the model write a query of the table under a
	// grammar, and offgrid computes it (see tablequery.go).
	TableQuery bool
	// ClockAnswer: the answer of a turn that read the computer's clock
	// begins with its date as written in the request's language, and
	// the model continues (see clock.go).
	ClockAnswer bool
	// FilesLanguage: with SearchFirst, a folder whose files the model
	// names, under a grammar, in a language other than English is
	// searched for the request's own words too (see fileslanguage.go).
	FilesLanguage bool
	// TableFirst: with SearchFirst, a question answered from a table's
	// rows, as the model chooses under a grammar, is searched for in the
	// folder's tables first (see tablefirst.go).
	TableFirst bool
	// ReadCited: an answer without tools that names one file of the
	// working directory the turn did not read, in a turn that read one
	// file and changed nothing, has offgrid read that file (a table is
	// queried, with TableQuery) and the model answer again (see
	// cited.go).
	ReadCited bool
	// ReadAnswer: when ReadFirst has read every file a request names and
	// the model chooses (as for ToolsByTopic) that the request needs
	// information from the files, not a change, the model answers from
	// the reads in a prompt without tools (as AnswerSeparate). The 0.5B,
	// shown the file and the tools, answers questions about a CSV file
	// with Python code that would read it.
	ReadAnswer bool
	// PlainAnswer: an answer without tools after a search of the files,
	// in a turn whose calls all searched or read files and succeeded, is
	// asked for with their lines plain (see plainAnswer): no line
	// numbers, no call or search words, the request as the user wrote it.
	PlainAnswer bool
	// Locate: with ReadFirst, a request that the model chooses (as for
	// ToolsByTopic) needs the files and that names none has the model
	// choose the file it is about among the project's paths (Files),
	// under a grammar, and offgrid reads it as if the request had named
	// it (see locate.go). Measured on the 0.5B and not adopted: +5 of 100
	// on the general suite's dev split, but 7 of the 47 built-in tasks
	// lost, listings and searches over several files that it answers
	// from the one file chosen.
	Locate bool
	// SureChange: the model's choice that a request changes the files
	// (as for ToolsByTopic), when the request names no file and the
	// model was less than 0.7 sure of it, is made again among the other
	// options (unsureChange).
	SureChange bool
	// FindFirst: a request that the model chooses (as for ToolsByTopic)
	// needs the files and that names no file or folder has a first reply
	// that must search (grep_search, or any tool whose arguments require a
	// pattern or a query); with no such tool, it may not call the tools
	// that take a path to work on (read_file, the edits). Small models otherwise read a file they guess ("Where is
	// ParseLine defined?" read cmd/logsift/main.go and answered from it).
	FindFirst bool
	// SearchFirst: with ReadFirst, a request that the model chooses (as
	// for ToolsByTopic) needs the files and that names none is searched
	// for before the model's first reply: the model writes the words to
	// look for, offgrid adds the request's names and numbers and calls
	// grep_search with them (its lines ranked by the words they share),
	// shows the result in the request and reads the file of the best
	// line as if the request had named it (see search.go). Small models
	// otherwise answer where something is from what they know, or read a
	// file they guess. An answer written without a search or a read
	// that gives a contact or a date nothing returned has the request
	// searched for so too, and written again (see lookunheld.go).
	SearchFirst bool
	// Trace, if set, receives every completion (its rendered prompt and
	// raw reply included), e.g. for --verbose-prompt.
	Trace func(Completion)
}

// LookIn sets Mentions, Files and Sample to look at the files under
// root, the tools' working directory.
func (o *Options) LookIn(root string) {
	o.Mentions = func(request string) []tools.Mention { return tools.Mentioned(root, request) }
	o.Files = func(ctx context.Context, max int) ([]string, bool, error) { return tools.Files(ctx, root, max) }
	o.Sample = func(ctx context.Context, max int) (string, error) { return tools.Sample(ctx, root, samplePerFile, max) }
}

// RepeatPolicy is what a third identical call does.
type RepeatPolicy string

const (
	RepeatStop    RepeatPolicy = "stop"
	RepeatAnswer  RepeatPolicy = "answer"
	RepeatAnother RepeatPolicy = "another"
)

// ParseRepeatPolicy returns the RepeatPolicy named s ("" is stop).
func ParseRepeatPolicy(s string) (RepeatPolicy, error) {
	return parseName("repeat policy", s, RepeatStop, RepeatAnswer, RepeatAnother)
}

// parseName returns the one of values that s names, the first for "".
func parseName[T ~string](what, s string, values ...T) (T, error) {
	if s == "" {
		return values[0], nil
	}
	names := make([]string, len(values))
	for i, v := range values {
		if string(v) == s {
			return v, nil
		}
		names[i] = string(v)
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return "", fmt.Errorf("agent: unknown %s %q (want %s)", what, s, want)
}

// AnswerStyle is how the model is asked for its answer after a repeat.
type AnswerStyle string

const (
	AnswerInline   AnswerStyle = "inline"
	AnswerSeparate AnswerStyle = "separate"
)

// ParseAnswerStyle returns the AnswerStyle named s ("" is inline).
func ParseAnswerStyle(s string) (AnswerStyle, error) {
	return parseName("answer style", s, AnswerInline, AnswerSeparate)
}

// ResultStyle is how tool results are shown to the model.
type ResultStyle string

const (
	// ResultsCompact shows the data on success and "error_type: message"
	// on failure.
	ResultsCompact ResultStyle = "compact"
	// ResultsFull shows the whole ToolResult JSON.
	ResultsFull ResultStyle = "full"
)

// ParseResultStyle returns the ResultStyle named s ("" is compact).
func ParseResultStyle(s string) (ResultStyle, error) {
	return parseName("result style", s, ResultsCompact, ResultsFull)
}

// Agent holds a conversation with a model that can call tools. It is not
// safe for concurrent use.
type Agent struct {
	c        *Completer
	reg      *tools.Registry
	policy   Policy
	prompter permission.Prompter
	opts     Options
	defs     []grammar.Tool
	defsGen  uint64          // the registry generation defs were taken from
	offered  []grammar.Tool  // the tools the turn offers: defs, or some with ToolsByTopic
	topics   map[string]bool // with ToolsByTopic, the topics the conversation has needed
	examples []ToolExample   // the offered tools' examples, with Options.ToolExamples
	history  []Message
	records  []ToolRecord
	warned   map[string]bool
	held     map[string]int // write_file calls dropsLines held back, by repeatKey: the turn's number
	turns    int            // the turns sent (Send), the one running included
	nextID   int
	budget   budgetState
	walked   walk // the project's files, listed once a turn (projectFiles)
}

// New returns an Agent over the tools of reg. Calls the policy cannot
// decide are put to prompter; a nil prompter denies them.
func New(c *Completer, reg *tools.Registry, policy Policy, prompter permission.Prompter, opts Options) (*Agent, error) {
	gen := reg.Generation()
	defs, err := grammar.ParseTools(reg.OpenAI())
	if err != nil {
		return nil, fmt.Errorf("agent: tool definitions: %w", err)
	}
	if _, err := ParseFormat(string(opts.Format)); err != nil {
		return nil, err
	}
	if _, err := ParseResultStyle(string(opts.Results)); err != nil {
		return nil, err
	}
	if _, err := ParseRepeatPolicy(string(opts.OnRepeat)); err != nil {
		return nil, err
	}
	if opts.ToolChoice != "" {
		if _, err := grammar.ParseToolChoice(string(opts.ToolChoice)); err != nil {
			return nil, err
		}
	}
	a := &Agent{c: c, reg: reg, policy: policy, prompter: prompter, opts: opts, defs: defs, defsGen: gen, warned: map[string]bool{}}
	a.offer()
	if opts.System != "" {
		a.history = []Message{{Role: RoleSystem, Content: opts.System}}
	}
	return a, nil
}

// History returns the conversation so far, as the model sees it.
func (a *Agent) History() []Message { return append([]Message(nil), a.history...) }

// Records returns every tool call of the session with its result, as the
// user sees them.
func (a *Agent) Records() []ToolRecord { return append([]ToolRecord(nil), a.records...) }

// Format returns the tool-call format the agent uses.
func (a *Agent) Format() grammar.Format {
	if a.opts.Format == "" || a.opts.Format == FormatAuto {
		return a.c.Format()
	}
	return a.opts.Format
}

// ToolRecord is the user-facing record of one tool call; the model-facing
// copy of its result is the tool message in the history.
type ToolRecord struct {
	ID        string
	Name      string
	Arguments json.RawMessage
	Result    tools.Result
	Code      Code
	Denied    bool
	Asked     bool
	Duration  time.Duration
	// Cut, if set, tells how the result was shortened for the model.
	Cut *Cut
	// ByAgent marks a call offgrid made for the model (Options.ReadFirst)
	// rather than one the model wrote.
	ByAgent bool
}

// OK reports whether the call succeeded.
func (r ToolRecord) OK() bool { return r.Result.Success }

// argPath returns the "path" argument of the record's call as the call
// wrote it, "" when it has none.
func (r ToolRecord) argPath() string {
	var args struct{ Path string }
	json.Unmarshal(r.Arguments, &args)
	return args.Path
}

// Status is ✅ for a success and ❌ for a failure.
func (r ToolRecord) Status() string {
	if r.OK() {
		return "✅"
	}
	return "❌"
}

// Summary is a short, one-line account of the result: the start of its
// data, or "error_type: message" for a failure (as the model reads it).
func (r ToolRecord) Summary() string {
	s := r.Result.Text()
	if !r.OK() {
		s = r.Result.Compact()
	}
	return shorten(s, 100)
}

// MarshalJSON writes the record for --json output.
func (r ToolRecord) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID         string          `json:"id"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		OK         bool            `json:"ok"`
		Code       Code            `json:"code,omitempty"`
		Denied     bool            `json:"denied,omitempty"`
		Summary    string          `json:"summary"`
		DurationMS int64           `json:"duration_ms"`
		Result     tools.Result    `json:"result"`
		Cut        *Cut            `json:"cut,omitempty"`
		ByAgent    bool            `json:"by_agent,omitempty"`
	}{r.ID, r.Name, argsOrEmpty(r.Arguments), r.OK(), r.Code, r.Denied, r.Summary(), r.Duration.Milliseconds(), r.Result, r.Cut, r.ByAgent})
}

// shorten puts s on one line and cuts it to n runes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Turn is the outcome of one user message.
type Turn struct {
	// Content is the final answer.
	Content string
	// Calls are the turn's tool calls with their results and timings.
	Calls []ToolRecord
	// Stop is set (an *Error) when a limit ended the turn.
	Stop error
	// Replies counts the model's replies in the turn.
	Replies int
	// Stats sums the engine's counters over the replies.
	Stats inference.Stats
	// Need is the model's choice of what the request needs, when the
	// assists had it choose (see Options.ToolsByTopic): the label of one
	// option, such as "read", "list", "change", "clock" or "none", or a
	// tool topic. It is "" when no choice was made or none could be had;
	// every tool was then offered.
	Need string

	change  bool   // the model chose that the request changes files (intent)
	request string // the request as the user wrote it, before the assists added to it
}

// runCalls runs calls and adds their records to the turn. It returns the
// results as the model is to read them, in the order of calls; full
// reports a result that found no room in the window. byAgent marks calls
// offgrid made for the model (Options.ReadFirst).
func (a *Agent) runCalls(ctx context.Context, x *Executor, turn *Turn, repeats repeatGuard, calls []grammar.Call, byAgent bool, on func(Event)) (step Step, results []string, full bool, err error) {
	if err := x.Begin(calls); err != nil {
		return step, nil, false, err
	}
	step = a.run(ctx, x, on)
	next := a.request(grammar.Auto, false)
	a.roomForResults(next, on)
	for i, p := range x.Calls() {
		content, cut := a.modelResultFitted(next, p.Call, p.Result, len(x.Calls())-i, on)
		r := ToolRecord{ID: p.Call.ID, Name: p.Call.Name, Arguments: p.Call.Arguments, Result: p.Result,
			Code: p.Code, Denied: p.Denied, Asked: p.Asked, Duration: p.Duration, Cut: cut, ByAgent: byAgent}
		if cut != nil && cut.Bytes == 0 {
			full = true // the window is full: the model answers with what it has
		}
		a.records = append(a.records, r)
		turn.Calls = append(turn.Calls, r)
		if repeats.add(p.Call, p.Result.Success, content) {
			content += fmt.Sprintf("\n\n(offgrid: you already called %s with these arguments and got this same result. Do not call it again: use the result to answer the user, or do something else.)", p.Call.Name)
		}
		results = append(results, content)
		on(Event{Type: EventToolResult, ID: r.ID, Tool: r.Name, Record: &r})
	}
	return step, results, full, nil
}

// changed reports whether one of calls changed something: a high-risk
// tool that ran and succeeded.
func changed(calls []*Pending) bool {
	for _, p := range calls {
		if p.Tool != nil && p.Tool.Risk >= tools.High && p.Result.Success {
			return true
		}
	}
	return false
}

// refreshTools takes the registry's tools again when they changed since
// the last turn (an MCP server's tool list changed). Should the new list
// not parse, the turn keeps the old one, with a warning.
func (a *Agent) refreshTools(on func(Event)) {
	gen := a.reg.Generation()
	if gen == a.defsGen {
		return
	}
	defs, err := grammar.ParseTools(a.reg.OpenAI())
	if err != nil {
		on(Event{Type: EventWarning, Text: fmt.Sprintf("the tool set changed but cannot be used: %v", err)})
		return
	}
	a.defs, a.defsGen = defs, gen
	a.offer()
}

// offer sets the tools the next replies are offered: every tool, or with
// Options.ToolsByTopic the tools without a topic and those of the topics
// the conversation has needed (a.topics); with ToolChoice Required, every
// tool when that leaves none.
func (a *Agent) offer() {
	a.offered = a.defs
	if a.opts.ToolsByTopic {
		hidden := map[string]bool{}
		for _, t := range a.reg.Tools() {
			if t.Topic != "" && !a.topics[t.Topic] {
				hidden[t.Name] = true
			}
		}
		offered := slices.DeleteFunc(slices.Clone(a.defs), func(d grammar.Tool) bool { return hidden[d.Name] })
		if len(offered) > 0 || a.opts.ToolChoice != grammar.Required {
			a.offered = offered
		}
	}
	a.examples = nil
	if a.opts.ToolExamples {
		a.examples = toolExamples(a.reg, a.offered)
	}
}

// need adds the topics a request needs to the conversation's: the one
// the model chose (every topic when it could not choose: the gate fails
// open), and the files when the request names one.
func (a *Agent) need(in intent, named []tools.Mention) {
	if a.topics == nil {
		a.topics = map[string]bool{}
	}
	for _, t := range a.reg.Tools() {
		if t.Topic != "" && (!in.known || t.Topic == in.topic || t.Topic == tools.TopicFiles && len(named) > 0) {
			a.topics[t.Topic] = true
		}
	}
}

// complete generates one reply of the turn with the agent's sampling and
// reports its trace, warnings and counters.
func (a *Agent) complete(ctx context.Context, turn *Turn, on func(Event), req CompletionRequest) (Completion, error) {
	req.Sampling = a.opts.Sampling
	if req.MaxTokens == 0 { // the budget may have lowered it
		req.MaxTokens = a.opts.MaxTokens
	}
	switch {
	case req.Stream != nil:
	case a.answerNote(*turn) != "" || a.unchanged(*turn) || a.clockAnswer(*turn):
		// The answer is shown once grounded (see grounded), or written
		// again from the clock's date (clock.go).
		req.Stream = func(string) {}
	default:
		req.Stream = func(s string) { on(Event{Type: EventToken, Text: s}) }
	}
	comp, err := a.c.Complete(ctx, req)
	if a.opts.Trace != nil {
		a.opts.Trace(comp)
	}
	if comp.StopReason == StopRepetition {
		on(Event{Type: EventWarning, Text: "the model's reply began to repeat itself; it was cut after the first copy"})
	}
	turn.Replies++
	addStats(&turn.Stats, comp.Stats)
	for _, w := range comp.Warnings {
		if !a.warned[w] {
			a.warned[w] = true
			on(Event{Type: EventWarning, Text: w})
		}
	}
	if comp.Stats.PromptTokens > 0 {
		on(Event{Type: EventStats, Stats: statsOf(comp.Stats)})
	}
	return comp, err
}

// failed ends a turn whose reply failed or was interrupted, with a note
// in the history.
func (a *Agent) failed(ctx context.Context, turn *Turn, comp Completion, err error, on func(Event)) (Turn, error) {
	if ctx.Err() != nil {
		a.note(comp.Content, "(interrupted by the user)")
		on(Event{Type: EventError, Text: "interrupted"})
		return *turn, ErrInterrupted
	}
	a.note("", fmt.Sprintf("(offgrid: the reply failed: %v)", err))
	on(Event{Type: EventError, Text: err.Error()})
	return *turn, err
}

// answerSeparately ends the turn that began at history[start] with an
// answer written in a prompt without tools: the earlier conversation in
// text, and the user's request followed by the calls the turn made and
// what they returned. No tools are offered, so the reply is all text (it
// may hold code and JSON) and needs no grammar.
//
// When a call the answer needs failed (failureNote), the answer begins
// with offgrid's account of it, which the model continues; that answer is
// shown whole once checked (see groundedContinuation), not streamed.
func (a *Agent) answerSeparately(ctx context.Context, start int, turn *Turn, on func(Event)) (Turn, error) {
	req := CompletionRequest{
		Messages: a.answerPrompt(start, *turn),
		Format:   a.opts.Format, ToolChoice: grammar.None,
	}
	note := a.answerNote(*turn)
	if note == "" {
		note = a.clockNote(*turn)
	}
	if note != "" {
		req.Stream = func(string) {} // shown once grounded
	}
	req.Prefix = note
	comp, err := a.complete(ctx, turn, on, req)
	if err != nil {
		return a.failed(ctx, turn, comp, err, on)
	}
	if again, err := a.readCited(ctx, turn, comp.Content, on); err != nil {
		return *turn, err
	} else if again {
		return a.answerSeparately(ctx, start, turn, on) // from the file cited too
	}
	content := a.answerOf(*turn, note, strings.TrimPrefix(comp.Content, strings.TrimSpace(note)))
	if again, err := a.readClock(ctx, turn, content, on); err != nil {
		return *turn, err
	} else if again {
		return a.answerSeparately(ctx, start, turn, on) // from the clock's date
	}
	a.history = append(a.history, Message{Role: RoleAssistant, Content: content})
	turn.Content = content
	on(Event{Type: EventFinal, Text: turn.Content, Calls: turn.Calls})
	return *turn, nil
}

// answerMessages is the conversation for an answer without tools: a
// system message with the turn's calls and their results, earlier turns
// as text (tool calls and results left out, neighbours of one role
// merged, as some templates require alternating roles), then the request
// as the user wrote it.
//
// Measured with the 0.5B default model on thirteen answers: with the
// results in the user's message ("I ran the tool …") it described the
// tool or explained how to do the task (8 right); with the results
// first and the request last it cut answers short ("Buy milk" for a
// three-line file; 10); with the results in the system message and the
// request alone, 12.
//
// unchanged is true when the turn asked for a change that no call made
// (see Agent.unchanged): the instructions say so, instead of that the
// tools did what the user asked.
func answerMessages(earlier []Message, request string, calls []ToolRecord, unchanged bool, result func(ToolRecord) string) []Message {
	if len(calls) == 0 {
		return answerConversation(earlier, "", request)
	}
	var b strings.Builder
	b.WriteString("Answer the user's question from these results of tools run in the user's directory.")
	var denied []string
	ran := false // a call was not denied
	for _, c := range calls {
		ran = ran || !c.Denied
		if c.Denied {
			fmt.Fprintf(&b, "\n\n%s %s was not run: the user denied permission.", c.Name, argsOrEmpty(c.Arguments))
			if !slices.Contains(denied, c.Name) {
				denied = append(denied, c.Name)
			}
			continue
		}
		out := strings.TrimRight(result(c), "\n")
		fence := codeFence(out)
		fmt.Fprintf(&b, "\n\n%s %s returned:\n%s\n%s\n%s", c.Name, argsOrEmpty(c.Arguments), fence, out, fence)
	}
	if failureNote(calls, false, false) != "" && len(denied) == 0 {
		b.WriteString("\n\n" + failedInstruction)
	} else if len(denied) == 0 && unchanged {
		b.WriteString("\n\n" + unchangedInstruction)
	} else if len(denied) == 0 {
		// The wording measured best on answers (see docs/); its last
		// sentence stays so that the prompt is as measured, except
		// when the user was asked about a call and allowed it: the
		// 0.5B, having inserted a line the user allowed, went on "The
		// user denied running the insert_lines tool". Without it the
		// 0.5B counted lines wrong twice in the built-in suite; what
		// it echoes of it ("The user denied did not run.") is dropped
		// (echoed).
		b.WriteString("\n\n" + doneInstruction)
		if !slices.ContainsFunc(calls, func(c ToolRecord) bool { return c.Asked }) {
			b.WriteString(" " + deniedSentence)
		}
	} else {
		// Told that the tools did what was asked, models claimed the
		// denied change was made.
		fmt.Fprintf(&b, "\n\nThe user denied permission for %s, so it did not run and what it would have done was not done. Reply that it was not done because permission was denied", strings.Join(denied, " and "))
		if ran {
			b.WriteString(", and with what the other tools found or did")
		}
		b.WriteString(".")
	}
	return answerConversation(earlier, b.String(), request)
}

// answerConversation is the conversation of an answer without tools:
// the user's system prompt (the first of earlier, if a system message),
// then system (what the tools returned, with offgrid's instructions),
// earlier turns as text (tool calls and results left out, neighbours of
// one role merged, as some templates require alternating roles), then
// the request.
func answerConversation(earlier []Message, system, request string) []Message {
	var msgs []Message
	add := func(role, content string) {
		content = strings.TrimSpace(content)
		if content == "" {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content += "\n\n" + content
			return
		}
		msgs = append(msgs, Message{Role: role, Content: content})
	}
	rest := earlier
	if len(rest) > 0 && rest[0].Role == RoleSystem {
		add(RoleSystem, rest[0].Content) // the user's system prompt first
		rest = rest[1:]
	}
	add(RoleSystem, system)
	for _, m := range rest {
		if m.Role != RoleTool {
			add(m.Role, m.Content)
		}
	}
	add(RoleUser, request)
	return msgs
}

// codeFence returns a Markdown fence longer than any run of backticks in s.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// modelResult is a tool result as the model is shown it.
func (a *Agent) modelResult(r tools.Result) string {
	if a.opts.Results == ResultsFull {
		return r.String()
	}
	return r.Compact()
}

// repeatGuard notices a model that repeats a call: the same tool with
// the same arguments. The second successful one, if the result is the
// same, is pointed out to the model; a third ends the turn. (Failed calls
// are bounded by Limits.MaxRetries.) With RepeatAnswer any call made
// before in the turn, failed or not, has the model answer instead (with
// RepeatAnother, after one more try without that tool).
type repeatGuard map[string]*repeat

type repeat struct {
	result string // the last result
	n      int    // identical successful calls this turn
	args   json.RawMessage
}

// lastKey keys a tool's last successful call in a repeatGuard.
func lastKey(name string) string { return "\x01" + name }

func repeatKey(c grammar.Call) string {
	var b bytes.Buffer
	if json.Compact(&b, c.Arguments) != nil {
		b.Reset()
		b.Write(c.Arguments)
	}
	return c.Name + "\x00" + b.String()
}

// add records a call and its result; it reports a successful repeat with
// the same result, which the model is told of.
func (g repeatGuard) add(c grammar.Call, ok bool, result string) bool {
	k := repeatKey(c)
	r := g[k]
	if r == nil {
		r = &repeat{}
		g[k] = r
	}
	if !ok {
		return false
	}
	g[lastKey(c.Name)] = &repeat{result: result, args: c.Arguments}
	r.n++
	same := r.n > 1 && r.result == result
	r.result = result
	return same
}

// again returns a call made before in the turn.
func (g repeatGuard) again(calls []grammar.Call) (grammar.Call, bool) {
	for _, c := range calls {
		if g[repeatKey(c)] != nil {
			return c, true
		}
	}
	return grammar.Call{}, false
}

// reapplied returns a call that feeds its tool's last result back into
// it: every argument is the last call's or a value of its result, and at
// least one is a result's value (add(42, 42) after add(17, 25) gave 42;
// convert(9.84, "m", "ft") after it gave {"value": 9.84, "unit": "ft"}).
// The 0.5B did that until a limit, doubling a sum each time; the answer
// was the first result. A next step (add 5 to it) changes an argument
// to a value of neither, and is not one.
func (g repeatGuard) reapplied(calls []grammar.Call) (grammar.Call, bool) {
	for _, c := range calls {
		last := g[lastKey(c.Name)]
		if last == nil {
			continue
		}
		var now, before map[string]any
		if json.Unmarshal(c.Arguments, &now) != nil || json.Unmarshal(last.args, &before) != nil || len(now) == 0 {
			continue
		}
		values := resultValues(last.result)
		fromResult, other, changed := false, false, len(now) != len(before)
		for k, v := range now {
			kept := sameValue(before[k], v)
			changed = changed || !kept
			switch {
			case !kept && slices.ContainsFunc(values, func(r any) bool { return sameValue(r, v) }):
				fromResult = true
			case kept:
			default:
				other = true
			}
		}
		if fromResult && changed && !other {
			return c, true
		}
	}
	return grammar.Call{}, false
}

// resultValues are the scalar values of a result: a JSON result's
// leaves, else the text itself (and its number, if it is one).
func resultValues(text string) []any {
	text = strings.TrimSpace(text)
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return []any{text}
	}
	var out []any
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		default:
			out = append(out, v)
		}
	}
	walk(v)
	return out
}

// sameValue compares two decoded JSON scalars: numbers by value, the rest
// as they are.
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	}
	return false
}

// third returns a call that would be the third identical one.
func (g repeatGuard) third(calls []grammar.Call) (grammar.Call, bool) {
	for _, c := range calls {
		if r := g[repeatKey(c)]; r != nil && r.n >= 2 {
			return c, true
		}
	}
	return grammar.Call{}, false
}

// run drives the executor through one reply's calls.
func (a *Agent) run(ctx context.Context, x *Executor, on func(Event)) Step {
	for {
		step := x.Tick()
		switch step.Action {
		case ActionPrompt:
			p := step.Call
			ans := permission.DenyOnce
			if a.prompter != nil && ctx.Err() == nil {
				got, err := a.prompter.Ask(ctx, permission.Request{Tool: p.Tool.Name, Description: p.Tool.Description, Risk: p.Tool.Risk, Args: p.Call.Arguments})
				if err == nil {
					ans = got
				}
			}
			if err := x.Answer(ans); err != nil && !errors.Is(err, ErrState) {
				on(Event{Type: EventWarning, Text: err.Error()})
			}
			decision := "deny"
			if ans.Allowed() {
				decision = "allow"
			}
			on(Event{Type: EventPermission, ID: p.Call.ID, Tool: p.Tool.Name, Decision: decision, Text: ans.String()})
		case ActionExecute:
			p := step.Call
			var res tools.Result
			if err := ctx.Err(); err != nil {
				res = tools.Fail(tools.TypeInternal, fmt.Sprintf("%s was not run: %v", p.Call.Name, err))
			} else if why := a.dropsLines(p.Call.Name, p.Call.Arguments); why != "" {
				res = tools.Fail(tools.TypeValidationFailed, why)
			} else {
				res = a.reg.Execute(ctx, p.Call.Name, p.Call.Arguments)
			}
			x.Finish(res)
		default:
			return step
		}
	}
}

// stop ends a turn on a limit, with a note in the history.
func (a *Agent) stop(turn *Turn, e *Error, on func(Event)) (Turn, error) {
	turn.Stop = e
	msg := fmt.Sprintf("Stopped: %s.", e.Message)
	if e.Code == ToolLoopLimitReached {
		msg += " Send another message to continue."
	}
	a.note("", fmt.Sprintf("(offgrid: %s — %s)", e.Code, msg))
	turn.Content = msg
	on(Event{Type: EventError, Code: e.Code, Text: e.Message})
	on(Event{Type: EventFinal, Text: msg, Calls: turn.Calls})
	return *turn, nil
}

// note ends the turn in the history with an assistant message, so the
// conversation stays well formed for the next user message.
func (a *Agent) note(content, note string) {
	text := strings.TrimSpace(strings.TrimSpace(content) + "\n" + note)
	a.history = append(a.history, Message{Role: RoleAssistant, Content: text})
}

// assignIDs gives calls without an id one: nine letters and digits, as
// Mistral templates require.
func (a *Agent) assignIDs(calls []grammar.Call) []grammar.Call {
	out := make([]grammar.Call, len(calls))
	for i, c := range calls {
		if c.ID == "" {
			a.nextID++
			c.ID = fmt.Sprintf("call%05d", a.nextID)
		}
		out[i] = c
	}
	return out
}

func addStats(sum *inference.Stats, s inference.Stats) {
	sum.PromptTokens += s.PromptTokens
	sum.PromptReused += s.PromptReused
	sum.PromptLoaded += s.PromptLoaded
	sum.PromptDecoded += s.PromptDecoded
	sum.Generated += s.Generated
	sum.GrammarResamples += s.GrammarResamples
	sum.PromptDuration += s.PromptDuration
	sum.GenerateDuration += s.GenerateDuration
}
