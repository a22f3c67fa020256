package offgrid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/offgrid-ai/offgrid"
)

// Sum is the arguments of the add tool: the json tags name them for the
// model, and the model's call is decoded into a Sum.
type Sum struct {
	A int `json:"a"`
	B int `json:"b"`
}

func add(_ context.Context, s Sum) (int, error) { return s.A + s.B, nil }

// A complete program: the default model (here a tiny random-weight model
// the test puts in a temporary store, so what it answers is noise) calls
// a Go function as a tool, and offgrid runs it and gives the model the
// result.
func Example() {
	ctx := context.Background()
	m, err := offgrid.Open(ctx, "default")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	a, err := m.Agent(offgrid.Tools(offgrid.Func("add", "Add two integers", add)),
		offgrid.WithToolChoice("required"), // call a tool first
		offgrid.WithEvents(func(e offgrid.Event) {
			if e.Type == offgrid.EventToolResult { // the call ran
				var s Sum
				json.Unmarshal(e.Record.Arguments, &s)
				fmt.Println("called", e.Record.Name, "ok:", e.Record.OK(), "sum right:", e.Record.Result.Text() == fmt.Sprint(s.A+s.B))
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	answer, err := a.Ask(ctx, "What is 2 + 3?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answered:", answer != "")
	// Output:
	// called add ok: true sum right: true
	// answered: true
}
