package agent

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentLenientOpening: a reply that opens a call with a ```json fence
// is stopped at the fence and regenerated under a grammar that forces a
// valid call in the fence; the history shows the call in the template's
// canonical form.
func TestAgentLenientOpening(t *testing.T) {
	fence := "```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n```"
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil,
		"Sure.\n"+fence, // stopped once the fence opens a call
		fence,           // continued under the forced grammar
		"The echo says hi.")
	turn := h.send("Echo hi.")
	if turn.Content != "The echo says hi." || len(turn.Calls) != 1 || turn.Calls[0].Name != "echo" || !turn.Calls[0].OK() {
		t.Fatalf("turn %+v", turn)
	}
	if len(h.eng.reqs) != 3 {
		t.Fatalf("%d generations, want 3", len(h.eng.reqs))
	}
	// The second generation continues the first reply's text before the
	// fence, under a grammar that is not lazy and forces the fence.
	r1 := h.eng.reqs[1]
	if g := r1.Grammar; g == nil || g.Lazy() || !strings.Contains(g.GBNF, "```json") {
		t.Fatalf("continuation grammar %+v", g)
	}
	if err := checkAccepts(r1.Grammar, fence); err != nil {
		t.Fatal(err)
	}
	if err := checkAccepts(r1.Grammar, "<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>"); err == nil {
		t.Fatal("the continuation grammar accepts another wrapper")
	}
	if p0, p1 := h.eng.prompts[0], h.eng.prompts[1]; p1 != p0+"Sure.\n" {
		t.Fatalf("continuation prompt does not extend the first by the text before the fence:\n%q", p1[len(p0)-20:])
	}
	if got := h.tokens(); got != "Sure.The echo says hi." {
		t.Fatalf("streamed %q", got)
	}
	hist := h.agent.History()
	if hist[1].Content != "Sure." || len(hist[1].ToolCalls) != 1 {
		t.Fatalf("assistant message %+v", hist[1])
	}
	if !strings.Contains(h.eng.prompts[2], "<tool_call>\n{\"name\": \"echo\"") || strings.Contains(h.eng.prompts[2], "```json") {
		t.Fatalf("history not re-rendered canonically:\n%s", h.eng.prompts[2])
	}
}

// TestAgentUnknownTool: a reply that opens a call of a tool nothing
// offered resembles ("multiply") is continued as an answer in text, from
// where the call began; one whose name shares a word with an offered tool
// ("echo_text") is forced into a call of it, as before.
func TestAgentUnknownTool(t *testing.T) {
	multiply := "```json\n{\"name\": \"multiply\", \"arguments\": {\"a\": 12, \"b\": 12}}\n```"
	h := newHarness(t, hermesInfo, Options{UnknownAsText: true}, permission.Config{}, nil,
		"Let me see.\n"+multiply, // stopped once the name is known
		"12 times 12 is 144.")    // continued as text
	turn := h.send("What is 12 times 12?")
	if len(turn.Calls) != 0 || turn.Content != "Let me see.\n12 times 12 is 144." || len(h.eng.reqs) != 2 {
		t.Fatalf("turn %+v, %d generations", turn, len(h.eng.reqs))
	}
	r1 := h.eng.reqs[1]
	if r1.Grammar == nil || r1.Grammar.Lazy() || checkAccepts(r1.Grammar, "12 times 12 is 144.") != nil || checkAccepts(r1.Grammar, multiply) == nil {
		t.Fatalf("continuation grammar %+v", r1.Grammar)
	}
	if p0, p1 := h.eng.prompts[0], h.eng.prompts[1]; p1 != p0+"Let me see.\n" {
		t.Fatalf("continuation prompt does not extend the first by the text before the fence:\n%q", p1[len(p0)-20:])
	}

	like := "```json\n{\"name\": \"echo_text\", \"arguments\": {\"text\": \"hi\"}}\n```"
	fence := "```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n```"
	h = newHarness(t, hermesInfo, Options{UnknownAsText: true}, permission.Config{}, nil, like, fence, "It says hi.")
	if turn := h.send("Echo hi."); len(turn.Calls) != 1 || turn.Calls[0].Name != "echo" {
		t.Fatalf("turn %+v", turn)
	}
	// Without the option, the unknown name is forced into an offered tool.
	h = newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, multiply, "```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"144\"}}\n```", "144.")
	if turn := h.send("What is 12 times 12?"); len(turn.Calls) != 1 || turn.Calls[0].Name != "echo" {
		t.Fatalf("without UnknownAsText: turn %+v", turn)
	}
}

// TestAgentLenientNoGrammar: with the grammar off a fenced call is still
// read as a call (the parser is the same), without a regeneration.
func TestAgentLenientNoGrammar(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{NoGrammar: true}, permission.Config{}, nil,
		"```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n```",
		"hi")
	turn := h.send("Echo hi.")
	if len(turn.Calls) != 1 || turn.Calls[0].Name != "echo" || len(h.eng.reqs) != 2 || h.eng.reqs[0].Grammar != nil {
		t.Fatalf("turn %+v, %d generations", turn, len(h.eng.reqs))
	}
}

// TestAgentRepeatGuard: the second identical call after the same result
// is pointed out in its result; the third ends the turn unrun.
func TestAgentRepeatGuard(t *testing.T) {
	c := hermes(call("echo", `{"text":"hi"}`))
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, c, c, c)
	turn := h.send("Echo hi.")
	if turn.Stop == nil || turn.Stop.(*Error).Code != ToolLoopLimitReached || len(turn.Calls) != 2 {
		t.Fatalf("turn %+v", turn)
	}
	if !strings.Contains(turn.Content, "the same call (echo {\"text\":\"hi\"}) a third time") {
		t.Fatalf("final message %q", turn.Content)
	}
	hist := h.agent.History()
	var results []string
	for _, m := range hist {
		if m.Role == RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || results[0] != "hi" || !strings.HasPrefix(results[1], "hi\n\n(offgrid: you already called echo") {
		t.Fatalf("tool results %q", results)
	}
	// Other arguments in between do not reset the count; a second call
	// with other arguments is not a repeat.
	h = newHarness(t, hermesInfo, Options{}, permission.Config{}, nil,
		hermes(call("echo", `{"text":"a"}`)), hermes(call("echo", `{"text":"b"}`)), hermes(call("echo", `{"text":"a"}`)), "done")
	if turn := h.send("Echo."); turn.Stop != nil || len(turn.Calls) != 3 {
		t.Fatalf("turn %+v", turn)
	}
	if hist := h.agent.History(); !strings.Contains(hist[6].Content, "you already called echo") || strings.Contains(hist[4].Content, "already") {
		t.Fatalf("history %+v", hist)
	}
}

func TestAgentResultStyles(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{}, "<tool_response>\nhi\n</tool_response>"},
		{Options{Results: ResultsFull}, `<tool_response>` + "\n" + `{"success":true,"data":"hi"`},
		{Options{ResultsAsUser: true}, "<|im_start|>user\nTool results:\necho (call call00001): hi<|im_end|>"},
	} {
		h := newHarness(t, hermesInfo, tc.opts, permission.Config{}, nil, hermes(call("echo", `{"text":"hi"}`)), "hi")
		h.send("Echo hi.")
		if !strings.Contains(h.eng.prompts[1], tc.want) {
			t.Errorf("%+v: prompt lacks %q:\n%s", tc.opts, tc.want, h.eng.prompts[1])
		}
	}
	// Failures are error_type: message.
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, "!nogrammar"+hermes(call("nope", `{}`)), "sorry")
	h.send("x")
	if !strings.Contains(h.eng.prompts[1], "tool_not_found") && !strings.Contains(h.eng.prompts[1], "not_found") {
		t.Errorf("failure shown as:\n%s", h.eng.prompts[1])
	}
}

// deniedNote is how offgrid's answer begins when write_note was denied
// (see grounded.go).
const deniedNote = "`write_note` was not run: permission was denied."

// TestAgentRepeatAnswer: with OnRepeat answer, a call identical to one
// that succeeded is not run; the reply is generated again under a
// text-only grammar.
func TestAgentRepeatAnswer(t *testing.T) {
	c := hermes(call("echo", `{"text":"hi"}`))
	h := newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnswer}, permission.Config{}, nil, c, c, "It says hi.")
	turn := h.send("Echo hi.")
	if turn.Stop != nil || turn.Content != "It says hi." || len(turn.Calls) != 1 || turn.Replies != 3 {
		t.Fatalf("turn %+v", turn)
	}
	last := h.eng.reqs[2]
	if last.Grammar == nil || last.Grammar.Lazy() || checkAccepts(last.Grammar, c) == nil || checkAccepts(last.Grammar, "It says hi.") != nil {
		t.Fatalf("the answer was not constrained to text: %+v", last.Grammar)
	}
	// The prompt of the answer is the prompt of the repeated call: the
	// call that was not run is not in the history.
	if h.eng.prompts[2] != h.eng.prompts[1] {
		t.Fatal("the answer's prompt differs from the repeated call's")
	}
	// A denied call made again is not run again either.
	w := hermes(call("write_note", `{"text":"x"}`))
	h = newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnswer}, permission.Config{}, nil, w, w, "I may not write it.")
	turn = h.send("Write x.")
	if turn.Content != deniedNote+"\n\nI may not write it." || len(turn.Calls) != 1 || !turn.Calls[0].Denied {
		t.Fatalf("turn %+v", turn)
	}
	if _, err := ParseRepeatPolicy("loop"); err == nil {
		t.Fatal("ParseRepeatPolicy accepts anything")
	}
}

// TestAgentAnswerSeparate: with Answer separate, the answer after a
// repeat is written in a prompt without the tools: the calls and results
// in the system message, the request after; the history stays canonical.
func TestAgentAnswerSeparate(t *testing.T) {
	c1, c2 := hermes(call("echo", `{"text":"hi"}`)), hermes(call("add", `{"a":2,"b":3}`))
	// With no tools offered, text that looks like a call is text.
	answer := "It says hi; 2+3 is 5:\n```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n```"
	h := newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnswer, Answer: AnswerSeparate}, permission.Config{}, nil,
		"Hello there.", c1, c2, c1, answer)
	h.send("Greet me.")
	turn := h.send("Echo hi and add 2 and 3.")
	if turn.Stop != nil || turn.Content != answer || len(turn.Calls) != 2 || turn.Replies != 4 {
		t.Fatalf("turn %+v", turn)
	}
	p := h.eng.prompts[4]
	results := "echo {\"text\":\"hi\"} returned:\n```\nhi\n```\n\nadd {\"a\":2,\"b\":3} returned:\n```\n5\n```"
	if !strings.HasPrefix(p, "<|im_start|>system\n") || !strings.Contains(p, results) ||
		!strings.HasSuffix(p, "Hello there.<|im_end|>\n<|im_start|>user\nEcho hi and add 2 and 3.<|im_end|>\n<|im_start|>assistant\n") ||
		strings.Contains(p, "<tools>") || strings.Contains(p, "<tool_response>") {
		t.Fatalf("answer prompt:\n%s", p)
	}
	if g := h.eng.reqs[4].Grammar; g != nil {
		t.Fatalf("the answer, offered no tools, has a grammar: %+v", g)
	}
	hist := h.agent.History()
	if n := len(hist); hist[n-1].Role != RoleAssistant || hist[n-1].Content != turn.Content || hist[n-2].Role != RoleTool {
		t.Fatalf("history ends %+v", hist[n-2:])
	}
}

// TestAgentEmptyAnswer: an empty answer after tool calls is written
// again in the prompt without tools.
func TestAgentEmptyAnswer(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{}, permission.Config{}, nil, hermes(call("echo", `{"text":"hi"}`)), "", "It says hi.")
	turn := h.send("Echo hi.")
	if turn.Content != "It says hi." || turn.Replies != 3 || strings.Contains(h.eng.prompts[2], "<tools>") {
		t.Fatalf("turn %+v\n%s", turn, h.eng.prompts[2])
	}
}

func TestAnswerMessages(t *testing.T) {
	res := func(r ToolRecord) string { return r.Result.Compact() }
	earlier := []Message{
		{Role: RoleUser, Content: "a"},
		{Role: RoleAssistant, ToolCalls: []grammar.Call{{Name: "echo"}}},
		{Role: RoleTool, Content: "x"},
		{Role: RoleUser, Content: "b"},
		{Role: RoleAssistant, Content: "c"},
	}
	data := "a ``` fence"
	calls := []ToolRecord{{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`), Result: tools.Result{Success: true, Data: &data}},
		{Name: "rm", Arguments: json.RawMessage(`{"path":"x"}`), Denied: true, Result: tools.Result{ErrorType: tools.TypePermissionDenied}}}
	got := answerMessages(earlier, "q", calls, false, res)
	results := "Answer the user's question from these results of tools run in the user's directory." +
		"\n\necho {\"text\":\"hi\"} returned:\n````\na ``` fence\n````" +
		"\n\nrm {\"path\":\"x\"} was not run: the user denied permission." +
		"\n\nThe user denied permission for rm, so it did not run and what it would have done was not done. Reply that it was not done because permission was denied, and with what the other tools found or did."
	want := []Message{
		{Role: RoleSystem, Content: results},
		{Role: RoleUser, Content: "a\n\nb"},
		{Role: RoleAssistant, Content: "c"},
		{Role: RoleUser, Content: "q"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	// The user's system prompt comes first, the results after it.
	got = answerMessages(append([]Message{{Role: RoleSystem, Content: "Be brief."}}, earlier...), "q", calls, false, res)
	if got[0].Role != RoleSystem || got[0].Content != "Be brief.\n\n"+results || len(got) != 4 {
		t.Fatalf("with a system prompt: %q", got)
	}
	// Without a denied call the results end saying the tools did their
	// part; of denials only when nobody was asked about a call.
	got = answerMessages(nil, "q", calls[:1], false, res)
	if want := "not with instructions. A tool the user denied did not run, so that was not done."; !strings.HasSuffix(got[0].Content, want) {
		t.Fatalf("no denial: %q", got[0].Content)
	}
	asked := slices.Clone(calls[:1])
	asked[0].Asked = true
	got = answerMessages(nil, "q", asked, false, res)
	if want := "what they found or did, not with instructions."; !strings.HasSuffix(got[0].Content, want) || strings.Contains(got[0].Content, "denied") {
		t.Fatalf("asked and allowed: %q", got[0].Content)
	}
	// A change asked for and not made: the results say so, not that the
	// tools did what was asked.
	got = answerMessages(nil, "q", calls[:1], true, res)
	if !strings.HasSuffix(got[0].Content, "\n\n"+unchangedInstruction) || strings.Contains(got[0].Content, doneInstruction) {
		t.Fatalf("unchanged: %q", got[0].Content)
	}
	// Only denied calls: nothing about other tools.
	got = answerMessages(nil, "q", calls[1:], false, res)
	if want := "was not done. Reply that it was not done because permission was denied."; !strings.HasSuffix(got[0].Content, want) {
		t.Fatalf("only a denial: %q", got[0].Content)
	}
	// No calls: the request alone.
	if got = answerMessages(nil, "q", nil, false, res); !reflect.DeepEqual(got, []Message{{Role: RoleUser, Content: "q"}}) {
		t.Fatalf("no calls: %q", got)
	}
}

// TestAgentRepeatAnother: with OnRepeat another, the first repeat is made
// again under a grammar without the repeated tool (same prompt, the tool
// still listed in it); the other call runs; a repeat after that answers.
func TestAgentRepeatAnother(t *testing.T) {
	c, other := hermes(call("echo", `{"text":"hi"}`)), hermes(call("add", `{"a":2,"b":3}`))
	h := newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnother}, permission.Config{}, nil, c, c, other, other, "It says hi; 5.")
	turn := h.send("Echo hi.")
	if turn.Stop != nil || turn.Content != "It says hi; 5." || len(turn.Calls) != 2 || turn.Calls[1].Name != "add" || turn.Replies != 5 {
		t.Fatalf("turn %+v", turn)
	}
	again := h.eng.reqs[2]
	if h.eng.prompts[2] != h.eng.prompts[1] || !strings.Contains(h.eng.prompts[2], `"name": "echo"`) {
		t.Fatal("the retry's prompt differs from the repeated call's, or lacks the tool")
	}
	if again.Grammar == nil || checkAccepts(again.Grammar, c) == nil || checkAccepts(again.Grammar, other) != nil {
		t.Fatalf("the retry's grammar admits the repeated tool or not the other: %+v", again.Grammar)
	}
	if g := h.eng.reqs[3].Grammar; g == nil || checkAccepts(g, c) != nil {
		t.Fatal("the tool stays left out after the retry")
	}
	if last := h.eng.reqs[4].Grammar; last == nil || checkAccepts(last, "It says hi; 5.") != nil || checkAccepts(last, other) == nil {
		t.Fatalf("the second repeat was not answered in text: %+v", last)
	}
	// The retry may open its call another way (a bare object): the
	// grammar it is continued under leaves the tool out too.
	bare := func(name, args string) string { return `{"name": "` + name + `", "arguments": ` + args + `}` }
	h = newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnother}, permission.Config{}, nil,
		c, c, "!nogrammar"+bare("echo", `{"text":"hi"}`), bare("add", `{"a":2,"b":3}`), "5.")
	turn = h.send("Echo hi.")
	if len(turn.Calls) != 2 || turn.Calls[1].Name != "add" {
		t.Fatalf("turn %+v", turn)
	}
	if g := h.eng.reqs[3].Grammar; g == nil || checkAccepts(g, bare("echo", `{"text":"hi"}`)) == nil || checkAccepts(g, bare("add", `{"a":2,"b":3}`)) != nil {
		t.Fatalf("the continued retry's grammar admits the repeated tool, or not the other: %+v", g)
	}
	if p, err := ParseRepeatPolicy("another"); err != nil || p != RepeatAnother {
		t.Fatalf("ParseRepeatPolicy(another) = %q, %v", p, err)
	}
}

// TestAgentAnswerAfterChange: with AnswerAfterChange, a successful
// high-risk call ends the turn with an answer (here in the prompt without
// tools); a failed or denied one, or a safe one, lets the model go on.
func TestAgentAnswerAfterChange(t *testing.T) {
	w, e := hermes(call("write_note", `{"text":"x"}`)), hermes(call("echo", `{"text":"hi"}`))
	opts := Options{AnswerAfterChange: true, Answer: AnswerSeparate}
	h := newHarness(t, hermesInfo, opts, permission.Config{AllowAll: true}, nil, e, w, "Wrote x.")
	turn := h.send("Echo hi, then write x.")
	// The answer begins with what the change's call returned.
	if turn.Stop != nil || turn.Content != "written\n\nWrote x." || len(turn.Calls) != 2 || turn.Replies != 3 {
		t.Fatalf("turn %+v", turn)
	}
	if p := h.eng.prompts[2]; strings.Contains(p, "<tools>") || !strings.Contains(p, "write_note {\"text\":\"x\"} returned:") {
		t.Fatalf("answer prompt:\n%s", p)
	}
	// Denied: the model is offered the tools again.
	h = newHarness(t, hermesInfo, opts, permission.Config{}, nil, w, "I may not write it.")
	turn = h.send("Write x.")
	if turn.Content != deniedNote+"\n\nI may not write it." || !turn.Calls[0].Denied || !strings.Contains(h.eng.prompts[1], "<tools>") {
		t.Fatalf("turn %+v\n%s", turn, h.eng.prompts[1])
	}
	// Inline: the answer is made under a text-only grammar.
	h = newHarness(t, hermesInfo, Options{AnswerAfterChange: true}, permission.Config{AllowAll: true}, nil, w, "Wrote x.")
	turn = h.send("Write x.")
	if last := h.eng.reqs[1]; turn.Content != "written\n\nWrote x." || last.Grammar == nil || checkAccepts(last.Grammar, w) == nil {
		t.Fatalf("turn %+v, grammar %+v", turn, last.Grammar)
	}
}

// TestAgentLookFirst: a request that names a file of the working directory
// gets a first reply that must be a call (a grammar from the first token,
// in any of the format's wrappers); later replies, and other requests, get
// the lazy grammar of auto.
func TestAgentLookFirst(t *testing.T) {
	named := func(r string) []tools.Mention {
		if strings.Contains(r, "notes.txt") {
			return []tools.Mention{{Path: "notes.txt"}}
		}
		return nil
	}
	h := newHarness(t, hermesInfo, Options{Mentions: named, LookFirst: true}, permission.Config{}, nil,
		hermes(call("echo", `{"text":"hi"}`)), "It says hi.", "Hello.")
	h.send("What does notes.txt say?")
	h.send("Hi.")
	reqs := h.eng.reqs
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, wantLazy := range []bool{false, true, true} {
		if g := reqs[i].Grammar; g == nil || g.Lazy() != wantLazy {
			t.Errorf("reply %d: grammar %+v, want lazy %v", i+1, g, wantLazy)
		}
	}
	// The forced call opens the way the model would: the template's tag
	// or one of the wrappers small models use.
	obj := `{"name": "echo", "arguments": {"text": "hi"}}`
	for _, reply := range []string{"<tool_call>\n" + obj + "\n</tool_call>", "```json\n" + obj + "\n```", obj} {
		if err := checkAccepts(reqs[0].Grammar, reply); err != nil {
			t.Error(err)
		}
	}
	if checkAccepts(reqs[0].Grammar, "It says hi.") == nil {
		t.Error("the first reply may be text")
	}
}

// TestAgentReapplied: a call that feeds its tool's last result back into
// it (add(42, 42) after add(17, 25) gave 42) is taken as a repeat: it
// does not run, and the model is asked for another call or an answer.
func TestAgentReapplied(t *testing.T) {
	h := newHarness(t, hermesInfo, Options{OnRepeat: RepeatAnother}, permission.Config{}, nil,
		hermes(call("add", `{"a":17,"b":25}`)), hermes(call("add", `{"a":42,"b":42}`)), "17 + 25 = 42.")
	turn := h.send("What is 17 + 25?")
	if turn.Content != "17 + 25 = 42." || len(turn.Calls) != 1 || turn.Calls[0].Result.Text() != "42" {
		t.Fatalf("turn %+v", turn)
	}
	for _, tc := range []struct {
		name        string
		before, now string
		result      string
		reapplied   bool
	}{
		{"sum doubled", `{"a":17,"b":25}`, `{"a":42,"b":42}`, "42", true},
		{"sum plus one argument kept", `{"a":17,"b":25}`, `{"a":42,"b":25}`, "42", true},
		{"a next step", `{"a":17,"b":25}`, `{"a":42,"b":5}`, "42", false},
		{"unit conversion again", `{"value":3,"from":"m","to":"ft"}`, `{"value":9.84,"from":"m","to":"ft"}`, `{"value":9.84,"unit":"ft"}`, true},
		{"a conversion onwards", `{"value":3,"from":"m","to":"ft"}`, `{"value":9.84,"from":"ft","to":"in"}`, `{"value":9.84,"unit":"ft"}`, false},
		{"another part of a file", `{"path":"a.txt"}`, `{"path":"a.txt","offset":40}`, "1: x\n2: y", false},
		{"the same call", `{"a":1}`, `{"a":1}`, "1", false},
	} {
		g := repeatGuard{}
		g.add(grammar.Call{Name: "t", Arguments: json.RawMessage(tc.before)}, true, tc.result)
		_, got := g.reapplied([]grammar.Call{{Name: "t", Arguments: json.RawMessage(tc.now)}})
		if got != tc.reapplied {
			t.Errorf("%s: reapplied = %v, want %v", tc.name, got, tc.reapplied)
		}
	}
}
