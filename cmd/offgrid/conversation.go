package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
)

// conversationVersion is the version of the file /save writes.
const conversationVersion = 1

// conversationFile is a conversation as /save writes it and /load reads
// it: the messages as the model sees them.
type conversationFile struct {
	Version  int            `json:"offgrid_conversation"`
	Model    string         `json:"model,omitempty"`
	Messages []savedMessage `json:"messages"`
}

type savedMessage struct {
	Role       string      `json:"role"`
	Content    string      `json:"content,omitempty"`
	ToolCalls  []savedCall `json:"tool_calls,omitempty"`
	ToolCallID string      `json:"tool_call_id,omitempty"`
	Name       string      `json:"name,omitempty"`
	// Raw is the reply as generated; reused only with the same model.
	Raw string `json:"raw,omitempty"`
}

type savedCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// marshalConversation encodes a conversation held with model.
func marshalConversation(model string, msgs []agent.Message) ([]byte, error) {
	f := conversationFile{Version: conversationVersion, Model: model, Messages: make([]savedMessage, len(msgs))}
	for i, m := range msgs {
		s := savedMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name, Raw: m.Raw}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if !json.Valid(args) {
				args = json.RawMessage(`{}`)
			}
			s.ToolCalls = append(s.ToolCalls, savedCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
		f.Messages[i] = s
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// unmarshalConversation decodes a file marshalConversation wrote; it
// returns the model the conversation was held with.
func unmarshalConversation(data []byte) (string, []agent.Message, error) {
	var f conversationFile
	if err := json.Unmarshal(data, &f); err != nil {
		return "", nil, fmt.Errorf("not a saved conversation: %w", err)
	}
	if f.Version != conversationVersion {
		return "", nil, fmt.Errorf("not a saved conversation of this offgrid (offgrid_conversation is %d, want %d)", f.Version, conversationVersion)
	}
	msgs := make([]agent.Message, len(f.Messages))
	for i, s := range f.Messages {
		m := agent.Message{Role: s.Role, Content: s.Content, ToolCallID: s.ToolCallID, Name: s.Name, Raw: s.Raw}
		for _, c := range s.ToolCalls {
			var args bytes.Buffer // the file is indented; calls are compact
			if err := json.Compact(&args, c.Arguments); err != nil {
				return "", nil, fmt.Errorf("message %d: arguments of %s: %w", i+1, c.Name, err)
			}
			m.ToolCalls = append(m.ToolCalls, grammar.Call{ID: c.ID, Name: c.Name, Arguments: args.Bytes()})
		}
		msgs[i] = m
	}
	return f.Model, msgs, nil
}
