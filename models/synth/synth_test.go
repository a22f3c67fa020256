package synth_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/models/gguf"
	"github.com/offgrid-ai/offgrid/models/synth"
)

func encode(t *testing.T, o synth.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := synth.Encode(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	a, b, c := encode(t, synth.Options{Seed: 1}), encode(t, synth.Options{Seed: 1}), encode(t, synth.Options{Seed: 2})
	if !bytes.Equal(a, b) {
		t.Error("same seed, different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds, same bytes")
	}
	if len(a) < 100<<10 || len(a) > 2<<20 {
		t.Errorf("size %d bytes, want a few hundred KB to 2 MB", len(a))
	}
}

func TestVocabulary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(path, synth.Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Architecture() != "llama" {
		t.Errorf("architecture %q", f.Architecture())
	}
	v, _ := f.Get("tokenizer.ggml.tokens")
	tokens := v.([]string)
	seen := map[string]bool{}
	for _, tok := range tokens {
		if seen[tok] {
			t.Errorf("duplicate token %q", tok)
		}
		seen[tok] = true
		if !utf8.ValidString(tok) {
			t.Errorf("token %q is not UTF-8", tok)
		}
	}
	for _, s := range []string{synth.ImStart, synth.ImEnd, synth.ToolCall, synth.ToolEnd, synth.EndOfText, "Ġ", "Ċ", "!"} {
		if !seen[s] {
			t.Errorf("vocabulary lacks %q", s)
		}
	}
	m, _ := f.ArrayLen("tokenizer.ggml.merges")
	if m < 50 {
		t.Errorf("%d merges, want at least 50", m)
	}
	if n := f.Tensors[0].Dims[1]; n != uint64(len(tokens)) {
		t.Errorf("token_embd rows %d, vocabulary %d", n, len(tokens))
	}
	if tmpl, _ := f.String("tokenizer.chat_template"); tmpl != synth.ChatTemplate {
		t.Error("chat template missing")
	}
	if _, ok := encodeNoTemplate(t).String("tokenizer.chat_template"); ok {
		t.Error(`Template "-" still wrote a template`)
	}
}

func encodeNoTemplate(t *testing.T) *gguf.File {
	b := encode(t, synth.Options{Template: "-"})
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
