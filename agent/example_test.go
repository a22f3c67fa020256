package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
	"github.com/offgrid-ai/offgrid/tools"
)

// scripted is an Engine that streams scripted replies, one per Generate;
// its tokens are bytes. A loaded model's *inference.Context takes its
// place in a program.
type scripted struct{ replies []string }

func (s *scripted) Tokenize(text string, addSpecial, parseSpecial bool) ([]inference.Token, error) {
	toks := make([]inference.Token, len(text))
	for i := range len(text) {
		toks[i] = inference.Token(text[i])
	}
	return toks, nil
}

func (s *scripted) Generate(ctx context.Context, req inference.Request, fn func(inference.Piece) error) (inference.Result, error) {
	reply := s.replies[0]
	s.replies = s.replies[1:]
	if err := fn(inference.Piece{Text: reply}); err != nil {
		return inference.Result{}, err
	}
	return inference.Result{Text: reply, StopReason: inference.StopEOG}, nil
}

// An agent turn: the model calls a tool, offgrid runs it, and the model
// answers with the result.
func Example() {
	reg := tools.NewRegistry()
	err := reg.Add(&tools.Tool{
		Name: "add", Description: "Add two numbers.", Risk: tools.Safe,
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			return fmt.Sprint(in.A + in.B), nil
		},
	})
	if err != nil {
		panic(err)
	}
	policy, err := permission.New(permission.Config{}) // safe tools run without asking
	if err != nil {
		panic(err)
	}
	eng := &scripted{replies: []string{
		grammar.Render(grammar.Hermes, []grammar.Call{{Name: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3}`)}}),
		"2 + 3 = 5.",
	}}
	info := agent.ModelInfo{Template: synth.ChatTemplate, EOS: "<|endoftext|>"} // a Hermes-style template
	a, err := agent.New(agent.NewCompleter(eng, info), reg, policy, nil, agent.Options{})
	if err != nil {
		panic(err)
	}
	turn, err := a.Send(context.Background(), "What is 2 + 3?", func(e agent.Event) {
		if e.Type == agent.EventToolCall {
			fmt.Printf("call %s %s\n", e.Tool, e.Arguments)
		}
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("result", turn.Calls[0].Result.Text())
	fmt.Println("answer", turn.Content)
	// Output:
	// call add {"a":2,"b":3}
	// result 5
	// answer 2 + 3 = 5.
}
