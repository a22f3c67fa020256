//go:build cgo

package bench

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// TestEngineGrammarOnIsValid runs 20 shared BFCL cases on the tiny
// generated model through the agent's prompt path: with the grammar on,
// every reply must parse into calls that validate against the tools'
// schemas, whatever the random weights say.
func TestEngineGrammarOnIsValid(t *testing.T) {
	files := testenv.BFCLFiles(t)
	path := filepath.Join(t.TempDir(), "synth.gguf")
	if err := synth.Write(path, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lctx, err := m.NewContext(inference.ContextOptions{ContextSize: 4096, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lctx.Close()
	all, _, err := Load(files, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Free-form dict parameters are left out: their keys are strings no
	// schema bounds, and a random model may never close one.
	var cases []Case
	per := map[string]int{}
	for _, c := range all {
		if per[c.Category] < 10 && !hasFreeObject(c) {
			cases = append(cases, c)
			per[c.Category]++
		}
	}
	if len(cases) != 20 {
		t.Fatalf("got %d cases, want 10 simple + 10 multiple", len(cases))
	}
	cp := agent.NewCompleter(lctx, agent.InfoFromModel(m))
	for _, format := range []string{"auto", FormatBFCLPrompt} {
		run, err := RunCases(context.Background(), Run{Runner: "offgrid", Grammar: "on", ToolFormat: format}, cases,
			AgentComplete(cp, AgentOptions{Format: format, MaxTokens: 512, MaxString: 24, MaxItems: 4}), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run.Cases {
			if !r.ParseValid || !r.SchemaValid || r.Error != "" {
				t.Errorf("%s %s: parse-valid %v, schema-valid %v, error %q, parse error %q\nraw: %q\ncalls: %+v",
					format, r.ID, r.ParseValid, r.SchemaValid, r.Error, r.ParseError, r.Raw, r.Calls)
			}
		}
		rows := Summarize([]Run{run})
		last := rows[len(rows)-1]
		t.Logf("%s: %d cases, parse-valid %.0f%%, schema-valid %.0f%%, correct fn %.0f%%, accuracy %.0f%%",
			format, last.Cases, last.ParseValid, last.SchemaValid, last.CorrectFunction, last.Accuracy)
	}
}

func hasFreeObject(c Case) bool {
	for _, t := range c.Tools {
		var s any
		json.Unmarshal(t.Parameters, &s)
		if freeObject(s, true) {
			return true
		}
	}
	return false
}

func freeObject(s any, top bool) bool {
	switch x := s.(type) {
	case map[string]any:
		if x["type"] == "object" && !top {
			if p, _ := x["properties"].(map[string]any); len(p) == 0 {
				return true
			}
		}
		for _, v := range x {
			if freeObject(v, false) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if freeObject(v, false) {
				return true
			}
		}
	}
	return false
}
