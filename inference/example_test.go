//go:build cgo

package inference_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// Load a model, open a context, and generate under a grammar. The model
// here is a tiny random-weight one from package synth, so what it would
// say freely is noise; the grammar decides the text, which shows that
// the output follows the grammar whatever the weights. A real program
// loads a GGUF file from the model store the same way.
func Example() {
	dir, err := os.MkdirTemp("", "offgrid-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "synth.gguf")
	if err := synth.Write(path, synth.Options{Seed: 1}); err != nil {
		panic(err)
	}

	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	c, err := m.NewContext(inference.ContextOptions{ContextSize: 512})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	prompt, err := m.Tokenize("Is the sky blue? Answer:", true, false)
	if err != nil {
		panic(err)
	}
	res, err := c.Generate(context.Background(), inference.Request{
		Prompt:    prompt,
		MaxTokens: 16,
		Grammar:   &inference.Grammar{GBNF: `root ::= " yes, it is"`},
	}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q (%s)\n", res.Text, res.StopReason)
	// Output: " yes, it is" (eog)
}
