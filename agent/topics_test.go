package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// offeredIn returns which of names the prompt defines as tools.
func offeredIn(prompt string, names ...string) []string {
	var out []string
	for _, n := range names {
		if strings.Contains(prompt, `"name": "`+n+`"`) || strings.Contains(prompt, `"name":"`+n+`"`) {
			out = append(out, n)
		}
	}
	return out
}

func TestAgentToolsByTopic(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	// An MCP-like tool without topics is always offered.
	if err := tools.Register(reg, "lookup_word", "Look a word up.", tools.Safe,
		func(context.Context, struct{ Word string }) (string, error) { return "ok", nil }); err != nil {
		t.Fatal(err)
	}
	names := []string{"ls", "read_file", "replace_lines", "get_current_time", "add_task", "update_task", "bash", "lookup_word"}
	// Each turn: the model's choice of what the request needs, then its
	// answer.
	eng := &fakeEngine{t: t, replies: []string{"none", "144", "clock", "2026", "change", "Done.", "tasks", "Done.", "!nogrammarwhat?", "Done."}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{ToolsByTopic: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		request string
		want    string
		need    string // Turn.Need
	}{
		{"Wie viel ist 12 mal 12?", "lookup_word", "none"},
		{"今年は何年？", "get_current_time,lookup_word", "clock"},
		// The clock stays offered.
		{"In notes.txt, change 'add a task' to 'Buy oat milk'.", "ls,read_file,replace_lines,get_current_time,lookup_word", "change"},
		{"reset", "", ""},
		{"Ajoute une tâche : livrer.", "add_task,update_task,lookup_word", "tasks"},
		// No choice could be read: every tool (the gate fails open).
		{"Hmm.", "ls,read_file,replace_lines,get_current_time,add_task,update_task,bash,lookup_word", ""},
	} {
		if tc.request == "reset" {
			a.Reset()
			continue
		}
		turn, err := a.Send(context.Background(), tc.request, nil)
		if err != nil {
			t.Fatal(err)
		}
		if turn.Need != tc.need {
			t.Errorf("turn %d %q: Need %q, want %q", i, tc.request, turn.Need, tc.need)
		}
		prompt := eng.prompts[len(eng.prompts)-1]
		if got := strings.Join(offeredIn(prompt, names...), ","); got != tc.want {
			t.Errorf("turn %d %q: offered %s, want %s", i, tc.request, got, tc.want)
		}
		choice := eng.prompts[len(eng.prompts)-2]
		if !strings.Contains(choice, tc.request) || strings.Contains(choice, `"name"`) {
			t.Errorf("turn %d: the choice's prompt does not hold the request alone, without tools:\n%s", i, choice)
		}
	}

	// A loaded conversation keeps the topics of the tools it called.
	b, err := New(NewCompleter(&fakeEngine{t: t, replies: []string{"Done."}}, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{ToolsByTopic: true})
	if err != nil {
		t.Fatal(err)
	}
	err = b.SetHistory([]Message{
		{Role: RoleUser, Content: "Remember: ship it."},
		{Role: RoleAssistant, ToolCalls: []grammar.Call{{ID: "c1", Name: "add_task", Arguments: []byte(`{"task": "ship it"}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Content: "task_1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(b.offered); got != "add_task,list_tasks,update_task,lookup_word" {
		t.Errorf("after SetHistory: offered %s, want the task tools and lookup_word", got)
	}

	// With tool choice required, a request about no tool's topics offers
	// every tool.
	only, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(NewCompleter(&fakeEngine{t: t, replies: []string{"none", hermes(grammar.Call{Name: "get_current_time", Arguments: []byte(`{}`)}), "x"}}, hermesInfo),
		only, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{ToolsByTopic: true, ToolChoice: grammar.Required, Limits: Limits{MaxIterations: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(context.Background(), "What is 12 times 12?", nil); err != nil {
		t.Fatal(err)
	}
	if len(c.offered) != len(c.defs) {
		t.Errorf("required: offered %s, want every tool", toolNames(c.offered))
	}
}

func toolNames(ts []grammar.Tool) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name)
	}
	return strings.Join(s, ",")
}
