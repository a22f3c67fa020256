package permission_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func ExamplePolicy_Evaluate() {
	bash := &tools.Tool{Name: "bash", Risk: tools.High}
	pol, _ := permission.New(permission.Config{Interactive: true})
	args := json.RawMessage(`{"command":"make test"}`)

	fmt.Println(pol.Evaluate(bash, args))
	// The executor asks the user (with a Prompter), then records the answer.
	answer := permission.AllowSession
	if err := pol.Record(bash, args, answer); err != nil {
		fmt.Println("warning:", err)
	}
	fmt.Println(pol.Evaluate(bash, args))

	// Without a terminal, and without flags, risky calls are denied.
	batch, _ := permission.New(permission.Config{})
	err := batch.Authorize(context.Background(), nil, bash, args, nil)
	fmt.Println(err != nil)
	// Output:
	// ask
	// allow
	// true
}
