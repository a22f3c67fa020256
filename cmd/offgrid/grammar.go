package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/offgrid-ai/offgrid/bench/bfcl"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
)

func cmdGrammar(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "grammar", "grammar --tools FILE.json [--tool-format F] [--tool-choice auto|required] [--parallel] [--check]")
	toolsFile := fs.String("tools", "", "tool definitions: an OpenAI tools array, a function list or a BFCL question line (- for stdin)")
	format := fs.String("tool-format", string(grammar.Generic), "tool-call format: generic, hermes, llama3, mistral or pythonic")
	fs.StringVar(format, "format", string(grammar.Generic), "")
	_ = fs.MarkDeprecated("format", "use --tool-format")
	choice := fs.String("tool-choice", string(grammar.Auto), "auto (text or calls) or required (calls only)")
	parallel := fs.Bool("parallel", false, "allow several calls in one reply")
	maxCalls := fs.Int("max-calls", 0, "with --parallel, the most calls in one reply (0: no cap)")
	maxString := fs.Int("max-string", 0, "the longest string argument, in characters (0: no cap beyond the schema)")
	maxItems := fs.Int("max-items", 0, "the most elements in an array argument (0: no cap beyond the schema)")
	check := fs.Bool("check", false, "also load the grammar into llama.cpp's parser; exit non-zero if it rejects it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *toolsFile == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: want --tools FILE and no arguments", errUsage)
	}
	f, err := grammar.ParseFormat(*format)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	tc, err := grammar.ParseToolChoice(*choice)
	if err != nil || tc == grammar.None {
		return fmt.Errorf("%w: --tool-choice: want auto or required", errUsage)
	}
	var data []byte
	if *toolsFile == "-" {
		if data, err = io.ReadAll(env.stdin); err != nil {
			return fmt.Errorf("read tools from stdin: %w", err)
		}
	} else if data, err = os.ReadFile(*toolsFile); err != nil {
		return err
	}
	var question struct {
		Function json.RawMessage `json:"function"`
	}
	if json.Unmarshal(data, &question) == nil && len(question.Function) > 0 {
		// A BFCL question line: its functions, BFCL's type names translated.
		if data, err = bfcl.Functions(question.Function); err != nil {
			return fmt.Errorf("%s: %w", *toolsFile, err)
		}
	}
	tools, err := grammar.ParseTools(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *toolsFile, err)
	}
	g, err := grammar.ForTools(tools, f, grammar.ToolOptions{
		ToolChoice: tc,
		Parallel:   *parallel,
		MaxCalls:   *maxCalls,
		Schema:     grammar.SchemaOptions{MaxStringLength: *maxString, MaxItems: *maxItems},
	})
	if err != nil {
		return err
	}
	for _, w := range g.Warnings {
		fmt.Fprintf(env.stderr, "warning: %s\n", w)
	}
	// Triggers go out as GBNF comments, so the output stays a loadable grammar.
	fmt.Fprintf(env.stdout, "# offgrid grammar: %d tools, format %s, tool choice %s\n", len(tools), f, tc)
	for _, p := range g.TriggerPatterns {
		fmt.Fprintf(env.stdout, "# trigger pattern: %s\n", p)
	}
	for _, w := range g.TriggerWords {
		fmt.Fprintf(env.stdout, "# trigger word: %s\n", w)
	}
	fmt.Fprint(env.stdout, g.GBNF)
	if *check {
		if err := inference.CheckGrammar(g.GBNF, g.Root); err != nil {
			return fmt.Errorf("llama.cpp rejects the grammar: %w", err)
		}
		fmt.Fprintln(env.stderr, "llama.cpp accepts the grammar")
	}
	return nil
}
