package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// windowEngine is the scripted engine with a context window (in its
// tokens, which are bytes).
type windowEngine struct {
	*fakeEngine
	window int
}

func (w windowEngine) Size() int { return w.window }

func byteCount(s string) (int, error) { return len(s), nil }

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d: line %d of the file\n", i, i)
	}
	return b.String()
}

func TestFitterCutsOnLines(t *testing.T) {
	identity := func(s string) string { return s }
	read := numberedLines(3000)
	plain := strings.Repeat("0123456789\n", 5000)
	long := strings.Repeat("x", 10000) + "\nsecond\n"
	tests := []struct {
		name, tool, data string
		limit            int
		wantCut          bool
		wantNote         string
	}{
		{"fits", "read_file", numberedLines(3), 1000, false, ""},
		{"read_file", "read_file", read, 3000, true, "[showing lines 1–%d of 3,000; call read_file with offset=%d to continue, or answer from these lines]\n"},
		{"read_file window", "read_file", read[strings.Index(read, "\n2000: ")+1:], 2000, true, "[showing lines 2,000–%d of 3,000; call read_file with offset=%d to continue, or answer from these lines]\n"},
		{"read_file more", "read_file", numberedLines(400) + "[more lines follow; continue with offset=401]\n", 2000, true, "[showing lines 1–%d; call read_file with offset=%d to continue, or answer from these lines]\n"},
		{"read_file stopped", "read_file", numberedLines(400) + "[stopped at line 400 of 3000 to keep the result short; continue with offset=401]\n", 2000, true, "[showing lines 1–%d of 3,000; call read_file with offset=%d to continue, or answer from these lines]\n"},
		{"generic", "grep_search", plain, 1000, true, "[output cut: %d of 5,000 lines shown; answer from these, or narrow the request]\n"},
		{"one long line", "bash", long, 500, true, "\n[output cut: only the start of line 1 of 2 lines shown]\n"},
		{"no room", "bash", plain, 0, true, "[output of 5,000 lines not shown: the context window has no room left for it; answer with what you have]\n"},
		{"no room read_file", "read_file", read, 10, true, "[output of 3,000 lines not shown: the context window has no room left for it; answer with what you have]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fitter{count: byteCount, render: identity, note: cutNote(tt.tool, tt.data, lineEnds(tt.data))}
			out, cut, err := f.fit(tt.data, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.wantCut {
				if cut != nil || out != tt.data {
					t.Fatalf("cut a text that fits: %+v", cut)
				}
				return
			}
			if cut == nil {
				t.Fatal("not cut")
			}
			if cut.Bytes > 0 && len(out) > tt.limit {
				t.Fatalf("%d bytes, limit %d", len(out), tt.limit)
			}
			if !strings.HasSuffix(out, cut.Note) || !strings.HasPrefix(tt.data, strings.TrimSuffix(out, cut.Note)) {
				t.Fatalf("not a prefix and its note:\n%s", out)
			}
			if cut.Lines > 0 {
				// Whole lines, and the most that fit: one more does not.
				if !strings.HasSuffix(strings.TrimSuffix(out, cut.Note), "\n") {
					t.Fatalf("cut inside a line:\n%s", out)
				}
				ends := lineEnds(tt.data)
				if more := tt.data[:ends[cut.Lines]] + f.note(cut.Lines+1, len(ends), false); len(more) <= tt.limit {
					t.Fatalf("%d lines shown, %d would fit", cut.Lines, cut.Lines+1)
				}
			}
			if strings.Contains(tt.wantNote, "%d") {
				last := cut.Lines
				if tt.name == "read_file window" {
					last = 1999 + cut.Lines
				}
				want := fmt.Sprintf(tt.wantNote, last)
				if strings.HasPrefix(tt.wantNote, "[showing") {
					want = fmt.Sprintf(strings.Replace(tt.wantNote, "–%d", "–%s", 1), thousands(last), last+1)
				}
				if cut.Note != want {
					t.Fatalf("note %q, want %q", cut.Note, want)
				}
			} else if tt.wantNote != "" && cut.Note != tt.wantNote {
				t.Fatalf("note %q, want %q", cut.Note, tt.wantNote)
			}
			if cut.TotalLines != len(lineEnds(tt.data)) || cut.TotalBytes != len(tt.data) {
				t.Fatalf("totals %+v", cut)
			}
		})
	}
}

// bigRegistry has a safe tool "dump" that prints n numbered lines.
func bigRegistry(t *testing.T) *tools.Registry {
	reg := tools.NewRegistry(tools.WithMaxOutput(0))
	err := reg.Add(&tools.Tool{Name: "dump", Description: "Print lines.", Risk: tools.Safe,
		Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100000}},"required":["n"]}`),
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			var a struct{ N int }
			if err := json.Unmarshal(raw, &a); err != nil {
				return "", err
			}
			return strings.Repeat("some output of the command\n", a.N), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func budgetAgent(t *testing.T, window int, reg *tools.Registry, opts Options, replies ...string) (*Agent, windowEngine) {
	t.Helper()
	eng := windowEngine{&fakeEngine{t: t, replies: replies}, window}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, eng
}

func dump(n int) string {
	return hermes(grammar.Call{Name: "dump", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))})
}

// TestAgentFitsToolResult: a 2.7 MB result is cut to its share of the
// window; the prompt never exceeds the window less the reply budget; the
// record and its JSON say how much the model saw.
func TestAgentFitsToolResult(t *testing.T) {
	const window, reply = 6000, 200
	a, eng := budgetAgent(t, window, bigRegistry(t), Options{MaxTokens: reply}, dump(100000), "That is a lot of output.")
	var events []Event
	turn, err := a.Send(t.Context(), "dump everything", func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if turn.Content != "That is a lot of output." || len(turn.Calls) != 1 {
		t.Fatalf("turn: %+v", turn)
	}
	for i, p := range eng.prompts {
		if len(p)+reply > window {
			t.Errorf("prompt %d: %d tokens + %d reply > %d", i+1, len(p), reply, window)
		}
	}
	cut := turn.Calls[0].Cut
	if cut == nil || cut.TotalLines != 100000 || cut.Lines == 0 || cut.Lines >= 1000 {
		t.Fatalf("cut: %+v", cut)
	}
	// Half of what remained: the result takes at most about half of the
	// room, not all of it.
	before := len(eng.prompts[0]) + len(dump(100000))
	if shown := len(eng.prompts[1]) - before; shown > (window-reply-before)/2+200 {
		t.Errorf("the result took %d tokens of %d left", shown, window-reply-before)
	}
	want := fmt.Sprintf("[output cut: %d of 100,000 lines shown; answer from these, or narrow the request]", cut.Lines)
	if !strings.Contains(eng.prompts[1], want) {
		t.Fatalf("the model was not told %q", want)
	}
	if full := turn.Calls[0].Result.Text(); strings.Count(full, "\n") != 100000 {
		t.Fatal("the user's record lost the full result")
	}
	var rec *ToolRecord
	for _, e := range events {
		if e.Type == EventToolResult {
			rec = e.Record
		}
	}
	b, _ := json.Marshal(rec)
	if !strings.Contains(string(b), fmt.Sprintf(`"cut":{"lines":%d,"total_lines":100000`, cut.Lines)) {
		t.Fatalf("--json record does not say it was cut: %.300s", b)
	}
}

// TestAgentAnswerSeparatelyFits: an empty answer after a huge result is
// written again in a prompt without tools; that prompt fits too.
func TestAgentAnswerSeparatelyFits(t *testing.T) {
	const window, reply = 6000, 200
	a, eng := budgetAgent(t, window, bigRegistry(t), Options{MaxTokens: reply}, dump(100000), "", "Plenty of output.")
	turn, err := a.Send(t.Context(), "dump everything", nil)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Content != "Plenty of output." || len(eng.prompts) != 3 {
		t.Fatalf("turn %q after %d replies", turn.Content, len(eng.prompts))
	}
	if p := eng.prompts[2]; len(p)+reply > window || strings.Contains(p, `"name": "dump"`) || !strings.Contains(p, "[output cut: ") {
		t.Fatalf("answer prompt (%d tokens):\n%s", len(p), p[max(len(p)-400, 0):])
	}
}

// TestAgentReadFileNote: the real read_file on a 3,000-line file (197 KB;
// the tool stops at 60 KB and counts the lines); the model is told which
// lines it sees, of how many, and where to continue.
func TestAgentReadFileNote(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "This is line %d of big.txt, with some text to make it long.\n", i)
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := hermes(grammar.Call{Name: "read_file", Arguments: json.RawMessage(`{"path":"big.txt"}`)})
	a, eng := budgetAgent(t, 40000, reg, Options{MaxTokens: 500}, read, "Done.")
	turn, err := a.Send(t.Context(), "Read big.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := turn.Calls[0].Cut
	if cut == nil {
		t.Fatal("not cut")
	}
	want := fmt.Sprintf("%d: This is line %d of big.txt, with some text to make it long.\n[showing lines 1–%d of 3,000; call read_file with offset=%d to continue, or answer from these lines]",
		cut.Lines, cut.Lines, cut.Lines, cut.Lines+1)
	if !strings.Contains(eng.prompts[1], want) {
		p := eng.prompts[1]
		t.Fatalf("want %q in the prompt; its end:\n%s", want, p[max(len(p)-600, 0):])
	}
}

// TestAgentCompacts: a long session in a small window. Every prompt
// fits; older tool results are summarised before turns are removed; the
// system prompt and the current request always stay; each compaction is
// recorded; and between compactions the KV prefix is reused, only the
// new suffix being decoded.
func TestAgentCompacts(t *testing.T) {
	const window, reply = 5000, 100
	var replies []string
	for i := range 30 {
		replies = append(replies, dump(20), fmt.Sprintf("Answer %d.", i))
	}
	a, eng := budgetAgent(t, window, bigRegistry(t), Options{System: "You are terse.", MaxTokens: reply}, replies...)
	var compacts []Event
	for i := range 30 {
		turn, err := a.Send(t.Context(), fmt.Sprintf("Request number %d", i), func(e Event) {
			if e.Type == EventCompact {
				compacts = append(compacts, e)
			}
		})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if want := fmt.Sprintf("Answer %d.", i); turn.Content != want {
			t.Fatalf("turn %d: %q", i, turn.Content)
		}
	}
	for i, p := range eng.prompts {
		if len(p)+reply > window {
			t.Fatalf("prompt %d: %d tokens + %d > %d", i+1, len(p), reply, window)
		}
		if !strings.Contains(p, "You are terse.") || !strings.Contains(p, `"name": "dump"`) {
			t.Fatalf("prompt %d lost the system prompt or the tools", i+1)
		}
		if want := fmt.Sprintf("Request number %d", i/2); !strings.Contains(p, want) {
			t.Fatalf("prompt %d lost the current request %q", i+1, want)
		}
	}
	cs := a.Compactions()
	if len(cs) == 0 || len(cs) != len(compacts) {
		t.Fatalf("%d compactions, %d events", len(cs), len(compacts))
	}
	if cs[0].Results == 0 || cs[0].After >= cs[0].Before {
		t.Fatalf("first compaction: %+v", cs[0])
	}
	turns := 0
	for _, c := range cs {
		turns += c.Turns
	}
	if turns == 0 {
		t.Fatal("30 turns in 5,000 tokens and no turn removed")
	}
	// Results are summarised, oldest first, before any turn goes: the
	// first compaction keeps every turn.
	if cs[0].Turns != 0 {
		t.Errorf("the first compaction removed turns: %+v", cs[0])
	}
	// KV reuse: a prompt that follows one without compaction in between
	// decodes only its suffix.
	compacted := 0
	for i := 1; i < len(eng.reqs); i++ {
		prev, cur := eng.prompts[i-1], eng.prompts[i]
		// (The template ends a prompt with "assistant\n" and shows a
		// reply as "assistant<tool_call>": one token differs.)
		if len(prev)-commonLen(prev, cur) <= 1 {
			continue
		}
		compacted++
		if !strings.HasPrefix(cur, eng.prompts[0][:strings.Index(eng.prompts[0], "Request number 0")]) {
			t.Fatalf("prompt %d changed the system prompt or the tools", i+1)
		}
	}
	if compacted != len(cs) {
		t.Errorf("%d prompts changed their prefix, %d compactions", compacted, len(cs))
	}
	// Compaction goes down to three quarters of the room, so it does not
	// happen at every turn (a turn here adds ~700 tokens to a 5,000 window).
	if len(cs) > 15 {
		t.Errorf("%d compactions in 60 prompts", len(cs))
	}
	if h := a.History(); h[0].Role != RoleSystem || h[len(h)-4].Content != "Request number 29" {
		t.Fatalf("history: %+v", h[:2])
	}
	t.Logf("%d compactions, e.g. %s", len(cs), cs[len(cs)-1])
}

func commonLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestAgentCompactsCurrentTurn: when the current turn alone outgrows the
// window (many rounds of big results), its older results are summarised
// as a last resort, and the turn still ends with an answer.
func TestAgentCompactsCurrentTurn(t *testing.T) {
	const window, reply = 4000, 100
	var replies []string
	for i := range 9 {
		replies = append(replies, dump(1000+i))
	}
	replies = append(replies, "Finished.")
	a, eng := budgetAgent(t, window, bigRegistry(t), Options{MaxTokens: reply, Limits: Limits{MaxIterations: 10}}, replies...)
	turn, err := a.Send(t.Context(), "dump a lot, nine times", nil)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Content != "Finished." {
		t.Fatalf("turn: %q (%v)", turn.Content, turn.Stop)
	}
	if cs := a.Compactions(); len(cs) == 0 || cs[0].Results == 0 {
		t.Fatalf("compactions: %+v", cs)
	}
	for i, p := range eng.prompts {
		if len(p)+reply > window {
			t.Fatalf("prompt %d: %d + %d > %d", i+1, len(p), reply, window)
		}
	}
}

// TestAgentNoRoom: a system prompt larger than the window is a clear
// error, not a failed generation.
func TestAgentNoRoom(t *testing.T) {
	a, _ := budgetAgent(t, 3000, bigRegistry(t), Options{System: strings.Repeat("Be brief. ", 400), MaxTokens: 100})
	_, err := a.Send(t.Context(), "hello", nil)
	if !errors.Is(err, ErrNoRoom) || !errors.Is(err, inference.ErrContextFull) {
		t.Fatalf("err = %v", err)
	}
}

// TestAgentFullWindowAnswersSeparately: when a result finds no room left
// in the window, the model answers in the separate answer's prompt, which
// fits the results to the window, instead of in a conversation that may
// leave no room even for a reply (with Answer separate).
func TestAgentFullWindowAnswersSeparately(t *testing.T) {
	const window, reply = 1400, 100
	var replies []string
	for i := range 12 {
		replies = append(replies, dump(1000+i))
	}
	a, eng := budgetAgent(t, window, bigRegistry(t), Options{MaxTokens: reply, Answer: AnswerSeparate, Limits: Limits{MaxIterations: 12}}, replies...)
	var full bool
	turn, err := a.Send(t.Context(), "dump a lot, again and again", func(e Event) {
		full = full || e.Type == EventWarning && strings.Contains(e.Text, "window is full")
	})
	n := len(eng.prompts)
	if err != nil || !full {
		t.Fatalf("err %v, window full %v, after %d replies; turn %+v", err, full, n, turn)
	}
	if p := eng.prompts[n-1]; len(p)+reply > window || strings.Contains(p, `"name": "dump"`) || turn.Content != replies[n-1] {
		t.Fatalf("the last prompt (%d tokens) is not the answer's, or the answer %q is not the reply:\n%s", len(p), turn.Content, p)
	}
}
