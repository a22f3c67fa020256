//go:build cgo

package grammar_test

// Tests that need llama.cpp (through the inference package's cgo binding).

import (
	"os"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/bench/bfcl"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// TestBFCLLlamaCppAccepts is proof 1: every BFCL function list, in every
// format and tool choice, yields a grammar llama.cpp's parser accepts.
func TestBFCLLlamaCppAccepts(t *testing.T) {
	n := 0
	for _, path := range testenv.BFCLFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			fns, err := bfcl.Functions([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			tools, err := grammar.ParseTools(fns)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range grammar.Formats() {
				for _, choice := range []grammar.ToolChoice{grammar.Auto, grammar.Required} {
					g, err := grammar.ForTools(tools, f, grammar.ToolOptions{ToolChoice: choice, Parallel: true})
					if err != nil {
						t.Fatalf("%s: %v", f, err)
					}
					if err := inference.CheckGrammar(g.GBNF, g.Root); err != nil {
						t.Fatalf("%s %s: llama.cpp rejects: %v\n%s", f, choice, err, g.GBNF)
					}
					n++
				}
			}
		}
	}
	if n != 600*5*2 {
		t.Fatalf("checked %d grammars, want 6000", n)
	}
	t.Logf("llama.cpp accepts all %d grammars (600 BFCL cases x 5 formats x 2 tool choices)", n)
}

func TestLlamaCppRejectsBrokenGrammar(t *testing.T) {
	if err := inference.CheckGrammar(`root ::= undefined-rule`, "root"); err == nil {
		t.Fatal("llama.cpp accepted a grammar with an undefined rule; the proof above would prove nothing")
	}
}
