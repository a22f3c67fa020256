package inference_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// tiny generates the tiny random-weight test model once per test binary.
var tiny = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "offgrid-inference-test")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "tiny.gguf")
	return path, synth.Write(path, synth.Options{Seed: 1})
})

func loadTiny(t testing.TB) *inference.Model {
	t.Helper()
	path, err := tiny()
	if err != nil {
		t.Fatalf("synth: %v", err)
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func newContext(t testing.TB, m *inference.Model, size int) *inference.Context {
	t.Helper()
	c, err := m.NewContext(inference.ContextOptions{ContextSize: size, Threads: 1}) // the tiny model gains nothing from more
	if err != nil {
		t.Fatalf("context: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestModelInfo(t *testing.T) {
	m := loadTiny(t)
	if got := m.Architecture(); got != "llama" {
		t.Errorf("Architecture = %q, want llama", got)
	}
	if m.VocabSize() < 256 {
		t.Errorf("VocabSize = %d, want at least the 256 byte tokens", m.VocabSize())
	}
	if m.ParamCount() == 0 || m.ContextLength() == 0 {
		t.Errorf("ParamCount = %d, ContextLength = %d", m.ParamCount(), m.ContextLength())
	}
	if !strings.Contains(m.ChatTemplate(), "tool_call") {
		t.Errorf("chat template lacks tool support: %q", m.ChatTemplate())
	}
	if len(m.EOG()) == 0 {
		t.Error("no end-of-generation token")
	}
}

func TestTokenizeRoundTrip(t *testing.T) {
	m := loadTiny(t)
	for _, text := range []string{
		"Hello, world!",
		"  leading spaces and\ttabs\nnew lines ",
		"héllo wörld — ünïcödé",
		"日本語のテキスト",
		"emoji 🚀🔥 and 👩‍💻",
		"",
	} {
		toks, err := m.Tokenize(text, false, false)
		if err != nil {
			t.Fatalf("Tokenize(%q): %v", text, err)
		}
		got, err := m.Detokenize(toks, false)
		if err != nil {
			t.Fatalf("Detokenize: %v", err)
		}
		if got != text {
			t.Errorf("round trip %q → %v → %q", text, toks, got)
		}
	}
}

func TestTokenizeSpecial(t *testing.T) {
	m := loadTiny(t)
	special, err := m.Tokenize("<|im_start|>", false, true)
	if err != nil || len(special) != 1 {
		t.Fatalf("Tokenize special = %v, %v; want one token", special, err)
	}
	plain, err := m.Tokenize("<|im_start|>", false, false)
	if err != nil || len(plain) < 2 {
		t.Fatalf("Tokenize as text = %v, %v; want it spelled out", plain, err)
	}
	if _, err := m.Detokenize([]inference.Token{-1}, false); !errors.Is(err, inference.ErrInvalidToken) {
		t.Errorf("Detokenize(-1) error = %v, want ErrInvalidToken", err)
	}
}

func generate(t testing.TB, c *inference.Context, req inference.Request) inference.Result {
	t.Helper()
	res, err := c.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return res
}

func prompt(t testing.TB, m *inference.Model, text string) []inference.Token {
	t.Helper()
	toks, err := m.Tokenize(text, true, true)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

func TestSeedDeterminism(t *testing.T) {
	m := loadTiny(t)
	p := prompt(t, m, "<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n")
	run := func(seed uint32) []inference.Token {
		c := newContext(t, m, 512)
		return generate(t, c, inference.Request{Prompt: p, MaxTokens: 32,
			Sampling: inference.Sampling{Temperature: 1, Seed: seed}}).Tokens
	}
	a, b, d := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Errorf("same seed gave different tokens:\n%v\n%v", a, b)
	}
	if slices.Equal(a, d) {
		t.Errorf("seeds 7 and 8 gave the same tokens %v", a)
	}
}

func TestStrictGrammar(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 512)
	p := prompt(t, m, "<|im_start|>user\nyes or no?<|im_end|>\n<|im_start|>assistant\n")
	g := &inference.Grammar{GBNF: `root ::= "yes" | "no"`}
	counts := map[string]int{}
	for seed := range uint32(50) {
		res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 16, Grammar: g,
			Sampling: inference.Sampling{Temperature: 1.5, Seed: seed}})
		if res.Text != "yes" && res.Text != "no" {
			t.Fatalf("seed %d: output %q (stop %s), want yes or no", seed, res.Text, res.StopReason)
		}
		if res.StopReason != inference.StopEOG {
			t.Errorf("seed %d: stop reason %s, want eog once the grammar is complete", seed, res.StopReason)
		}
		counts[res.Text]++
	}
	t.Logf("50 seeds: %v", counts)
}

// TestAlternatives: each greedy step's token is the most probable, its
// alternatives follow in order and differ from it, and a step's
// probabilities are those a request that ends where it began sees.
func TestAlternatives(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 512)
	p := prompt(t, m, "<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n")
	if res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4}); res.Steps != nil {
		t.Errorf("Steps %v unasked, want none", res.Steps)
	}
	res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 6, Alternatives: 3})
	if len(res.Steps) != res.Stats.Generated || len(res.Steps) < len(res.Tokens) {
		t.Fatalf("%d steps for %d generated tokens (%d kept)", len(res.Steps), res.Stats.Generated, len(res.Tokens))
	}
	for i, s := range res.Steps {
		if i < len(res.Tokens) && s.Token != res.Tokens[i] {
			t.Errorf("step %d: token %d, generated %d", i, s.Token, res.Tokens[i])
		}
		if len(s.Alts) != 3 {
			t.Fatalf("step %d: %d alternatives, want 3", i, len(s.Alts))
		}
		sum, prev := s.Prob, s.Prob
		for _, a := range s.Alts {
			if a.Token == s.Token || a.Prob > prev+1e-6 {
				t.Errorf("step %d: alternative %+v after %v (token %d, p %v)", i, a, prev, s.Token, s.Prob)
			}
			sum, prev = sum+a.Prob, a.Prob
		}
		if s.Prob <= 0 || sum > 1+1e-4 {
			t.Errorf("step %d: p %v, with the alternatives %v", i, s.Prob, sum)
		}
	}
	// The second step, seen from a request whose prompt holds the first.
	again := generate(t, c, inference.Request{Prompt: append(append([]inference.Token(nil), p...), res.Tokens[0]), MaxTokens: 1, Alternatives: 3})
	if a, b := again.Steps[0], res.Steps[1]; a.Token != b.Token || math.Abs(a.Prob-b.Prob) > 1e-4 || a.Alts[0].Token != b.Alts[0].Token {
		t.Errorf("second step %+v, from its own request %+v", b, a)
	}
}

// TestFirstProb: the probability of the first token is the model's own,
// among the tokens the grammar allows: one value per token, the greedy
// token's the largest, and those of the three allowed tokens sum to one.
func TestFirstProb(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 512)
	p := prompt(t, m, "<|im_start|>user\npick a letter<|im_end|>\n<|im_start|>assistant\n")
	g := &inference.Grammar{GBNF: `root ::= [a-c]`}
	if res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4, Grammar: g}); res.FirstProb != 0 {
		t.Errorf("FirstProb %v unasked, want 0", res.FirstProb)
	}
	greedy := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4, Grammar: g, FirstProb: true})
	probs := map[string]float64{}
	for seed := range uint32(60) {
		res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4, Grammar: g, FirstProb: true,
			Sampling: inference.Sampling{Temperature: 3, Seed: seed}})
		if res.FirstProb <= 0 || res.FirstProb > 1 {
			t.Fatalf("seed %d: FirstProb %v of %q, want in (0, 1]", seed, res.FirstProb, res.Text)
		}
		if q, ok := probs[res.Text]; ok && math.Abs(q-res.FirstProb) > 1e-6 {
			t.Errorf("%q has probability %v and %v", res.Text, q, res.FirstProb)
		}
		probs[res.Text] = res.FirstProb
		if res.FirstProb > greedy.FirstProb+1e-6 {
			t.Errorf("%q has probability %v, above the greedy %q's %v", res.Text, res.FirstProb, greedy.Text, greedy.FirstProb)
		}
	}
	sum := 0.0
	for _, q := range probs {
		sum += q
	}
	if len(probs) == 3 && math.Abs(sum-1) > 1e-4 || sum > 1+1e-4 {
		t.Errorf("probabilities %v sum to %v", probs, sum)
	}
	t.Logf("greedy %q %.3f; sampled %v", greedy.Text, greedy.FirstProb, probs)
}

func TestGrammarModesAgree(t *testing.T) {
	// Both ways of applying the grammar yield grammatical output.
	m := loadTiny(t)
	c := newContext(t, m, 512)
	p := prompt(t, m, "<|im_start|>user\nnumbers<|im_end|>\n<|im_start|>assistant\n")
	g := &inference.Grammar{GBNF: `root ::= "[" [0-9]{1,3} ("," [0-9]{1,3}){0,4} "]"`}
	re := regexp.MustCompile(`^\[[0-9]{1,3}(,[0-9]{1,3}){0,4}\]$`)
	for _, mode := range []inference.GrammarMode{inference.GrammarSampleFirst, inference.GrammarFullVocab} {
		for seed := range uint32(10) {
			res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 64, Grammar: g, GrammarMode: mode,
				Sampling: inference.Sampling{Temperature: 1, Seed: seed}})
			if !re.MatchString(res.Text) {
				t.Errorf("mode %d seed %d: %q does not match the grammar", mode, seed, res.Text)
			}
		}
	}
}

func TestLazyGrammar(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 2048)
	trigger, err := m.Tokenize("<tool_call>", false, true)
	if err != nil || len(trigger) != 1 {
		t.Fatalf("<tool_call> is not one token: %v %v", trigger, err)
	}
	g := &inference.Grammar{
		GBNF:          `root ::= "<tool_call>" "{\"n\": " [0-9]{1,3} "}"`,
		TriggerTokens: trigger,
	}
	p := prompt(t, m, "<|im_start|>user\ncall a tool<|im_end|>\n<|im_start|>assistant\n")
	re := regexp.MustCompile(`^((?s).*?)<tool_call>\{"n": [0-9]{1,3}\}$`)
	triggered, free := 0, 0
	for seed := range uint32(40) {
		res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 1500, Grammar: g,
			Sampling: inference.Sampling{Temperature: 1.5, Seed: seed}})
		i := strings.Index(res.Text, "<tool_call>")
		if i < 0 {
			continue // never triggered: free text only
		}
		triggered++
		if !re.MatchString(res.Text) {
			t.Fatalf("seed %d: after the trigger the output must follow the grammar: %q", seed, res.Text[i:])
		}
		if i > 0 {
			free++
		}
	}
	if triggered == 0 || free == 0 {
		t.Fatalf("trigger reached in %d of 40 runs, %d with free text before it; want both > 0", triggered, free)
	}
	t.Logf("triggered in %d of 40 runs, %d with free text first", triggered, free)
}

func TestStopStrings(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 512)
	p := prompt(t, m, "<|im_start|>user\ncount<|im_end|>\n<|im_start|>assistant\n")
	g := &inference.Grammar{GBNF: `root ::= "one two three four"`}
	var streamed strings.Builder
	res, err := c.Generate(context.Background(), inference.Request{Prompt: p, Grammar: g, Stop: []string{" thr"}},
		func(pc inference.Piece) error { streamed.WriteString(pc.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "one two" || res.StopReason != inference.StopString || streamed.String() != "one two" {
		t.Errorf("text %q streamed %q stop %s; want \"one two\" and stop_string", res.Text, streamed.String(), res.StopReason)
	}
}

func TestCancellation(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 8192)
	p := prompt(t, m, "<|im_start|>user\nwrite forever<|im_end|>\n<|im_start|>assistant\n")
	// A grammar that never completes: no end token is ever allowed.
	forever := &inference.Grammar{GBNF: "root ::= [a-z] root"}
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	n := 0
	_, err := c.Generate(ctx, inference.Request{Prompt: p, Grammar: forever, Sampling: inference.Sampling{Temperature: 1}},
		func(inference.Piece) error {
			if n++; n == 20 {
				cancelled = time.Now()
				cancel()
			}
			return nil
		})
	took := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Generate error = %v, want context.Canceled", err)
	}
	if took > 200*time.Millisecond {
		t.Errorf("Generate returned %v after cancel, want within 200ms", took)
	}
	// The context stays usable.
	res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4, Grammar: &inference.Grammar{GBNF: `root ::= "ok"`}})
	if res.Text != "ok" {
		t.Errorf("after cancel: %q, want ok", res.Text)
	}
}

func TestCancelDuringPrompt(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 8192)
	long := prompt(t, m, strings.Repeat("a long prompt that takes a while to decode; ", 150))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Generate(ctx, inference.Request{Prompt: long, MaxTokens: 1}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if got := len(c.Cached()); got != 0 {
		t.Errorf("cache holds %d tokens after a cancelled prompt, want 0", got)
	}
}

func TestPrefixReuse(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 1024)
	prefix := prompt(t, m, strings.Repeat("shared system prompt and tool definitions. ", 30))
	if len(prefix) < 200 {
		t.Fatalf("prefix has %d tokens, want ≥ 200", len(prefix))
	}
	prefix = prefix[:200]
	first := append(slices.Clone(prefix), prompt(t, m, " first question")[1:]...)
	second := append(slices.Clone(prefix), prompt(t, m, " a different second question")[1:]...)

	r1 := generate(t, c, inference.Request{Prompt: first, MaxTokens: 4})
	if r1.Stats.PromptReused != 0 || r1.Stats.PromptDecoded != len(first) {
		t.Errorf("first request: reused %d decoded %d, want 0 and %d", r1.Stats.PromptReused, r1.Stats.PromptDecoded, len(first))
	}
	r2 := generate(t, c, inference.Request{Prompt: second, MaxTokens: 4})
	if r2.Stats.PromptReused != 200 || r2.Stats.PromptDecoded != len(second)-200 {
		t.Errorf("second request: reused %d decoded %d, want 200 and %d", r2.Stats.PromptReused, r2.Stats.PromptDecoded, len(second)-200)
	}
	// Continuing the conversation with the generated tokens reuses them too.
	third := append(append(slices.Clone(second), r2.Tokens...), prompt(t, m, " more")[1:]...)
	r3 := generate(t, c, inference.Request{Prompt: third, MaxTokens: 1})
	if want := len(second) + len(r2.Tokens); r3.Stats.PromptReused != want {
		t.Errorf("third request reused %d, want %d (prompt plus generated tokens)", r3.Stats.PromptReused, want)
	}
}

func TestContextFull(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 64)
	long := prompt(t, m, strings.Repeat("overflow ", 100))
	if _, err := c.Generate(context.Background(), inference.Request{Prompt: long}, nil); !errors.Is(err, inference.ErrContextFull) {
		t.Errorf("error = %v, want ErrContextFull", err)
	}
}

func TestInvalidGrammar(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 256)
	p := prompt(t, m, "hi")
	for _, g := range []inference.Grammar{
		{GBNF: `root ::= "unterminated`},
		{GBNF: `root ::= undefined`},
		{GBNF: `start ::= "x"`},
		{GBNF: `root ::= root "x"`},
		{GBNF: `root ::= "x"`, TriggerPatterns: []string{"(unclosed"}},
		{GBNF: `root ::= "x"`, TriggerTokens: []inference.Token{1 << 30}},
		{GBNF: ""},
	} {
		if _, err := c.Generate(context.Background(), inference.Request{Prompt: p, Grammar: &g}, nil); !errors.Is(err, inference.ErrInvalidGrammar) {
			t.Errorf("grammar %q: error = %v, want ErrInvalidGrammar", g.GBNF, err)
		}
	}
	if err := inference.CheckGrammar(`root ::= "a" [b-z]* ("c" | d)?`+"\n"+`d ::= "d"`, "root"); err != nil {
		t.Errorf("CheckGrammar rejected a valid grammar: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	path, err := tiny()
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	absurd := slices.Clone(good)
	// Header: magic(4) version(4) n_tensors(8): claim 2^62 tensors.
	copy(absurd[8:16], []byte{0, 0, 0, 0, 0, 0, 0, 0x40})
	for name, p := range map[string]string{
		"missing":       filepath.Join(dir, "missing.gguf"),
		"not gguf":      write("text.gguf", []byte("this is not a model file at all")),
		"empty":         write("empty.gguf", nil),
		"truncated":     write("truncated.gguf", good[:len(good)/2]),
		"header only":   write("header.gguf", good[:64]),
		"absurd counts": write("absurd.gguf", absurd),
	} {
		if _, err := inference.Load(p, inference.ModelOptions{}); !errors.Is(err, inference.ErrLoad) {
			t.Errorf("%s: Load error = %v, want ErrLoad", name, err)
		}
	}
}
