package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentToolExamples: with ToolExamples the offered tools' examples
// are in the system message of every prompt that offers tools, each
// call in the format's own form, after the user's system prompt; an
// example naming a tool that is not offered is left out; the separate
// answer's prompt has none; without the option there are none.
func TestAgentToolExamples(t *testing.T) {
	newAgent := func(opts Options, replies ...string) (*Agent, *fakeEngine) {
		t.Helper()
		reg := testRegistry(t, t.TempDir())
		echo, _ := reg.Lookup("echo")
		echo.Examples = []tools.Example{
			{Request: "Say hi", Arguments: json.RawMessage(`{"text": "hi"}`)},
			{Request: "Sum 2 and 3", Tool: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3}`), Then: "then answer"},
			{Request: "Fly", Tool: "fly", Arguments: json.RawMessage(`{}`)},
		}
		eng := &fakeEngine{t: t, replies: replies}
		a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{}), nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		return a, eng
	}
	c := hermes(call("echo", `{"text":"yo"}`))
	a, eng := newAgent(Options{ToolExamples: true, System: "Be brief.", OnRepeat: RepeatAnswer, Answer: AnswerSeparate}, c, c, "It says yo.")
	if _, err := a.Send(t.Context(), "Echo yo.", nil); err != nil {
		t.Fatal(err)
	}
	want := "<|im_start|>system\nBe brief.\n\nCall a tool when the request needs one;"
	say := "- \"Say hi\" → <tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>\n" +
		"- \"Sum 2 and 3\" → <tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}\n</tool_call>, then answer\n" +
		"- \"What is 7 times 8?\" → no tool; answer: 56"
	for i, p := range eng.prompts[:2] {
		if !strings.HasPrefix(p, want) || !strings.Contains(p, say) || strings.Contains(p, "Fly") || !strings.Contains(p, "<tools>") {
			t.Fatalf("prompt %d:\n%s", i, p)
		}
	}
	if p := eng.prompts[2]; strings.Contains(p, "Examples of requests") || !strings.Contains(p, "Be brief.") {
		t.Fatalf("the separate answer's prompt:\n%s", p)
	}
	// No system prompt: the examples open one.
	a, eng = newAgent(Options{ToolExamples: true}, "Hi.")
	a.Send(t.Context(), "Hello.", nil)
	if !strings.HasPrefix(eng.prompts[0], "<|im_start|>system\nYou are a helpful assistant.\n\nCall a tool") {
		t.Fatalf("without a system prompt:\n%s", eng.prompts[0])
	}
	a, eng = newAgent(Options{}, "Hi.")
	a.Send(t.Context(), "Hello.", nil)
	if strings.Contains(eng.prompts[0], "Examples of requests") {
		t.Fatalf("examples without ToolExamples:\n%s", eng.prompts[0])
	}
}
