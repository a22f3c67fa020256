//go:build cgo

package grammar

// Proof 3: on the real engine, with a random-weight model, every output
// generated under a required-mode tool grammar parses and validates.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// proofRuns is the number of generations per format (OFFGRID_PROOF_N overrides).
func proofRuns(t *testing.T) int {
	if s := os.Getenv("OFFGRID_PROOF_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if testing.Short() {
		return 50
	}
	return 500
}

func TestGuaranteeOnEngine(t *testing.T) {
	cases := bfclCases(t)
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	sortStrings(ids)
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(path, synth.Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := m.NewContext(inference.ContextOptions{ContextSize: 2048, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prompt, err := m.Tokenize("Call one of the tools.\n", false, false)
	if err != nil {
		t.Fatal(err)
	}
	validators := map[string]*jsonschema.Schema{}
	validate := func(id string, tools []Tool, call Call) string {
		for _, tool := range tools {
			if tool.Name != call.Name {
				continue
			}
			key := id + "/" + tool.Name
			v := validators[key]
			if v == nil {
				v = compileEffective(t, tool.Parameters)
				validators[key] = v
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(call.Arguments)))
			if err != nil {
				return "arguments are not JSON: " + err.Error()
			}
			if err := v.Validate(inst); err != nil {
				return "schema: " + err.Error()
			}
			return ""
		}
		return "unknown tool " + call.Name
	}
	runs := proofRuns(t)
	ctx := context.Background()
	for _, f := range Formats() {
		var ok, calls, freeFail int
		for i := range runs {
			id := ids[(i*7)%len(ids)]
			tools := cases[id]
			g, err := ForTools(tools, f, ToolOptions{ToolChoice: Required, Parallel: i%2 == 1, MaxCalls: 3,
				Schema: SchemaOptions{MaxStringLength: 24, MaxItems: 4}})
			if err != nil {
				t.Fatal(err)
			}
			sampling := inference.Sampling{Temperature: 1.0, Seed: uint32(i + 1)}
			res, err := c.Generate(ctx, inference.Request{Prompt: prompt, MaxTokens: 1024, Sampling: sampling,
				Grammar: &inference.Grammar{GBNF: g.GBNF, Root: g.Root}}, nil)
			if err != nil {
				t.Fatalf("%s %s seed %d: %v", f, id, i+1, err)
			}
			if res.StopReason != inference.StopEOG {
				t.Fatalf("%s %s seed %d: stopped by %s before the grammar completed: %q", f, id, i+1, res.StopReason, res.Text)
			}
			if !utf8.ValidString(res.Text) {
				t.Fatalf("%s %s seed %d: output is not valid UTF-8: %q", f, id, i+1, res.Text)
			}
			_, got, err := Parse(f, res.Text)
			if err != nil || len(got) == 0 {
				t.Fatalf("%s %s seed %d: parse: %v (%d calls)\n%q", f, id, i+1, err, len(got), res.Text)
			}
			for _, call := range got {
				if why := validate(id, tools, call); why != "" {
					t.Fatalf("%s %s seed %d: %s\n%q", f, id, i+1, why, res.Text)
				}
			}
			ok++
			calls += len(got)

			// The same request with the grammar off.
			free, err := c.Generate(ctx, inference.Request{Prompt: prompt, MaxTokens: 256, Sampling: sampling}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, got, err := Parse(f, free.Text); err != nil || len(got) == 0 {
				freeFail++
			} else {
				for _, call := range got {
					if validate(id, tools, call) != "" {
						freeFail++
						break
					}
				}
			}
		}
		t.Logf("%-8s grammar on: %d of %d generations valid (%d calls); grammar off: %d of %d invalid", f, ok, runs, calls, freeFail, runs)
	}
}
