package bench

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
)

// FormatBFCLPrompt is the --tool-format that reproduces BFCL's prompt
// mode: BFCL's system prompt and Python call syntax.
const FormatBFCLPrompt = "bfcl-prompt"

// AgentOptions configures AgentComplete.
type AgentOptions struct {
	// Format is a grammar format, "" or "auto" to detect it from the chat
	// template, or FormatBFCLPrompt.
	Format    string
	NoGrammar bool
	Sampling  inference.Sampling
	MaxTokens int
	// MaxString and MaxItems, when set, bound string lengths and array
	// sizes in tool schemas that leave them open, so that a model that
	// never closes a string (a random-weight test model) still ends its
	// call within MaxTokens. The bounds are part of the schemas shown.
	MaxString, MaxItems int
}

// AgentComplete answers cases through the agent's prompt path, as
// `offgrid run` would: chat template, tool instructions, tool grammar.
// Categories that expect calls use tool choice required, irrelevance
// auto; parallel categories allow several calls.
func AgentComplete(cp *agent.Completer, opts AgentOptions) CompleteFunc {
	return func(ctx context.Context, c *Case) (Output, error) {
		req, err := agentRequest(c, opts)
		if err != nil {
			return Output{}, err
		}
		comp, err := cp.Complete(ctx, req)
		return Output{
			Raw:      comp.Raw,
			Calls:    comp.Calls,
			ParseErr: comp.ParseErr,
			Stats: Stats{
				PromptTokens:     comp.Stats.PromptDecoded,
				PromptDuration:   comp.Stats.PromptDuration,
				Generated:        comp.Stats.Generated,
				GenerateDuration: comp.Stats.GenerateDuration,
			},
		}, err
	}
}

func agentRequest(c *Case, opts AgentOptions) (agent.CompletionRequest, error) {
	tools := c.Tools
	if opts.MaxString > 0 || opts.MaxItems > 0 {
		tools = boundTools(tools, opts.MaxString, opts.MaxItems)
	}
	req := agent.CompletionRequest{
		Tools:      tools,
		ToolChoice: grammar.Auto,
		Parallel:   strings.Contains(c.BFCLCategory, "parallel"),
		NoGrammar:  opts.NoGrammar,
		Sampling:   sampling(opts.Sampling, c.Seed),
		MaxTokens:  opts.MaxTokens,
	}
	if c.ExpectsCalls() {
		req.ToolChoice = grammar.Required
	}
	msgs := c.Messages
	switch opts.Format {
	case "", "auto":
		req.Format = agent.FormatAuto
	case FormatBFCLPrompt:
		p, err := BFCLPrompt(c)
		if err != nil {
			return req, err
		}
		req.Format, req.ToolPrompt = grammar.Pythonic, p
		if len(msgs) > 0 && msgs[0].Role == "system" {
			msgs = msgs[1:] // BFCLPrompt carries it
		}
	default:
		f, err := grammar.ParseFormat(opts.Format)
		if err != nil {
			return req, err
		}
		req.Format = f
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, agent.Message{Role: m.Role, Content: m.Content})
	}
	return req, nil
}

// boundTools returns copies of tools whose string schemas without
// maxLength get maxString and array schemas without maxItems get maxItems.
func boundTools(tools []grammar.Tool, maxString, maxItems int) []grammar.Tool {
	out := make([]grammar.Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		var s any
		if err := json.Unmarshal(t.Parameters, &s); err != nil {
			continue
		}
		bound(s, maxString, maxItems)
		if b, err := json.Marshal(s); err == nil {
			out[i].Parameters = b
		}
	}
	return out
}

func bound(s any, maxString, maxItems int) {
	switch x := s.(type) {
	case map[string]any:
		if x["type"] == "string" && maxString > 0 && x["maxLength"] == nil && x["enum"] == nil {
			x["maxLength"] = maxString
		}
		if x["type"] == "array" && maxItems > 0 && x["maxItems"] == nil {
			x["maxItems"] = maxItems
		}
		for _, v := range x {
			bound(v, maxString, maxItems)
		}
	case []any:
		for _, v := range x {
			bound(v, maxString, maxItems)
		}
	}
}

// sampling is s with seed, when seed is not 0.
func sampling(s inference.Sampling, seed uint32) inference.Sampling {
	if seed != 0 {
		s.Seed = seed
	}
	return s
}
