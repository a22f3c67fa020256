package agent

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/models/synth"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenTools are the tools of the golden prompts; properties are
// deliberately not in alphabetical order.
func goldenTools(t *testing.T) []grammar.Tool {
	t.Helper()
	tl, err := grammar.ParseTools([]byte(`[
{"type":"function","function":{"name":"ls","description":"List a directory.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"directory"},"all":{"type":"boolean"}},"required":["path"]}}},
{"type":"function","function":{"name":"add","description":"Add numbers.","parameters":{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"integer"}},"required":["b","a"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// goldenConversation has every kind of message: system, user, an
// assistant call, a tool result, an answer and a new question.
var goldenConversation = []Message{
	{Role: RoleSystem, Content: "You are offgrid's assistant."},
	{Role: RoleUser, Content: "What is in src?"},
	{Role: RoleAssistant, ToolCalls: []grammar.Call{{ID: "call00001", Name: "ls", Arguments: json.RawMessage(`{"path":"src","all":true}`)}}},
	{Role: RoleTool, ToolCallID: "call00001", Name: "ls", Content: `{"success":true,"data":"main.go\nütf8 ✓.txt","error_message":null,"error_type":"none","metadata":{"execution_time_ms":1,"data_size_bytes":20,"timestamp":0}}`},
	{Role: RoleAssistant, Content: "Two files: main.go and ütf8 ✓.txt."},
	{Role: RoleUser, Content: "Thanks!"},
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file.\n--- got:\n%s\n--- want:\n%s", name, got, want)
	}
}

func TestGoldenPrompts(t *testing.T) {
	for _, tc := range []struct {
		golden string
		info   ModelInfo
		format grammar.Format
		native bool
	}{
		// Our tiny model's template: native Hermes tools. The golden file
		// was checked against Python's jinja2 (testdata/render.py).
		{"synth_hermes.golden", hermesInfo, grammar.Hermes, true},
		// The default model (Gemma 3 270M) has no template: Gemma layout,
		// generic format, offgrid's tool instructions.
		{"gemma_generic.golden", gemmaInfo, grammar.Generic, false},
		// The same conversation in the other family layouts.
		{"chatml_generic.golden", ModelInfo{Architecture: "qwen2"}, grammar.Generic, false},
		{"llama3_generic.golden", ModelInfo{Architecture: "llama", BOS: "<|begin_of_text|>"}, grammar.Generic, false},
		{"mistral_generic.golden", ModelInfo{Architecture: "mistral", BOS: "<s>", EOS: "</s>"}, grammar.Generic, false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			c := NewCompleter(nil, tc.info)
			if got := c.Format(); got != tc.format {
				t.Fatalf("format %s, want %s", got, tc.format)
			}
			if got := c.tmpl.native; got != tc.native {
				t.Fatalf("native %v", got)
			}
			if w := c.Warnings(); len(w) > 0 {
				t.Fatalf("warnings %v", w)
			}
			p, err := c.prompt(CompletionRequest{Messages: goldenConversation, Tools: goldenTools(t)})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.warnings) > 0 {
				t.Fatalf("warnings %v", p.warnings)
			}
			checkGolden(t, tc.golden, p.text)
		})
	}
}

// TestPromptPrefixStable checks the property KV-cache reuse rests on: the
// prompt for a conversation is a prefix of the prompt after more turns,
// up to the generation prompt.
func TestPromptPrefixStable(t *testing.T) {
	for _, info := range []ModelInfo{hermesInfo, gemmaInfo, {Architecture: "qwen2"}, {BOS: "<|begin_of_text|>"}, {Architecture: "mistral", BOS: "<s>", EOS: "</s>"}} {
		c := NewCompleter(nil, info)
		var prev string
		for n := 2; n <= len(goldenConversation); n++ {
			p, err := c.prompt(CompletionRequest{Messages: goldenConversation[:n], Tools: goldenTools(t)})
			if err != nil {
				t.Fatal(err)
			}
			if prev != "" {
				// Where the previous prompt's generation prompt began.
				keep := len(prev)
				for _, gen := range []string{"<|im_start|>assistant", "<start_of_turn>model", "<|start_header_id|>assistant"} {
					if i := strings.LastIndex(prev, gen); i >= 0 && strings.HasSuffix(strings.TrimSpace(prev), strings.TrimSpace(prev[i:])) {
						keep = i
					}
				}
				if goldenConversation[n-1].Role == RoleUser && !strings.HasPrefix(p.text, prev[:keep]) {
					t.Errorf("%s: prompt of %d messages does not extend the one of %d:\n%s\n---\n%s", c.tmpl.family, n, n-1, prev, p.text)
				}
			}
			prev = p.text
		}
	}
}

func TestTemplateRaises(t *testing.T) {
	info := ModelInfo{Architecture: "qwen2", Template: `{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`}
	c := NewCompleter(nil, info)
	// Without a system message the template renders.
	p, err := c.prompt(CompletionRequest{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if err != nil || p.text != "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" || len(p.warnings) != 0 {
		t.Fatalf("%q %v %v", p.text, err, p.warnings)
	}
	_, err = c.tmpl.render([]Message{{Role: RoleSystem, Content: "x"}, {Role: RoleUser, Content: "hi"}}, nil, true)
	if !errors.Is(err, ErrTemplate) || !strings.Contains(err.Error(), "raised an exception: System role not supported") {
		t.Fatalf("render error: %v", err)
	}
	// Complete falls back to the family layout with a warning.
	p, err = c.prompt(CompletionRequest{Messages: []Message{{Role: RoleSystem, Content: "Be kind."}, {Role: RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.text != "<|im_start|>system\nBe kind.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" {
		t.Fatalf("fallback prompt %q", p.text)
	}
	if len(p.warnings) != 1 || !strings.Contains(p.warnings[0], "System role not supported") || !strings.Contains(p.warnings[0], "chatml layout") {
		t.Fatalf("warnings %v", p.warnings)
	}
}

func TestTemplateBroken(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"syntax", `{% for m in messages %}{{ m.content }`},
		{"unclosed block", `{% if messages %}hi`},
		{"include", `{% include "/etc/passwd" %}`},
		{"bad filter", `{{ messages | no_such_filter }}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCompleter(nil, ModelInfo{Architecture: "gemma3", BOS: "<bos>", Template: tc.src})
			p, err := c.prompt(CompletionRequest{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			if p.text != "<bos><start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n" {
				t.Fatalf("prompt %q", p.text)
			}
			if len(c.Warnings())+len(p.warnings) == 0 {
				t.Fatal("no warning")
			}
			if strings.Contains(p.text, "root:") {
				t.Fatal("the template read a file")
			}
		})
	}
}

func TestToJSON(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{{ tools[0].function.parameters | tojson }}`, `{"type": "object", "properties": {"path": {"type": "string", "description": "directory"}, "all": {"type": "boolean"}}, "required": ["path"]}`},
		{`{{ tools[1].function.parameters.properties | tojson(indent=2) }}`, "{\n  \"b\": {\n    \"type\": \"integer\"\n  },\n  \"a\": {\n    \"type\": \"integer\"\n  }\n}"},
		{`{{ tools[1].function.parameters.properties | tojson(sort_keys=true) }}`, `{"a": {"type": "integer"}, "b": {"type": "integer"}}`},
		{`{{ tools[1].function.parameters.required | tojson(separators=[",", ":"]) }}`, `["b","a"]`},
		{`{{ messages[0].content | tojson }}`, `"ü \"q\"\n"`},
		{`{{ messages[0].content | tojson(ensure_ascii=true) }}`, `"\u00fc \"q\"\n"`},
		{`{{ {"z": 1, "y": [1.5, 2.0, none, true]} | tojson }}`, `{"z": 1, "y": [1.5, 2.0, null, true]}`},
		{`{{ [1234567.5, 0.00001, -0.0] | tojson }}`, `[1234567.5, 1e-05, -0.0]`}, // Python's float repr
		{`{% for k, v in tools[1].function.parameters.properties.items() %}{{ k }}{% endfor %}`, `ab`},
		{`{{ strftime_now("%d %b %Y") }}|{{ date_string }}`, `02 Jan 2026|02 Jan 2026`},
		{`{% if tools[0].function.parameters.properties.path is defined %}yes{% endif %}`, `yes`},
	} {
		tmpl, err := parseJinja(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		ct := &chatTemplate{tmpl: tmpl, now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
		got, err := ct.render([]Message{{Role: RoleUser, Content: "ü \"q\"\n"}}, goldenTools(t), false)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		template string
		want     grammar.Format
	}{
		{"", grammar.Generic},
		{synth.ChatTemplate, grammar.Hermes},
		{"{{ '[TOOL_CALLS]' }}", grammar.Mistral},
		{"<|start_header_id|>ipython<|end_header_id|>", grammar.Llama3},
		{"{{ '<|python_tag|>' + x }}", grammar.Llama3},
		{"[func_name1(params_name1=params_value1)]", grammar.Pythonic},
		{"<start_of_turn>user", grammar.Generic},
	} {
		if got := DetectFormat(tc.template); got != tc.want {
			t.Errorf("%.40q: %s, want %s", tc.template, got, tc.want)
		}
	}
	for _, s := range []string{"", "auto"} {
		if f, err := ParseFormat(s); err != nil || f != FormatAuto {
			t.Errorf("ParseFormat(%q) = %v, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded")
	}
}

func TestFamilyOf(t *testing.T) {
	for _, tc := range []struct {
		info ModelInfo
		want family
	}{
		{ModelInfo{Architecture: "gemma3"}, gemma},
		{ModelInfo{Architecture: "llama", BOS: "<|begin_of_text|>"}, llama3},
		{ModelInfo{Architecture: "llama", Template: "[INST] x"}, mistral},
		{ModelInfo{Architecture: "qwen2"}, chatML},
		{ModelInfo{Architecture: "llama", Template: "<start_of_turn>"}, gemma},
	} {
		if got := familyOf(tc.info); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.info, got, tc.want)
		}
	}
}
