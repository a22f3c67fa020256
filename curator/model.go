package curator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// Caller has a model answer a system and a user message with one call of
// tool, under the tool's grammar, and returns the call's arguments;
// *agent.Completer is one.
type Caller interface {
	Call(ctx context.Context, system, user string, tool grammar.Tool, maxTokens int) (json.RawMessage, error)
}

// ModelChooser asks a model to pick sections. The model's reply is
// constrained by a grammar to one call of a tool whose only argument is a
// list of the sections' numbers, so it is always usable.
type ModelChooser struct {
	Model Caller
	// Picks is the most sections the model may choose (default 3).
	Picks int
}

// chooseTool is the name of the tool the model calls to choose.
const chooseTool = "choose_sections"

const chooserSystem = "You help an assistant read a long file. You are shown a request and numbered sections of the file. Choose the sections the assistant needs to answer the request: call " + chooseTool + " with their numbers, the most useful first."

// Choose implements Chooser.
func (m *ModelChooser) Choose(ctx context.Context, request, file string, lines int, sections []Section) ([]int, error) {
	if len(sections) == 0 {
		return nil, nil
	}
	picks := m.Picks
	if picks <= 0 {
		picks = 3
	}
	nums := make([]int, len(sections))
	for i := range sections {
		nums[i] = i + 1
	}
	schema, err := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"sections": map[string]any{
				"type": "array", "items": map[string]any{"type": "integer", "enum": nums},
				"minItems": 1, "maxItems": min(picks, len(sections)),
			},
		},
		"required": []string{"sections"},
	})
	if err != nil {
		return nil, err
	}
	tool := grammar.Tool{Name: chooseTool, Description: "Choose the sections of the file that answer the request.", Parameters: schema}

	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s\n\nThe file %s has %d lines. Its sections that may matter:\n", strings.TrimSpace(request), file, lines)
	for i, s := range sections {
		fmt.Fprintf(&b, "\nSection %d (lines %d–%d):\n", i+1, s.From, s.To)
		prev := 0
		for _, l := range s.Lines {
			if prev > 0 && l.N > prev+1 {
				b.WriteString("…\n")
			}
			fmt.Fprintf(&b, "%d: %s\n", l.N, l.Text)
			prev = l.N
		}
	}
	fmt.Fprintf(&b, "\nWhich sections does the assistant need to answer the request? Call %s.", chooseTool)

	out, err := m.Model.Call(ctx, chooserSystem, b.String(), tool, 24+8*picks)
	if err != nil {
		return nil, fmt.Errorf("curator: %w", err)
	}
	var args struct {
		Sections []int `json:"sections"`
	}
	if err := json.Unmarshal(out, &args); err != nil {
		return nil, fmt.Errorf("curator: the model's choice %s: %w", out, err)
	}
	idx := make([]int, len(args.Sections))
	for i, n := range args.Sections {
		idx[i] = n - 1
	}
	return idx, nil
}
