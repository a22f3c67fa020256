// Command add is the smallest offgrid program: the default model with
// offgrid's built-in tools over the current directory and one Go function
// as a tool.
//
//	go run ./examples/add "What is 2 + 3?"
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/offgrid-ai/offgrid"
)

// Pair is the add tool's arguments; the json tags name them for the model.
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

func add(_ context.Context, p Pair) (int, error) { return p.A + p.B, nil }

func main() {
	question := strings.Join(os.Args[1:], " ")
	if question == "" {
		question = "What is 2 + 3?"
	}
	ctx := context.Background()
	m, err := offgrid.Open(ctx, "default", offgrid.WithLog(os.Stderr)) // a store name, a GGUF path or a URL
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	a, err := m.Agent(offgrid.Tools(offgrid.Builtin("."), offgrid.Func("add", "Add two integers", add)))
	if err != nil {
		log.Fatal(err)
	}
	answer, err := a.Ask(ctx, question)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
