package bench

import (
	"strings"
	"testing"
)

func TestBFCLPrompt(t *testing.T) {
	c := &Case{ID: "simple_python_0", Functions: []byte(`[{"name": "a.b", "description": "Área\u007f\n\"x\"", "parameters": {"type": "dict", "properties": {"n": {"type": "float", "default": 1.50}, "m": {"type": "integer", "default": 12345678901234567890}}, "required": ["n"]}}, {"name": "c", "parameters": {}}]`)}
	p, err := BFCLPrompt(c)
	if err != nil {
		t.Fatal(err)
	}
	// As Python's json.dumps(json.loads(functions)) writes them (CPython's
	// output): U+007F escaped, 1.50 read as the float 1.5, ints exact.
	want := `Here is a list of functions in JSON format that you can invoke.
[{"name": "a.b", "description": "\u00c1rea\u007f\n\"x\" Note that the provided function is in Python 3 syntax.", "parameters": {"type": "dict", "properties": {"n": {"type": "float", "default": 1.5}, "m": {"type": "integer", "default": 12345678901234567890}}, "required": ["n"]}}, {"name": "c", "parameters": {}, "description": " Note that the provided function is in Python 3 syntax."}]

`
	if !strings.HasPrefix(p, "You are an expert in composing functions.") || !strings.HasSuffix(p, want) {
		t.Errorf("prompt:\n%s", p)
	}
	if !strings.Contains(p, "you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]") {
		t.Error("format instruction missing")
	}
	c.Messages = []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}}
	p, _ = BFCLPrompt(c)
	if !strings.HasSuffix(p, want+"\n\nBe brief.") {
		t.Errorf("system message not after the prompt:\n%q", p[len(p)-40:])
	}
	req, err := agentRequest(c, AgentOptions{Format: FormatBFCLPrompt})
	if err != nil {
		t.Fatal(err)
	}
	if req.Format != "pythonic" || req.ToolPrompt != p || len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.ToolChoice != "required" {
		t.Errorf("request %+v", req)
	}
	c.Functions = []byte(`{"name": "x"}`)
	if _, err := BFCLPrompt(c); err == nil {
		t.Error("functions that are not an array accepted")
	}
}
