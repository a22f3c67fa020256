package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
	"github.com/offgrid-ai/offgrid/tools"
)

// hermesInfo is a model whose template presents tools natively and uses
// Hermes calls (our tiny generated model's template).
var hermesInfo = ModelInfo{Template: synth.ChatTemplate, EOS: "<|endoftext|>", Architecture: "llama", Name: "synth"}

// gemmaInfo is the default model: Gemma 3, no chat template.
var gemmaInfo = ModelInfo{BOS: "<bos>", EOS: "<eos>", Architecture: "gemma3", Name: "gemma-3-270m"}

func hermes(calls ...grammar.Call) string { return grammar.Render(grammar.Hermes, calls) }

type harness struct {
	t      *testing.T
	dir    string
	eng    *fakeEngine
	agent  *Agent
	events []Event
}

func (h *harness) send(text string) Turn {
	h.t.Helper()
	turn, err := h.agent.Send(h.t.Context(), text, func(e Event) { h.events = append(h.events, e) })
	if err != nil {
		h.t.Fatalf("Send: %v", err)
	}
	return turn
}

// tokens returns the streamed text.
func (h *harness) tokens() string {
	var sb strings.Builder
	for _, e := range h.events {
		if e.Type == EventToken {
			sb.WriteString(e.Text)
		}
	}
	return sb.String()
}

func (h *harness) types() []EventType {
	var out []EventType
	for _, e := range h.events {
		if e.Type != EventToken && e.Type != EventStats {
			out = append(out, e.Type)
		}
	}
	return out
}

func newHarness(t *testing.T, info ModelInfo, opts Options, cfg permission.Config, prompter permission.Prompter, replies ...string) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), eng: &fakeEngine{t: t, replies: replies}}
	reg := testRegistry(t, h.dir)
	a, err := New(NewCompleter(h.eng, info), reg, testPolicy(t, cfg), prompter, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

func roles(msgs []Message) string {
	var r []string
	for _, m := range msgs {
		r = append(r, m.Role)
	}
	return strings.Join(r, ",")
}

func TestAgentSingleCall(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil,
		"Let me check.\n"+hermes(call("echo", `{"text":"hi"}`)),
		"The echo says hi.")
	turn := h.send("Echo hi.")
	if turn.Content != "The echo says hi." || len(turn.Calls) != 1 || turn.Replies != 2 || turn.Stop != nil {
		t.Fatalf("turn %+v", turn)
	}
	rec := turn.Calls[0]
	if !rec.OK() || rec.Result.Text() != "hi" || rec.Status() != "✅" || rec.ID == "" {
		t.Fatalf("record %+v", rec)
	}
	hist := h.agent.History()
	if got := roles(hist); got != "user,assistant,tool,assistant" {
		t.Fatalf("roles %s", got)
	}
	// The model reads the compact result; the record keeps the whole.
	if hist[2].Content != "hi" || hist[2].ToolCallID != rec.ID || hist[2].Name != "echo" {
		t.Fatalf("tool message %+v", hist[2])
	}
	if hist[1].Content != "Let me check." || len(hist[1].ToolCalls) != 1 {
		t.Fatalf("assistant message %+v", hist[1])
	}
	// Streamed text carries no markup.
	if got := h.tokens(); got != "Let me check.The echo says hi." {
		t.Fatalf("streamed %q", got)
	}
	want := []EventType{EventToolCall, EventToolResult, EventFinal}
	if got := h.types(); !equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// Auto mode with a native format: the grammar is lazy.
	if g := h.eng.reqs[0].Grammar; g == nil || !g.Lazy() {
		t.Fatalf("grammar %+v", g)
	}
	// The second prompt extends the first: the system prompt and tools
	// are not decoded again.
	p0, p1 := h.eng.prompts[0], h.eng.prompts[1]
	keep := strings.LastIndex(p0, "<|im_start|>assistant")
	if !strings.HasPrefix(p1, p0[:keep]) || h.eng.reqs[1].Prompt == nil {
		t.Fatalf("second prompt does not extend the first:\n%s\n---\n%s", p0, p1)
	}
	if !strings.Contains(p0, `"name": "echo"`) || !strings.Contains(p1, "<tool_response>") {
		t.Fatalf("prompts lack tools or results:\n%s", p1)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAgentParallelCalls(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{Parallel: true}, permission.Config{}, nil,
		hermes(call("add", `{"a":2,"b":3}`), call("echo", `{"text":"x"}`)),
		"5 and x.")
	turn := h.send("Add 2 and 3, and echo x.")
	if len(turn.Calls) != 2 || turn.Calls[0].Result.Text() != "5" || turn.Calls[1].Result.Text() != "x" {
		t.Fatalf("calls %+v", turn.Calls)
	}
	if turn.Calls[0].ID == turn.Calls[1].ID {
		t.Fatal("calls share an id")
	}
	if got := roles(h.agent.History()); got != "user,assistant,tool,tool,assistant" {
		t.Fatalf("roles %s", got)
	}
	// Without Parallel the grammar allows one call only.
	c := NewCompleter(h.eng, hermesInfo)
	for _, parallel := range []bool{false, true} {
		p, err := c.prompt(CompletionRequest{Tools: h.agent.defs, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		g := &inference.Grammar{GBNF: p.grammar.GBNF, Root: p.grammar.Root}
		two := hermes(call("echo", `{"text":"a"}`), call("echo", `{"text":"b"}`))
		if err := checkAccepts(g, two); (err == nil) != parallel {
			t.Errorf("parallel %v: two calls accepted: %v", parallel, err == nil)
		}
		if err := checkAccepts(g, hermes(call("echo", `{"text":"a"}`))); err != nil {
			t.Errorf("parallel %v: one call: %v", parallel, err)
		}
	}
}

func TestAgentPermission(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  permission.Answer
		written bool
	}{
		{"denied", permission.DenyOnce, false},
		{"allowed", permission.AllowOnce, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []permission.Request
			prompter := permission.PrompterFunc(func(_ context.Context, r permission.Request) (permission.Answer, error) {
				asked = append(asked, r)
				return tc.answer, nil
			})
			h := newHarness(t, hermesInfo, Options{}, permission.Config{Interactive: true}, prompter,
				hermes(call("write_note", `{"text":"hello"}`)),
				"Done.")
			turn := h.send("Write hello.")
			if len(asked) != 1 || asked[0].Tool != "write_note" || asked[0].Risk != tools.High || string(asked[0].Args) != `{"text":"hello"}` {
				t.Fatalf("asked %+v", asked)
			}
			_, err := os.Stat(filepath.Join(h.dir, "note.txt"))
			if (err == nil) != tc.written {
				t.Fatalf("note written: %v, want %v", err == nil, tc.written)
			}
			rec := turn.Calls[0]
			if rec.Denied == tc.written || !rec.Asked {
				t.Fatalf("record %+v", rec)
			}
			if !tc.written && (rec.Result.ErrorType != tools.TypePermissionDenied || !strings.Contains(h.agent.History()[2].Content, "permission_denied")) {
				t.Fatalf("denial not fed back: %s", h.agent.History()[2].Content)
			}
			want := []EventType{EventToolCall, EventPermission, EventToolResult, EventFinal}
			if got := h.types(); !equal(got, want) {
				t.Fatalf("events %v", got)
			}
		})
	}
}

func TestAgentValidationRetry(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{NoGrammar: true}, permission.Config{}, nil,
		hermes(call("add", `{"a":1}`)),
		hermes(call("add", `{"a":1,"b":2}`)),
		"It is 3.")
	turn := h.send("Add 1 and 2.")
	if turn.Stop != nil || turn.Content != "It is 3." || len(turn.Calls) != 2 {
		t.Fatalf("turn %+v", turn)
	}
	// The registry's own error, not hidden behind the loop's code.
	if c := turn.Calls[0]; c.Code != InvalidToolSignature || c.Result.ErrorType != tools.TypeValidationFailed ||
		!strings.HasPrefix(c.Result.Message(), "invalid arguments for add: ") || !strings.HasPrefix(c.Summary(), "validation_failed: invalid arguments for add: ") {
		t.Fatalf("first call %+v %s", c, c.Result)
	}
	if c := turn.Calls[1]; !c.OK() || c.Result.Text() != "3" {
		t.Fatalf("retry %+v", c)
	}
	if h.eng.reqs[0].Grammar != nil {
		t.Fatal("NoGrammar sent a grammar")
	}
	// The error reached the model.
	if !strings.Contains(h.eng.prompts[1], "validation_failed: invalid arguments for add: ") || strings.Contains(h.eng.prompts[1], "(502)") {
		t.Fatalf("second prompt lacks the error:\n%s", h.eng.prompts[1])
	}
}

func TestAgentRetriesExhausted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		code  Code
	}{
		{"invalid arguments", hermes(call("add", `{"a":1}`)), InvalidToolSignature},
		{"unknown tool", hermes(call("nope", `{}`)), ToolNotFound},
		{"malformed call", `<tool_call>{"name": "add", "argu`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, hermesInfo, Options{NoGrammar: true}, permission.Config{}, nil, tc.reply, tc.reply, tc.reply)
			turn := h.send("Add.")
			if !errors.Is(turn.Stop, ErrToolRetriesExhausted) || turn.Replies != 3 {
				t.Fatalf("turn %+v", turn)
			}
			if tc.code != 0 {
				if len(turn.Calls) != 3 || turn.Calls[2].Code != tc.code {
					t.Fatalf("calls %+v", turn.Calls)
				}
			}
			hist := h.agent.History()
			last := hist[len(hist)-1]
			if last.Role != RoleAssistant || !strings.Contains(last.Content, "ToolRetriesExhausted") {
				t.Fatalf("no note in the history: %+v", last)
			}
			if !strings.Contains(turn.Content, "failed 3 times") {
				t.Fatalf("message %q", turn.Content)
			}
			// The conversation goes on after a stopped turn.
			h.eng.replies = append(h.eng.replies, "OK.")
			if turn := h.send("Never mind."); turn.Content != "OK." {
				t.Fatalf("next turn %+v", turn)
			}
		})
	}
}

func TestAgentIterationLimit(t *testing.T) {
	r := func(s string) string { return hermes(call("echo", `{"text":"`+s+`"}`)) }
	h := newHarness(t, hermesInfo, Options{Limits: Limits{MaxIterations: 2}}, permission.Config{}, nil, r("a"), r("b"), r("c"))
	turn := h.send("Loop.")
	if !errors.Is(turn.Stop, ErrToolLoopLimitReached) || turn.Replies != 3 {
		t.Fatalf("turn %+v", turn)
	}
	ran := 0
	for _, c := range turn.Calls {
		if c.OK() {
			ran++
		}
	}
	if ran != 2 || len(turn.Calls) != 3 || turn.Calls[2].Code != ToolLoopLimitReached {
		t.Fatalf("calls %+v", turn.Calls)
	}
	if !strings.Contains(turn.Content, "2 rounds") {
		t.Fatalf("message %q", turn.Content)
	}
}

func TestAgentToolCallLimit(t *testing.T) {
	var calls []grammar.Call
	for range 4 {
		calls = append(calls, call("echo", `{"text":"x"}`))
	}
	h := newHarness(t, hermesInfo, Options{Parallel: true, Limits: Limits{MaxToolCalls: 3}}, permission.Config{}, nil, hermes(calls...))
	turn := h.send("Many.")
	if !errors.Is(turn.Stop, ErrToolLoopLimitReached) || turn.Replies != 1 || len(turn.Calls) != 4 {
		t.Fatalf("turn %+v", turn)
	}
	if !turn.Calls[2].OK() || turn.Calls[3].OK() || turn.Calls[3].Code != ToolLoopLimitReached {
		t.Fatalf("calls %+v", turn.Calls)
	}
}

func TestAgentNoneMode(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{ToolChoice: grammar.None}, permission.Config{}, nil, "Just text.")
	turn := h.send("Hi.")
	if turn.Content != "Just text." || len(turn.Calls) != 0 {
		t.Fatalf("turn %+v", turn)
	}
	if h.eng.reqs[0].Grammar != nil || strings.Contains(h.eng.prompts[0], "# Tools") || strings.Contains(h.eng.prompts[0], "echo") {
		t.Fatalf("none mode offered tools:\n%s", h.eng.prompts[0])
	}
}

func TestAgentRequiredMode(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{ToolChoice: grammar.Required}, permission.Config{}, nil,
		hermes(call("echo", `{"text":"hi"}`)), "Done.")
	turn := h.send("Hi.")
	if turn.Content != "Done." || len(turn.Calls) != 1 {
		t.Fatalf("turn %+v", turn)
	}
	g0, g1 := h.eng.reqs[0].Grammar, h.eng.reqs[1].Grammar
	if g0 == nil || g0.Lazy() {
		t.Fatalf("required: want a strict grammar, got %+v", g0)
	}
	if g1 == nil || !g1.Lazy() {
		t.Fatalf("after the call: want the lazy auto grammar, got %+v", g1)
	}
	// A text reply is impossible under the first grammar.
	if err := checkAccepts(g0, "Just text."); err == nil {
		t.Fatal("required grammar accepts text")
	}
}

func TestAgentGenericFormat(t *testing.T) {
	// The default model has no template: Gemma layout, generic format,
	// offgrid's own tool instructions.
	h := newHarness(t, gemmaInfo, Options{System: "Be brief."}, permission.Config{}, nil,
		`{"tool_calls": [{"name": "add", "arguments": {"a": 40, "b": 2}}]}`,
		`{"response": "It is \"42\"\nok"}`)
	turn := h.send("What is 40+2?")
	if turn.Content != "It is \"42\"\nok" || len(turn.Calls) != 1 || turn.Calls[0].Result.Text() != "42" {
		t.Fatalf("turn %+v", turn)
	}
	if got := h.tokens(); got != turn.Content {
		t.Fatalf("streamed %q", got)
	}
	p0, p1 := h.eng.prompts[0], h.eng.prompts[1]
	if !strings.HasPrefix(p0, "<bos><start_of_turn>user\nBe brief.\n\nYou can use these tools:\n- echo(text: string)") ||
		!strings.HasSuffix(p0, "What is 40+2?<end_of_turn>\n<start_of_turn>model\n") {
		t.Fatalf("prompt:\n%s", p0)
	}
	if g := h.eng.reqs[0].Grammar; g == nil || g.Lazy() {
		t.Fatalf("generic grammar must be strict: %+v", g)
	}
	// The reply is kept verbatim: everything generated stays in the cache.
	reused := h.eng.reqs[1].Prompt[:len(p0)+len(h.eng.replies[0])]
	if detok(reused) != p0+h.eng.replies[0] || !strings.HasPrefix(p1, p0+h.eng.replies[0]) {
		t.Fatalf("second prompt:\n%s", p1)
	}
	if !strings.Contains(p1, "<start_of_turn>user\nTool results:\nadd (call call00001): 42<end_of_turn>") {
		t.Fatalf("tool results missing:\n%s", p1)
	}
	if h.agent.Format() != grammar.Generic {
		t.Fatalf("format %s", h.agent.Format())
	}
}

func TestAgentInterrupted(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, "never shown", "Back.")
	ctx, cancel := context.WithCancel(t.Context())
	h.eng.block = func(c context.Context, i int) error {
		if i == 0 {
			cancel()
			<-c.Done()
			return c.Err()
		}
		return nil
	}
	_, err := h.agent.Send(ctx, "Long task.", nil)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	hist := h.agent.History()
	if got := roles(hist); got != "user,assistant" || !strings.Contains(hist[1].Content, "interrupted") {
		t.Fatalf("history %+v", hist)
	}
	if turn := h.send("Again."); turn.Content != "Back." {
		t.Fatalf("after interrupt: %+v", turn)
	}
}

func TestAgentStats(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, hermes(call("echo", `{"text":"a"}`)), "ok")
	turn := h.send("x")
	var stats []*Stats
	for _, e := range h.events {
		if e.Type == EventStats {
			stats = append(stats, e.Stats)
		}
	}
	if len(stats) != 2 || stats[1].PromptReused == 0 || stats[1].PromptDecoded >= stats[1].PromptTokens {
		t.Fatalf("stats %+v %+v", stats[0], stats[1])
	}
	if turn.Stats.PromptTokens != stats[0].PromptTokens+stats[1].PromptTokens {
		t.Fatalf("turn stats %+v", turn.Stats)
	}
}

// TestAgentToolSetChanges: a tool added to the registry between turns
// (an MCP server's list changed) is offered, and callable under the
// grammar, from the next turn; one removed is no longer offered.
func TestAgentToolSetChanges(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{AllowAll: true}, nil,
		"Nothing to do.",
		hermes(call("later", `{}`)),
		"Done.")
	h.send("Hi.")
	if strings.Contains(h.eng.prompts[0], `"later"`) {
		t.Fatal("the tool is offered before it exists")
	}
	later := &tools.Tool{Name: "later", Description: "A tool that came late.",
		Run: func(context.Context, json.RawMessage) (string, error) { return "late result", nil }}
	if err := h.agent.reg.Replace([]string{"write_note"}, []*tools.Tool{later}); err != nil {
		t.Fatal(err)
	}
	turn := h.send("Use the late tool.")
	if len(turn.Calls) != 1 || turn.Calls[0].Result.Text() != "late result" {
		t.Fatalf("turn %+v", turn)
	}
	if p := h.eng.prompts[1]; !strings.Contains(p, `"name": "later"`) || strings.Contains(p, `"name": "write_note"`) {
		t.Fatalf("the second turn's prompt does not offer the new tool set:\n%s", p)
	}
}
