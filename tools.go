package offgrid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/tools"
)

// A Tool is one or more tools an agent may call: Func's, Builtin's, or a
// tools.Tool of your own (ToolOf).
type Tool struct {
	builtin bool
	root    string
	tool    func() (*tools.Tool, error)
}

// Builtin is offgrid's built-in tools (ls, read_file, write_file,
// replace_lines, insert_lines, grep_search, get_current_time, tasks and
// bash), every path confined to root. The tools that change files or run
// commands (high risk) need WithPermissions to run.
func Builtin(root string) Tool { return Tool{builtin: true, root: root} }

// Func is a tool that calls fn. Its arguments are the fields of the
// struct Args, named by their json tags (see tools.SchemaFor for the tags
// that describe them); the model's call is decoded into an Args. A string
// result is shown to the model as it is, anything else as JSON; an error
// is shown as the call's failure. Its risk is safe: it runs without
// asking (ToolOf takes a tools.Tool with another risk).
func Func[Args, Result any](name, description string, fn func(ctx context.Context, args Args) (Result, error)) Tool {
	return Tool{tool: func() (*tools.Tool, error) {
		return tools.New(name, description, tools.Safe, func(ctx context.Context, args Args) (string, error) {
			r, err := fn(ctx, args)
			if err != nil {
				return "", err
			}
			if s, ok := any(r).(string); ok {
				return s, nil
			}
			b, err := json.Marshal(r)
			if err != nil {
				return "", fmt.Errorf("%s: its result: %w", name, err)
			}
			return string(b), nil
		})
	}}
}

// ToolOf is a tool built with package tools (a hand-written schema, a
// risk other than safe, examples).
func ToolOf(t *tools.Tool) Tool { return Tool{tool: func() (*tools.Tool, error) { return t, nil }} }

// ToolSet is the tools an agent may call.
type ToolSet struct{ tools []Tool }

// Tools gathers tools for Model.Agent; at most one Builtin. A ToolSet may
// start several agents: each gets tools of its own (Builtin's task list
// too), built from the same definitions.
func Tools(ts ...Tool) *ToolSet { return &ToolSet{tools: ts} }

// registry builds a fresh registry for one agent, and the built-in tools'
// root ("" without them).
func (ts *ToolSet) registry() (*tools.Registry, string, error) {
	var list []Tool
	if ts != nil {
		list = ts.tools
	}
	reg := tools.NewRegistry()
	root := ""
	for _, t := range list {
		if !t.builtin {
			continue
		}
		if root != "" {
			return nil, "", errors.New("offgrid: Tools: more than one Builtin")
		}
		r, err := launch.BuiltinTools(t.root)
		if err != nil {
			return nil, "", err
		}
		reg, root = r, t.root
		if root == "" {
			root = "."
		}
	}
	for _, t := range list {
		if t.builtin {
			continue
		}
		if t.tool == nil {
			return nil, "", errors.New("offgrid: Tools: a zero Tool")
		}
		tool, err := t.tool()
		if err != nil {
			return nil, "", err
		}
		if err := reg.Add(tool); err != nil {
			return nil, "", err
		}
	}
	return reg, root, nil
}
