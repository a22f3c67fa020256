package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// FormatAuto asks Complete to detect the tool-call format from the chat
// template. It is also what the zero Format means.
const FormatAuto grammar.Format = "auto"

// ParseFormat is grammar.ParseFormat that also accepts "auto" (and "").
func ParseFormat(s string) (grammar.Format, error) {
	if s == "" || s == string(FormatAuto) {
		return FormatAuto, nil
	}
	return grammar.ParseFormat(s)
}

// DetectFormat chooses the tool-call format a chat template teaches its
// model; see grammar.DetectFormat.
func DetectFormat(template string) grammar.Format { return grammar.DetectFormat(template) }

// toolInstructions is offgrid's own description of the tools and the
// call format, added to the system message for models whose template
// does not present tools itself.
func toolInstructions(tools []grammar.Tool, f grammar.Format, choice grammar.ToolChoice, parallel bool) string {
	var sb strings.Builder
	sb.WriteString("You can use these tools:\n")
	for _, t := range tools {
		fmt.Fprintf(&sb, "- %s(%s): %s\n", t.Name, signature(t.Parameters), t.Description)
	}
	example := []grammar.Call{{Name: "tool_name", Arguments: json.RawMessage(`{"argument":"value"}`)}}
	if parallel {
		example = append(example, grammar.Call{Name: "other_tool", Arguments: json.RawMessage(`{}`)})
	}
	sb.WriteString("\nTo use a tool, reply with exactly this form")
	if parallel {
		sb.WriteString(" (one or more calls)")
	} else {
		sb.WriteString(" (one call at a time)")
	}
	sb.WriteString(":\n")
	sb.WriteString(grammar.Render(f, example))
	sb.WriteString("\n")
	switch {
	case choice == grammar.Required:
		sb.WriteString("You must call a tool now.\n")
	case f == grammar.Generic:
		sb.WriteString("To answer without a tool, reply with exactly: {\"response\": \"your answer\"}\n")
	default:
		sb.WriteString("To answer without a tool, reply in plain text.\n")
	}
	sb.WriteString("Tool results come back in a message starting with \"Tool results:\". Use them to answer the user.")
	return sb.String()
}

// signature lists a schema's top-level arguments as "name: type", with
// "?" marking optional ones, in declared order.
func signature(params json.RawMessage) string {
	ko := keyOrder{}
	v, err := ko.decode(params)
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return ""
	}
	props, _ := obj["properties"].(map[string]any)
	if props == nil {
		return ""
	}
	required := map[string]bool{}
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var parts []string
	for _, name := range ko.keys(reflect.ValueOf(props)) {
		typ := "any"
		if p, ok := props[name].(map[string]any); ok {
			switch t := p["type"].(type) {
			case string:
				typ = t
			}
			if enum, ok := p["enum"].([]any); ok {
				var vals []string
				for _, e := range enum {
					b, _ := json.Marshal(e)
					vals = append(vals, string(b))
				}
				typ = strings.Join(vals, "|")
			}
		}
		opt := "?"
		if required[name] {
			opt = ""
		}
		parts = append(parts, name+opt+": "+typ)
	}
	return strings.Join(parts, ", ")
}

// flatten turns a conversation with tool calls into one a template
// without tool support can render: instructions join the system message,
// calls are written in format f inside the assistant's text, and tool
// results become a user message.
func flatten(msgs []Message, f grammar.Format, instructions string) []Message {
	out := make([]Message, 0, len(msgs)+1)
	if instructions != "" {
		if len(msgs) > 0 && msgs[0].Role == RoleSystem {
			sys := msgs[0]
			if strings.TrimSpace(sys.Content) != "" {
				sys.Content = strings.TrimRight(sys.Content, "\n") + "\n\n" + instructions
			} else {
				sys.Content = instructions
			}
			out = append(out, sys)
			msgs = msgs[1:]
		} else {
			out = append(out, Message{Role: RoleSystem, Content: instructions})
		}
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			// The reply as generated keeps the KV cache warm, unless the
			// model wrapped a call its own way: then the history shows the
			// canonical form, so the model sees correct examples.
			text := m.Raw
			if st, ok, _ := grammar.FindCall(f, text); ok && !st.Canonical {
				text = ""
			}
			if text == "" {
				text = strings.TrimSpace(strings.TrimSpace(m.Content) + "\n" + grammar.Render(f, m.ToolCalls))
			}
			out = append(out, Message{Role: RoleAssistant, Content: text})
		case m.Role == RoleAssistant && m.Raw != "":
			out = append(out, Message{Role: RoleAssistant, Content: m.Raw})
		case m.Role == RoleTool:
			var u Message
			u, i = userResults(msgs, i)
			out = append(out, u)
		default:
			out = append(out, Message{Role: m.Role, Content: m.Content})
		}
	}
	return out
}

// userResults joins the tool messages from msgs[i] on into one user
// message; it returns the message and the index of the last one joined.
func userResults(msgs []Message, i int) (Message, int) {
	var sb strings.Builder
	sb.WriteString("Tool results:")
	for ; i < len(msgs) && msgs[i].Role == RoleTool; i++ {
		fmt.Fprintf(&sb, "\n%s (call %s): %s", msgs[i].Name, msgs[i].ToolCallID, msgs[i].Content)
	}
	return Message{Role: RoleUser, Content: sb.String()}, i - 1
}

// resultsAsUser returns msgs with each run of tool messages replaced by
// one user message.
func resultsAsUser(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role != RoleTool {
			out = append(out, msgs[i])
			continue
		}
		var u Message
		u, i = userResults(msgs, i)
		out = append(out, u)
	}
	return out
}
