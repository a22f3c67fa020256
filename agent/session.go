package agent

import (
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/inference"
)

// Reset starts a new conversation: the history goes back to the system
// prompt, the session's tool records are dropped and the tools forget
// what the model was shown (tools.Registry.Forget). The engine's KV
// cache is the caller's (see inference.Context.Reset).
func (a *Agent) Reset() {
	a.history = nil
	if a.opts.System != "" {
		a.history = []Message{{Role: RoleSystem, Content: a.opts.System}}
	}
	a.records, a.held = nil, nil
	a.reg.Forget()
	a.topics = nil
	a.offer()
}

// SetHistory replaces the conversation, e.g. with one saved earlier or
// held by another model's agent. Every message must have a known role,
// and a tool message the id of a call made before it.
func (a *Agent) SetHistory(msgs []Message) error {
	calls := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem, RoleUser:
		case RoleAssistant:
			for _, c := range m.ToolCalls {
				if c.Name == "" {
					return fmt.Errorf("agent: message %d: a tool call without a name", i+1)
				}
				calls[c.ID] = true
			}
		case RoleTool:
			if !calls[m.ToolCallID] {
				return fmt.Errorf("agent: message %d: a tool result for call %q, which no earlier message made", i+1, m.ToolCallID)
			}
		default:
			return fmt.Errorf("agent: message %d: unknown role %q (want system, user, assistant or tool)", i+1, m.Role)
		}
	}
	a.history = append([]Message(nil), msgs...)
	a.records, a.held = nil, nil
	// The topics of the tools the conversation called stay offered.
	a.topics = nil
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if t, ok := a.reg.Lookup(c.Name); ok && t.Topic != "" {
				if a.topics == nil {
					a.topics = map[string]bool{}
				}
				a.topics[t.Topic] = true
			}
		}
	}
	a.offer()
	return nil
}

// Usage is how the context window is taken, in tokens.
type Usage struct {
	// Fixed is the system prompt with the tool definitions: what every
	// prompt starts with.
	Fixed int
	// History is the rest of the conversation.
	History int
}

// Usage renders the next prompt as Send would and counts its tokens:
// the part every prompt carries (system prompt and tools) and the
// conversation after it.
func (a *Agent) Usage() (Usage, error) {
	head, err := a.c.fixedHead(a.countRequest(a.history))
	if err != nil {
		return Usage{}, err
	}
	if len(a.history) == 0 || len(a.history) == 1 && a.history[0].Role == RoleSystem {
		return Usage{Fixed: len(head)}, nil
	}
	all, err := a.tokens(a.history)
	if err != nil {
		return Usage{}, err
	}
	return Usage{Fixed: len(head), History: max(0, len(all)-len(head))}, nil
}

// countRequest is the request Send would make for msgs.
func (a *Agent) countRequest(msgs []Message) CompletionRequest {
	req := a.request(a.opts.ToolChoice, false)
	req.Messages = msgs
	return req
}

// tokens renders msgs as the next prompt and tokenizes it.
func (a *Agent) tokens(msgs []Message) ([]inference.Token, error) {
	text, err := a.c.Prompt(a.countRequest(msgs))
	if err != nil {
		return nil, err
	}
	toks, err := a.c.eng.Tokenize(text, a.c.info.BOS == "" || !strings.HasPrefix(text, a.c.info.BOS), true)
	if err != nil {
		return nil, fmt.Errorf("agent: tokenize prompt: %w", err)
	}
	return toks, nil
}
