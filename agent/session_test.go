package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentSession: Usage counts the system prompt with the tools apart
// from the conversation; SetHistory carries a conversation over to
// another agent, whose next prompt shows it; Reset starts afresh.
func TestAgentSession(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{System: "Be brief."}, permission.Config{}, nil,
		"Let me check.\n"+hermes(call("echo", `{"text":"hi"}`)),
		"The echo says hi.")
	before, err := h.agent.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if before.Fixed == 0 || before.History != 0 {
		t.Fatalf("usage of an empty conversation %+v", before)
	}
	h.send("Echo hi.")
	after, err := h.agent.Usage()
	if err != nil {
		t.Fatal(err)
	}
	// The fake engine's tokens are bytes: the whole is the next prompt.
	next, _ := h.agent.c.Prompt(CompletionRequest{Messages: h.agent.History(), Tools: h.agent.defs})
	if after.Fixed != before.Fixed || after.Fixed+after.History != len(next) || after.History <= before.History {
		t.Fatalf("usage %+v after a turn (before %+v, next prompt %d bytes)", after, before, len(next))
	}

	other := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, "Yes.")
	if err := other.agent.SetHistory(h.agent.History()); err != nil {
		t.Fatal(err)
	}
	other.send("Again?")
	if p := other.eng.prompts[0]; !strings.Contains(p, "Be brief.") || !strings.Contains(p, "The echo says hi.") || !strings.Contains(p, "<tool_response>") {
		t.Fatalf("the carried-over conversation is not in the prompt:\n%s", p)
	}

	h.agent.Reset()
	if got := roles(h.agent.History()); got != "system" || len(h.agent.Records()) != 0 {
		t.Fatalf("after Reset: roles %q, %d records", got, len(h.agent.Records()))
	}
}

func TestAgentSetHistoryInvalid(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil)
	for _, msgs := range [][]Message{
		{{Role: "narrator", Content: "x"}},
		{{Role: RoleUser, Content: "x"}, {Role: RoleTool, ToolCallID: "call1", Content: "y"}},
		{{Role: RoleAssistant, ToolCalls: []grammar.Call{{ID: "a"}}}},
	} {
		if err := h.agent.SetHistory(msgs); err == nil {
			t.Errorf("SetHistory(%+v) accepted", msgs)
		}
	}
	if len(h.agent.History()) != 0 {
		t.Fatalf("a refused history was kept: %+v", h.agent.History())
	}
}

// TestAgentResetForgetsReads: after Reset the model has not seen the files
// it read before, so write_file refuses to replace one until it is read
// again.
func TestAgentResetForgetsReads(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := hermes(grammar.Call{Name: "read_file", Arguments: json.RawMessage(`{"path":"notes.txt"}`)})
	write := hermes(grammar.Call{Name: "write_file", Arguments: json.RawMessage(`{"path":"notes.txt","content":"x\n"}`)})
	a, _ := budgetAgent(t, 40000, reg, Options{}, read, "It says Buy milk.", write, "Not written.")
	var last Turn
	for _, msg := range []string{"What does notes.txt say?", "Replace notes.txt with x."} {
		if last, err = a.Send(t.Context(), msg, nil); err != nil {
			t.Fatal(err)
		}
		a.Reset()
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "Buy milk\n" {
		t.Errorf("notes.txt = %q: written after Reset without a read", b)
	}
	if len(last.Calls) != 1 || last.Calls[0].OK() || !strings.Contains(last.Calls[0].Summary(), "has not been read") {
		t.Errorf("write after Reset: %+v", last.Calls)
	}
}
