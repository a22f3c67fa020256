package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
	"github.com/offgrid-ai/offgrid/inference"
)

// fakeEngine is a scripted Engine: each Generate streams the next reply.
// Tokens are bytes, so prompts can be compared exactly; the KV cache is
// simulated to report prefix reuse like *inference.Context does. A reply
// that the request's grammar rejects fails the test, so scripts stay
// honest about what a constrained model could produce.
type fakeEngine struct {
	t       testing.TB
	replies []string
	calls   int
	reqs    []inference.Request
	prompts []string
	cached  []inference.Token
	// block, if set, is called before streaming; it may wait on ctx.
	block func(ctx context.Context, i int) error
	// probs, if set, are the Result.FirstProb of the replies, when asked.
	probs []float64
	// forks, when Request.Alternatives asks for steps, are the other
	// tokens the model gave some probability, by reply and before the
	// reply's first occurrence of a text; every other byte is certain.
	forks map[int][]fakeFork
}

// fakeFork is an other token, text, with probability prob, where a
// reply first holds at.
type fakeFork struct {
	at, text string
	prob     float64
}

// steps returns the Result.Steps of reply #i: one per byte.
func (f *fakeEngine) steps(i int, reply string) []inference.Step {
	steps := make([]inference.Step, len(reply))
	for j := range len(reply) {
		steps[j] = inference.Step{Token: inference.Token(reply[j]), Text: reply[j : j+1], Prob: 1}
	}
	for _, k := range f.forks[i] {
		j := strings.Index(reply, k.at)
		if j < 0 {
			f.t.Fatalf("fake engine: reply #%d has no %q", i+1, k.at)
		}
		steps[j].Prob -= k.prob
		steps[j].Alts = append(steps[j].Alts, inference.Alt{Token: inference.Token(k.text[0]), Text: k.text, Prob: k.prob})
	}
	return steps
}

func (f *fakeEngine) Tokenize(text string, addSpecial, parseSpecial bool) ([]inference.Token, error) {
	toks := make([]inference.Token, len(text))
	for i := range len(text) {
		toks[i] = inference.Token(text[i])
	}
	return toks, nil
}

func detok(toks []inference.Token) string {
	b := make([]byte, len(toks))
	for i, t := range toks {
		b[i] = byte(t)
	}
	return string(b)
}

func (f *fakeEngine) Generate(ctx context.Context, req inference.Request, fn func(inference.Piece) error) (inference.Result, error) {
	i := f.calls
	f.calls++
	f.reqs = append(f.reqs, req)
	f.prompts = append(f.prompts, detok(req.Prompt))
	if i >= len(f.replies) {
		f.t.Fatalf("fake engine: Generate #%d, only %d replies scripted; prompt:\n%s", i+1, len(f.replies), detok(req.Prompt))
	}
	reply := f.replies[i]
	if g := req.Grammar; g != nil && !strings.HasPrefix(reply, "!nogrammar") {
		gr, err := gbnf.Parse(g.GBNF)
		if err != nil {
			f.t.Fatalf("fake engine: grammar does not parse: %v", err)
		}
		constrained := reply
		if g.Lazy() {
			constrained = lazyPart(reply, g)
		}
		if constrained != "" && !gr.Accepts(g.Root, constrained) {
			f.t.Fatalf("fake engine: reply #%d is not allowed by the grammar: %q", i+1, reply)
		}
	}
	reply = strings.TrimPrefix(reply, "!nogrammar")
	n := 0
	for n < len(f.cached) && n < len(req.Prompt) && f.cached[n] == req.Prompt[n] {
		n++
	}
	if n == len(req.Prompt) {
		n--
	}
	res := inference.Result{Stats: inference.Stats{PromptTokens: len(req.Prompt), PromptReused: n, PromptDecoded: len(req.Prompt) - n}}
	if req.FirstProb && i < len(f.probs) {
		res.FirstProb = f.probs[i]
	}
	f.cached = append([]inference.Token(nil), req.Prompt...)
	if f.block != nil {
		if err := f.block(ctx, i); err != nil {
			res.StopReason = inference.StopCancelled
			return res, err
		}
	}
	var sb strings.Builder
	for j := 0; j < len(reply); j += 3 {
		piece := reply[j:min(j+3, len(reply))]
		sb.WriteString(piece)
		res.Stats.Generated++
		if fn != nil {
			if err := fn(inference.Piece{Text: piece}); errors.Is(err, inference.ErrStop) {
				// Like *inference.Context: the text so far, no error.
				res.Text, res.StopReason = sb.String(), inference.StopCallback
				f.cached = append(f.cached, mustTok(res.Text)...)
				return res, nil
			} else if err != nil {
				return res, err
			}
		}
	}
	res.Text = sb.String()
	f.cached = append(f.cached, mustTok(res.Text)...)
	res.StopReason = inference.StopEOG
	if req.Alternatives > 0 {
		res.Steps = f.steps(i, reply)
	}
	return res, nil
}

func mustTok(s string) []inference.Token {
	toks := make([]inference.Token, len(s))
	for i := range len(s) {
		toks[i] = inference.Token(s[i])
	}
	return toks
}

// lazyPart returns the text a lazy grammar constrains: from the first
// trigger word on ("" when no trigger appears).
func lazyPart(reply string, g *inference.Grammar) string {
	for _, w := range []string{"<tool_call>", "[TOOL_CALLS]"} {
		if i := strings.Index(reply, w); i >= 0 {
			return reply[i:]
		}
	}
	t := strings.TrimLeft(reply, " \n")
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return reply
	}
	return ""
}

// checkAccepts reports whether g accepts text as a whole.
func checkAccepts(g *inference.Grammar, text string) error {
	gr, err := gbnf.Parse(g.GBNF)
	if err != nil {
		return err
	}
	if !gr.Accepts(g.Root, text) {
		return fmt.Errorf("grammar rejects %q", text)
	}
	return nil
}
