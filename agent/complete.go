package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/words"
)

// CompletionRequest is one model reply to generate.
type CompletionRequest struct {
	Messages []Message
	Tools    []grammar.Tool
	// Format is the tool-call format; "" or FormatAuto detects it from the
	// chat template.
	Format grammar.Format
	// ToolChoice: Auto (""), Required or None.
	ToolChoice grammar.ToolChoice
	// Parallel allows several calls in one reply.
	Parallel bool
	// NoGrammar turns grammar-constrained decoding off.
	NoGrammar bool
	// ResultsAsUser shows tool results in a user message instead of the
	// template's tool role.
	ResultsAsUser bool
	// TextOnly constrains the reply to an answer in text (the tools stay
	// in the prompt, so the KV cache is kept).
	TextOnly bool
	// Block constrains the reply to one fenced block (grammar.FencedBlock),
	// with no tools offered: a file Options.Rewrite has the model write.
	Block bool
	// Choices, with no tools offered, constrains the reply to one of
	// them (grammar.OneOf).
	Choices []string
	// FirstProb asks for Completion.FirstProb.
	FirstProb bool
	// Exclude names tools the grammar does not admit in this reply; they
	// stay in the prompt, so the KV cache is kept.
	Exclude []string
	// AnyOpening, with Required, lets the call open in any wrapper the
	// format knows (the model's own choice), not only the template's.
	AnyOpening bool
	// UnknownAsText continues, as an answer in text, a reply that opens a
	// fenced or bare call of a tool whose name shares no word with any
	// offered tool ("multiply" for "What is 12 times 12?"), instead of
	// forcing it into a call of an offered one (Options.UnknownAsText).
	UnknownAsText bool
	// CompactTools presents the tools with offgrid's short instructions
	// (name(args): description) in the system message, even when the
	// chat template would list their JSON schemas.
	CompactTools bool
	// ToolPrompt, if set, replaces offgrid's own tool instructions in the
	// system message (the tools are then not handed to the template).
	ToolPrompt string
	// Examples, shown in the system message when tools are offered, are
	// requests and the first call that serves each.
	Examples []ToolExample
	// Prefix, with no tools offered, is the start of the reply, written
	// by offgrid: the model continues it, and the reply's Content and Raw
	// begin with it.
	Prefix string
	// Fixed, if positive, is how many leading messages are the same in
	// every request of its kind (as Choices' instructions and examples
	// are), so that their KV state is cached as the system messages'
	// is; by default the system messages alone are.
	Fixed int
	// Alternatives asks for Completion.Steps: at each generated token,
	// this many of the model's most probable other tokens.
	Alternatives int
	// Repeats lets a reply in text repeat itself, as a file written back
	// may. Without it, a reply with no tools offered that falls into a
	// loop (see repetition) stops there and keeps one copy; its
	// StopReason is StopRepetition.
	Repeats   bool
	Sampling  inference.Sampling
	MaxTokens int
	// Stream receives the visible text as it is generated, markup
	// stripped.
	Stream func(text string)
}

// Completion is a generated reply.
type Completion struct {
	// Raw is the generated text.
	Raw string
	// Content is the text for the user, markup removed.
	Content string
	// Calls are the tool calls in the reply.
	Calls []grammar.Call
	// ParseErr is set when the reply starts a tool call it does not
	// complete (possible without a grammar, or when MaxTokens cuts it).
	ParseErr error
	// Format is the tool-call format used.
	Format grammar.Format
	// Prompt is the rendered prompt text.
	Prompt string
	// Stats are the engine's counters for this reply.
	Stats inference.Stats
	// StopReason tells why generation ended.
	StopReason inference.StopReason
	// FirstProb, when asked for, is how sure the model was of the reply's
	// first token (of a choice among Choices, the choice): its probability
	// among the tokens the grammar allowed; 0 when not known.
	FirstProb float64
	// Steps, when CompletionRequest.Alternatives asked for them, are the
	// generated tokens (after Prefix) and what the model could have
	// written instead (see inference.Step).
	Steps []inference.Step
	// Warnings lists template problems worked around (e.g. a fallback to
	// the family layout).
	Warnings []string
}

// Completer renders prompts for one model and generates replies. It
// parses the chat template once; a Completer is as safe for concurrent
// use as its Engine (an *inference.Context is not).
type Completer struct {
	eng  Engine
	info ModelInfo
	tmpl *chatTemplate
}

// NewCompleter returns a Completer for a model.
func NewCompleter(eng Engine, info ModelInfo) *Completer {
	return &Completer{eng: eng, info: info, tmpl: newChatTemplate(info, nil)}
}

// Complete generates one reply with a Completer made for the call. Use a
// Completer to keep the parsed template across calls.
func Complete(ctx context.Context, eng Engine, info ModelInfo, req CompletionRequest) (Completion, error) {
	return NewCompleter(eng, info).Complete(ctx, req)
}

// Format returns the tool-call format detected from the chat template.
func (c *Completer) Format() grammar.Format { return DetectFormat(c.info.Template) }

// Warnings returns the problems found in the chat template.
func (c *Completer) Warnings() []string { return append([]string(nil), c.tmpl.warnings...) }

// prompt is a rendered request.
type prompt struct {
	text     string
	format   grammar.Format
	grammar  *grammar.ToolGrammar // nil: unconstrained
	tools    []grammar.Tool       // offered tools
	admitted []grammar.Tool       // the tools the grammar admits (req.Exclude left out)
	warnings []string
}

// Prompt renders the prompt of req without generating.
func (c *Completer) Prompt(req CompletionRequest) (string, error) {
	p, err := c.prompt(req)
	return p.text, err
}

func (c *Completer) prompt(req CompletionRequest) (prompt, error) {
	p := prompt{format: req.Format}
	if p.format == "" || p.format == FormatAuto {
		p.format = DetectFormat(c.info.Template)
	}
	if _, err := grammar.ParseFormat(string(p.format)); err != nil {
		return p, err
	}
	choice := req.ToolChoice
	if choice == "" {
		choice = grammar.Auto
	}
	if _, err := grammar.ParseToolChoice(string(choice)); err != nil {
		return p, err
	}
	tools := req.Tools
	if choice == grammar.None {
		tools = nil
	}
	if choice == grammar.Required && len(tools) == 0 {
		return p, fmt.Errorf("agent: tool choice required with no tools")
	}
	p.tools = tools
	if req.Prefix != "" && len(tools) > 0 {
		return p, fmt.Errorf("agent: a reply prefix with tools offered")
	}
	if len(req.Choices) > 0 {
		if len(tools) > 0 {
			return p, fmt.Errorf("agent: choices with tools offered")
		}
		p.grammar = grammar.OneOf(req.Choices)
	} else if req.Block && req.Prefix != "" {
		// The prefix opened the block: the grammar takes it from there.
		p.grammar = grammar.FencedBlockRest(strings.HasSuffix(req.Prefix, "\n"))
	} else if req.Block {
		p.grammar = grammar.FencedBlock()
	} else if req.TextOnly {
		p.grammar = grammar.TextOnly()
	} else if len(tools) > 0 && !req.NoGrammar {
		admitted := tools
		if len(req.Exclude) > 0 {
			admitted = slices.DeleteFunc(slices.Clone(tools), func(t grammar.Tool) bool { return slices.Contains(req.Exclude, t.Name) })
			if len(admitted) == 0 {
				return p, fmt.Errorf("agent: every tool is excluded")
			}
		}
		g, err := grammar.ForTools(admitted, p.format, grammar.ToolOptions{ToolChoice: choice, Parallel: req.Parallel, AnyOpening: req.AnyOpening})
		if err != nil {
			return p, err
		}
		p.grammar, p.admitted = g, admitted
	}

	// Native: the template presents the tools and renders calls itself,
	// in the format it teaches.
	native := c.tmpl.tmpl != nil && c.tmpl.native && req.ToolPrompt == "" && !req.CompactTools && p.format == DetectFormat(c.info.Template)
	var instructions string
	if len(tools) > 0 && !native {
		instructions = req.ToolPrompt
		if instructions == "" {
			instructions = toolInstructions(tools, p.format, choice, req.Parallel)
		}
	}
	msgs := req.Messages
	if len(tools) > 0 && len(req.Examples) > 0 {
		msgs = withExamples(msgs, examplesGuide(req.Examples, p.format))
	}
	given := msgs
	var nativeTools []grammar.Tool
	if native {
		nativeTools = tools
		if req.ResultsAsUser {
			msgs = resultsAsUser(msgs)
		}
	} else {
		msgs = flatten(msgs, p.format, instructions)
	}
	if c.tmpl.tmpl != nil {
		text, err := c.tmpl.render(msgs, nativeTools, true)
		if err == nil {
			p.text = text + req.Prefix
			return p, nil
		}
		p.warnings = append(p.warnings, fmt.Sprintf("%v; using the %s layout", err, c.tmpl.family))
		if native { // the layout needs the calls and tools as text
			if len(tools) > 0 {
				instructions = toolInstructions(tools, p.format, choice, req.Parallel)
			}
			msgs = flatten(given, p.format, instructions)
		}
	}
	p.text = c.tmpl.layout(msgs, true) + req.Prefix
	return p, nil
}

// Complete renders the conversation, generates a reply under the tool
// grammar and parses it. A reply cut short by cancellation returns what
// was generated along with ctx's error.
func (c *Completer) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	p, err := c.prompt(req)
	out := Completion{Format: p.format, Prompt: p.text, Warnings: append(c.Warnings(), p.warnings...)}
	if err != nil {
		return out, err
	}
	addSpecial := c.info.BOS == "" || !strings.HasPrefix(p.text, c.info.BOS)
	tokens, err := c.eng.Tokenize(p.text, addSpecial, true)
	if err != nil {
		return out, fmt.Errorf("agent: tokenize prompt: %w", err)
	}
	ir := inference.Request{Prompt: tokens, MaxTokens: req.MaxTokens, Sampling: req.Sampling, Stop: c.tmpl.stops(),
		Prefix: c.sharedPrefix(req, tokens), FirstProb: req.FirstProb, Alternatives: req.Alternatives}
	if p.grammar != nil && p.grammar.GBNF != "" {
		ir.Grammar = c.engineGrammar(p.grammar)
	}
	vis := newVisibleStream(p.format, req.Stream)
	// With no tools offered the reply is all text, whatever it looks like.
	vis.plain = len(p.tools) == 0
	vis.write(req.Prefix)
	// In auto mode the lazy grammar starts at the template's marker. A
	// model that opens its call another way (a fence, a bare object) is
	// stopped there; the reply is cut back to the opening and continued
	// under a grammar that forces a valid call in that wrapper.
	watch := ir.Grammar != nil && p.grammar.Lazy()
	var opened *grammar.CallStart
	unknown := false // the opened call names a tool unlike every offered one
	loop := -1       // where a reply in text began to repeat itself
	res, genErr := c.eng.Generate(ctx, ir, func(pc inference.Piece) error {
		vis.write(pc.Text)
		if vis.plain && !req.Repeats && pc.Text != "" {
			if n, ok := looping(vis.raw.String(), strings.Contains(pc.Text, "\n")); ok {
				loop = n
				return inference.ErrStop
			}
		}
		if watch && pc.Text != "" {
			if st, ok, _ := grammar.FindCall(p.format, vis.raw.String()); ok && !st.Canonical {
				// Let the model name its tool first.
				name, done := grammar.CallName(vis.raw.String(), st)
				if !done {
					return nil
				}
				unknown = req.UnknownAsText && name != "" && !nameFits(name, p.tools)
				opened = &st
				return inference.ErrStop
			}
		}
		return nil
	})
	if watch && opened == nil && genErr == nil {
		// The reply ended inside the call's name.
		if st, ok, _ := grammar.FindCall(p.format, res.Text); ok && !st.Canonical {
			opened = &st
		}
	}
	if opened != nil && genErr == nil {
		if unknown {
			res, genErr = c.continueText(ctx, ir, vis, *opened, res)
		} else {
			res, genErr = c.continueCall(ctx, req, p, ir, vis, *opened, res)
		}
	}
	res.Text = req.Prefix + res.Text
	if loop >= 0 && loop <= len(res.Text) {
		res.Text, res.StopReason = strings.TrimRight(res.Text[:loop], " \t\r\n"), StopRepetition
	}
	out.Raw, out.Stats, out.StopReason, out.FirstProb, out.Steps = res.Text, res.Stats, res.StopReason, res.FirstProb, res.Steps
	if vis.plain {
		out.Content = strings.TrimSpace(res.Text)
	} else {
		content, calls, perr := grammar.Parse(p.format, res.Text)
		out.Content, out.Calls, out.ParseErr = content, calls, perr
		if perr != nil {
			out.Content = strings.TrimSpace(vis.emitted)
		}
	}
	if genErr != nil {
		return out, genErr
	}
	vis.finish(out.Content)
	return out, nil
}

// fixedHead returns the tokens every prompt of req's conversation
// starts with: what the prompts for two different user messages after
// req's fixed messages share (the system prompt and the tools, as the
// template lays them out once a message follows; see
// CompletionRequest.Fixed).
func (c *Completer) fixedHead(req CompletionRequest) ([]inference.Token, error) {
	var system []Message
	for i, m := range req.Messages {
		if req.Fixed > 0 && i == req.Fixed || req.Fixed <= 0 && m.Role != RoleSystem {
			break
		}
		system = append(system, m)
	}
	var head []inference.Token
	for i, stand := range []string{"A", "B"} {
		r := req
		r.Messages = append(slices.Clone(system), Message{Role: RoleUser, Content: stand})
		p, err := c.prompt(r)
		if err != nil {
			return nil, err
		}
		toks, err := c.eng.Tokenize(p.text, c.info.BOS == "" || !strings.HasPrefix(p.text, c.info.BOS), true)
		if err != nil {
			return nil, fmt.Errorf("agent: tokenize prompt: %w", err)
		}
		if i == 0 {
			head = toks
			continue
		}
		head = head[:commonPrefix(head, toks)]
	}
	return head, nil
}

// commonPrefix is the number of leading tokens a and b share.
func commonPrefix(a, b []inference.Token) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// sharedPrefix is how many of tokens, the prompt of req, are its fixed
// head (see fixedHead), leaving at least the last token to decode.
func (c *Completer) sharedPrefix(req CompletionRequest, tokens []inference.Token) int {
	head, err := c.fixedHead(req)
	if err != nil || len(tokens) == 0 {
		return 0
	}
	return min(commonPrefix(head, tokens), len(tokens)-1)
}

// engineGrammar turns a tool grammar into the engine's, with its trigger
// words that are single tokens as trigger tokens.
func (c *Completer) engineGrammar(tg *grammar.ToolGrammar) *inference.Grammar {
	g := &inference.Grammar{GBNF: tg.GBNF, Root: tg.Root, TriggerPatterns: tg.TriggerPatterns}
	for _, w := range tg.TriggerWords {
		if toks, err := c.eng.Tokenize(w, false, true); err == nil && len(toks) == 1 {
			g.TriggerTokens = append(g.TriggerTokens, toks[0])
		}
	}
	return g
}

// continueText regenerates a reply from the point where the model opened a
// call of a tool that nothing offered resembles ("multiply" for "What is
// 12 times 12?", with no such tool), as an answer in text: forced into
// an offered tool, models made calls nobody needed (bash, grep_search).
func (c *Completer) continueText(ctx context.Context, ir inference.Request, vis *visibleStream, st grammar.CallStart, first inference.Result) (inference.Result, error) {
	g := grammar.TextOnly()
	if strings.TrimSpace(vis.raw.String()[:st.Pos]) != "" {
		g = grammar.MoreText()
	}
	return c.continueFrom(ctx, ir, vis, st.Pos, g, first)
}

// continueCall regenerates a reply from the point where the model opened a
// call with a non-canonical opening, under a grammar that forces a valid
// call in that wrapper. first is the generation that was stopped there.
func (c *Completer) continueCall(ctx context.Context, req CompletionRequest, p prompt, ir inference.Request,
	vis *visibleStream, st grammar.CallStart, first inference.Result) (inference.Result, error) {
	tg, err := grammar.ForTools(p.admitted, p.format, grammar.ToolOptions{
		ToolChoice: grammar.Required, Parallel: req.Parallel, Opening: &st.Opening})
	if err != nil {
		return first, err
	}
	return c.continueFrom(ctx, ir, vis, st.Pos, tg, first)
}

// continueFrom regenerates a reply from byte pos of what was generated so
// far (first), under grammar g; the KV cache keeps the text before pos.
func (c *Completer) continueFrom(ctx context.Context, ir inference.Request, vis *visibleStream, pos int, g *grammar.ToolGrammar, first inference.Result) (inference.Result, error) {
	before := vis.raw.String()[:pos]
	prefix, err := c.eng.Tokenize(before, false, false)
	if err != nil {
		return first, fmt.Errorf("agent: tokenize reply: %w", err)
	}
	ir.Prompt = append(append([]inference.Token(nil), ir.Prompt...), prefix...)
	ir.Grammar = c.engineGrammar(g)
	if ir.MaxTokens > 0 {
		ir.MaxTokens = max(1, ir.MaxTokens-len(prefix))
	}
	vis.reset(before)
	res, err := c.eng.Generate(ctx, ir, func(pc inference.Piece) error {
		vis.write(pc.Text)
		return nil
	})
	res.Text = before + res.Text
	res.Tokens = append(append([]inference.Token(nil), first.Tokens...), res.Tokens...)
	s := &res.Stats
	s.PromptTokens = first.Stats.PromptTokens
	s.PromptReused, s.PromptDecoded = first.Stats.PromptReused, first.Stats.PromptDecoded+s.PromptDecoded
	s.PromptLoaded = first.Stats.PromptLoaded
	s.PromptDuration += first.Stats.PromptDuration
	s.Generated += first.Stats.Generated
	s.GenerateDuration += first.Stats.GenerateDuration
	s.GrammarResamples += first.Stats.GrammarResamples
	return res, err
}

// Call has the model call tool once, greedily, in a fresh conversation of
// a system and a user message, and returns the call's arguments: a
// one-shot structured answer, valid under the tool's schema.
func (c *Completer) Call(ctx context.Context, system, user string, tool grammar.Tool, maxTokens int) (json.RawMessage, error) {
	s := inference.DefaultSampling()
	s.Temperature = 0
	comp, err := c.Complete(ctx, CompletionRequest{
		Messages: []Message{{Role: RoleSystem, Content: system}, {Role: RoleUser, Content: user}},
		Tools:    []grammar.Tool{tool}, ToolChoice: grammar.Required, Sampling: s, MaxTokens: maxTokens,
	})
	if err != nil {
		return nil, err
	}
	if len(comp.Calls) == 0 {
		return nil, fmt.Errorf("agent: the model did not call %s: %q", tool.Name, comp.Raw)
	}
	return comp.Calls[0].Arguments, nil
}

// nameFits reports whether name, a tool the model began to call, shares a
// word with the name of one of tools ("create_file" and write_file do;
// "multiply" and bash do not).
func nameFits(name string, tools []grammar.Tool) bool {
	asked := words.Parts(strings.ToLower(name))
	for _, t := range tools {
		for _, w := range words.Parts(strings.ToLower(t.Name)) {
			if slices.Contains(asked, w) {
				return true
			}
		}
	}
	return false
}
