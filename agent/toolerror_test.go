package agent

import (
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestToolErrorReachesModelAsItself checks that a built-in tool's failure
// on a real missing file reaches the model and the user as the tool's own
// error ("not_found: replace_lits does not exist"): no loop code in front,
// no absolute path of the root.
func TestToolErrorReachesModelAsItself(t *testing.T) {
	root := t.TempDir()
	reg, err := tools.Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{t: t, replies: []string{
		hermes(call("replace_lines", `{"path":"replace_lits","line_start":1,"line_end":1,"new_content":"x"}`)),
		"There is no such file.",
	}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{NoGrammar: true})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(t.Context(), "Fix replace_lits.", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	const want = "not_found: replace_lits does not exist; the working directory holds no files"
	rec := turn.Calls[0]
	if rec.Summary() != want || rec.Code != ToolExecutionFailed {
		t.Errorf("record: summary %q code %v, want %q", rec.Summary(), rec.Code, want)
	}
	hist := a.History()
	if hist[2].Role != RoleTool || hist[2].Content != want {
		t.Errorf("the model read %q, want %q", hist[2].Content, want)
	}
	if strings.Contains(eng.prompts[1], root) || strings.Contains(eng.prompts[1], "(501)") {
		t.Errorf("the prompt names the root or the loop's code:\n%s", eng.prompts[1])
	}
}
