package bench

import (
	"context"
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
	req := agent.CompletionRequest{
		Tools:      c.Tools,
		ToolChoice: grammar.Auto,
		Parallel:   strings.Contains(c.BFCLCategory, "parallel"),
		NoGrammar:  opts.NoGrammar,
		Sampling:   opts.Sampling,
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
