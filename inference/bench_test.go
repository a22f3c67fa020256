package inference_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
)

// benchModel loads $OFFGRID_BENCH_MODEL, or the tiny generated model.
func benchModel(b *testing.B) *inference.Model {
	b.Helper()
	path := os.Getenv("OFFGRID_BENCH_MODEL")
	if path == "" {
		var err error
		if path, err = tiny(); err != nil {
			b.Fatal(err)
		}
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	return m
}

// jsonGrammar is a JSON-object grammar like the tool-call grammars, loose
// enough that a model's own choices are mostly accepted.
const jsonGrammar = `root ::= "{" ws pair ("," ws pair)* "}"
pair ::= str ":" ws value
value ::= str | num | "true" | "false" | "null"
str ::= "\"" [^"\\\x00-\x1f]{0,40} "\""
num ::= "-"? [0-9]{1,8}
ws ::= [ \n]?`

// BenchmarkPrefill measures prompt decoding (tokens/s) of a 256-token prompt.
func BenchmarkPrefill(b *testing.B) {
	m := benchModel(b)
	c := newContext(b, m, 1024)
	p := prompt(b, m, strings.Repeat("The quick brown fox jumps over the lazy dog. ", 64))[:256]
	var tokens, secs float64
	for b.Loop() {
		c.Reset()
		res, err := c.Generate(context.Background(), inference.Request{Prompt: p, MaxTokens: 1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		tokens += float64(res.Stats.PromptDecoded)
		secs += res.Stats.PromptDuration.Seconds()
	}
	b.ReportMetric(tokens/secs, "prefill-tok/s")
}

func benchDecode(b *testing.B, g *inference.Grammar, mode inference.GrammarMode) {
	benchDecodeAlts(b, g, mode, 0)
}

func benchDecodeAlts(b *testing.B, g *inference.Grammar, mode inference.GrammarMode, alts int) {
	m := benchModel(b)
	c := newContext(b, m, 1024)
	p := prompt(b, m, "Write a JSON object describing a person:")
	var tokens, secs float64
	var resamples int
	for b.Loop() {
		res, err := c.Generate(context.Background(), inference.Request{
			Prompt: p, MaxTokens: 64, Grammar: g, GrammarMode: mode, Alternatives: alts,
			Sampling: inference.Sampling{Temperature: 0.8, TopK: 40, TopP: 0.95, Seed: 1},
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
		tokens += float64(res.Stats.Generated)
		secs += res.Stats.GenerateDuration.Seconds()
		resamples += res.Stats.GrammarResamples
	}
	b.ReportMetric(tokens/secs, "decode-tok/s")
	b.ReportMetric(float64(resamples)/tokens, "resample/tok")
}

// BenchmarkDecode measures free generation.
func BenchmarkDecode(b *testing.B) { benchDecode(b, nil, inference.GrammarSampleFirst) }

// BenchmarkDecodeAlternatives measures free generation that gives each
// token's three most probable others (Request.Alternatives), against
// BenchmarkDecode.
func BenchmarkDecodeAlternatives(b *testing.B) {
	benchDecodeAlts(b, nil, inference.GrammarSampleFirst, 3)
}

// BenchmarkDecodeGrammar measures grammar-constrained generation on the
// sample-first path (the default).
func BenchmarkDecodeGrammar(b *testing.B) {
	benchDecode(b, &inference.Grammar{GBNF: jsonGrammar}, inference.GrammarSampleFirst)
}

// BenchmarkDecodeGrammarFullVocab applies the grammar to the whole
// vocabulary before every sample, for comparison.
func BenchmarkDecodeGrammarFullVocab(b *testing.B) {
	benchDecode(b, &inference.Grammar{GBNF: jsonGrammar}, inference.GrammarFullVocab)
}
