package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// ToolExample is a request and the first call that serves it, shown to
// the model beside the tool definitions (see Options.ToolExamples).
type ToolExample struct {
	Request string
	Call    grammar.Call
	// Then says in a few words what comes after the call; may be "".
	Then string
}

// toolExamples returns the examples of the registry's tools that are
// offered (in defs), in registration order. An example whose call names
// a tool that is not offered is left out.
func toolExamples(reg *tools.Registry, defs []grammar.Tool) []ToolExample {
	offered := func(name string) bool { return hasTool(defs, name) }
	var out []ToolExample
	for _, t := range reg.Tools() {
		if !offered(t.Name) {
			continue
		}
		for _, ex := range t.Examples {
			name := ex.Tool
			if name == "" {
				name = t.Name
			}
			if !offered(name) {
				continue
			}
			out = append(out, ToolExample{Request: ex.Request, Call: grammar.Call{Name: name, Arguments: ex.Arguments}, Then: ex.Then})
		}
	}
	return out
}

// examplesGuide is the text that presents examples to the model, each
// call in format f's own form, after a rule on when to call and one
// example that needs no tool.
func examplesGuide(examples []ToolExample, f grammar.Format) string {
	var b strings.Builder
	b.WriteString("Call a tool when the request needs one; answer directly when it needs none. " +
		"Use the names the user gave or earlier results showed; never invent paths like /path/to/file.\n\n" +
		"Examples of requests and the first call to make:")
	for _, ex := range examples {
		fmt.Fprintf(&b, "\n- %q → %s", ex.Request, strings.TrimSpace(grammar.Render(f, []grammar.Call{ex.Call})))
		if ex.Then != "" {
			b.WriteString(", " + ex.Then)
		}
	}
	b.WriteString("\n- \"What is 7 times 8?\" → no tool; answer: 56")
	return b.String()
}

// withExamples adds the guide to the system message, or opens the
// conversation with a system message holding it.
func withExamples(msgs []Message, guide string) []Message {
	out := slices.Clone(msgs)
	if len(out) > 0 && out[0].Role == RoleSystem {
		out[0].Content = strings.TrimRight(out[0].Content, "\n") + "\n\n" + guide
		return out
	}
	return append([]Message{{Role: RoleSystem, Content: "You are a helpful assistant.\n\n" + guide}}, out...)
}

// hasTool reports whether defs holds the tool name.
func hasTool(defs []grammar.Tool, name string) bool {
	return slices.ContainsFunc(defs, func(d grammar.Tool) bool { return d.Name == name })
}
