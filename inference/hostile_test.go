package inference_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/gguf"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// smallOpts shapes the model the hostile-file tests and the fuzz target
// mutate: small enough that one load and one decode take milliseconds.
var smallOpts = synth.Options{Seed: 5, Embedding: 16, Heads: 2, Layers: 1, FeedForward: 32, Merges: 16, ContextLength: 64}

// parsed is a decoded GGUF file: its metadata and tensors with their data.
type parsed struct {
	kvs     []gguf.KV
	tensors []gguf.Tensor
}

func parse(tb testing.TB, b []byte) parsed {
	tb.Helper()
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	p := parsed{kvs: f.KV}
	for _, ti := range f.Tensors {
		off := f.DataOffset + int64(ti.Offset)
		data := append([]byte(nil), b[off:off+int64(ti.Size)]...)
		p.tensors = append(p.tensors, gguf.Tensor{Name: ti.Name, Dims: ti.Dims, Type: ti.Type, Data: data})
	}
	return p
}

// set replaces or adds (or, with a nil value, removes) a metadata value.
func (p parsed) set(key string, v any) parsed {
	var out []gguf.KV
	found := false
	for _, kv := range p.kvs {
		if kv.Key == key {
			found = true
			if v == nil {
				continue
			}
			kv.Value = v
		}
		out = append(out, kv)
	}
	if !found && v != nil {
		out = append(out, gguf.KV{Key: key, Value: v})
	}
	p.kvs = out
	return p
}

func (p parsed) encode(tb testing.TB) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := gguf.Write(&b, p.kvs, p.tensors); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func smallModel(tb testing.TB) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := synth.Encode(&b, smallOpts); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func writeModel(tb testing.TB, b []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "hostile.gguf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// loadAndDecode loads a model file and generates a few tokens, returning
// the first error.
func loadAndDecode(path string) error {
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		return err
	}
	defer m.Close()
	c, err := m.NewContext(inference.ContextOptions{ContextSize: 32, Threads: 1})
	if err != nil {
		return err
	}
	defer c.Close()
	toks, err := m.Tokenize("hi there", true, true)
	if err != nil {
		return err
	}
	if len(toks) == 0 {
		toks = []inference.Token{0}
	}
	_, err = c.Generate(context.Background(), inference.Request{Prompt: toks, MaxTokens: 2,
		Sampling: inference.Sampling{Temperature: 1, TopK: 40, TopP: 0.9, MinP: 0.05, Seed: 1}}, nil)
	return err
}

func fillTensors(p parsed, v float32) parsed {
	ts := make([]gguf.Tensor, len(p.tensors))
	for i, t := range p.tensors {
		vals := make([]float32, len(t.Data)/4)
		for j := range vals {
			vals[j] = v
		}
		t.Data = gguf.F32Bytes(vals)
		ts[i] = t
	}
	p.tensors = ts
	return p
}

// TestHostileModels loads crafted files that pass the strict reader but
// used to crash llama.cpp (SIGSEGV or GGML_ASSERT); each must be a clean
// error.
func TestHostileModels(t *testing.T) {
	base := parse(t, smallModel(t))
	var ntok int
	for _, kv := range base.kvs {
		if kv.Key == "tokenizer.ggml.tokens" {
			ntok = len(kv.Value.([]string))
		}
	}
	dup := make([]string, ntok)
	for i := range dup {
		dup[i] = string(rune('a' + i%2))
	}
	for _, tc := range []struct {
		name string
		p    parsed
		want error
	}{
		{"empty tokens", base.set("tokenizer.ggml.tokens", []string{}), gguf.ErrMetadata},
		{"tokens as u32", base.set("tokenizer.ggml.tokens", make([]uint32, ntok)), gguf.ErrMetadata},
		{"duplicate tokens", base.set("tokenizer.ggml.tokens", dup), gguf.ErrMetadata},
		{"token type too short", base.set("tokenizer.ggml.token_type", make([]int32, ntok-1)), gguf.ErrMetadata},
		{"token type as u8", base.set("tokenizer.ggml.token_type", make([]uint8, ntok)), gguf.ErrMetadata},
		{"scores too short", base.set("tokenizer.ggml.scores", []float32{1}), gguf.ErrMetadata},
		{"scores as strings", base.set("tokenizer.ggml.scores", make([]string, ntok)), gguf.ErrMetadata},
		{"merges as u8", base.set("tokenizer.ggml.merges", []uint8{1, 2, 3}), gguf.ErrMetadata},
		{"eos outside vocabulary", base.set("tokenizer.ggml.eos_token_id", uint32(ntok)), gguf.ErrMetadata},
		{"block count 0", base.set("llama.block_count", uint32(0)), gguf.ErrMetadata},
		{"block count huge", base.set("llama.block_count", uint32(1<<30)), gguf.ErrMetadata},
		{"block count missing", base.set("llama.block_count", nil), gguf.ErrMetadata},
		{"context length 0", base.set("llama.context_length", uint32(0)), gguf.ErrMetadata},
		{"embedding length 0", base.set("llama.embedding_length", uint32(0)), gguf.ErrMetadata},
		{"head count 0", base.set("llama.attention.head_count", uint32(0)), gguf.ErrMetadata},
		{"head count kv not dividing", base.set("llama.attention.head_count_kv", uint32(3)), gguf.ErrMetadata},
		{"rms eps NaN", base.set("llama.attention.layer_norm_rms_epsilon", float32(math.NaN())), gguf.ErrMetadata},
		{"rms eps negative", base.set("llama.attention.layer_norm_rms_epsilon", float32(-1e-5)), gguf.ErrMetadata},
		{"rms eps infinite", base.set("llama.attention.layer_norm_rms_epsilon", float32(math.Inf(1))), gguf.ErrMetadata},
		{"rope freq base 0", base.set("llama.rope.freq_base", float32(0)), gguf.ErrMetadata},
		{"rope freq base NaN", base.set("llama.rope.freq_base", float32(math.NaN())), gguf.ErrMetadata},
		{"rope scaling type unknown", base.set("llama.rope.scaling.type", "sideways"), gguf.ErrMetadata},
		{"experts used without experts", base.set("llama.expert_used_count", uint32(2)), gguf.ErrMetadata},
		{"all-NaN weights", fillTensors(base, float32(math.NaN())), inference.ErrNonFinite},
		{"all-Inf weights", fillTensors(base, float32(math.Inf(1))), inference.ErrNonFinite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeModel(t, tc.p.encode(t))
			err := loadAndDecode(path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if errors.Is(tc.want, gguf.ErrMetadata) && !errors.Is(err, inference.ErrLoad) {
				t.Errorf("error = %v, want it to wrap ErrLoad", err)
			}
			t.Log(err)
		})
	}
	if err := loadAndDecode(writeModel(t, base.encode(t))); err != nil {
		t.Errorf("the unmodified model: %v", err)
	}
}

// FuzzHostileModel mutates a tiny model (one metadata value replaced by a
// value of another type or size, then bytes flipped anywhere) and loads
// and decodes it. Errors are fine; a crash (a C abort or signal kills the
// fuzz worker) or a hang is a failure.
func FuzzHostileModel(f *testing.F) {
	base := smallModel(f)
	p := parse(f, base)
	f.Add(uint16(0), uint8(0), 0.0, uint32(0), []byte{})
	f.Add(uint16(9), uint8(3), 0.0, uint32(100), []byte{0xff})
	f.Add(uint16(17), uint8(5), 7.0, uint32(4000), []byte{1, 2})
	f.Add(uint16(13), uint8(2), math.NaN(), uint32(50000), []byte{0x80})
	f.Fuzz(func(t *testing.T, kv uint16, kind uint8, num float64, pos uint32, flip []byte) {
		q := p
		if kind > 0 && len(q.kvs) > 0 {
			i := int(kv) % len(q.kvs)
			q = q.set(q.kvs[i].Key, variant(q.kvs[i].Value, kind, num))
		}
		b := q.encode(t)
		if len(flip) > 0 {
			// Bias flips towards the metadata: most of the file is weights.
			at := int(pos) % len(b)
			if pos&1 == 0 {
				at = int(pos) % min(len(b), 16<<10)
			}
			for j, x := range flip {
				b[(at+j)%len(b)] ^= x
			}
		}
		_ = loadAndDecode(writeModel(t, b))
	})
}

// variant returns a replacement value for a metadata entry: of another type,
// another length or another number.
func variant(old any, kind uint8, num float64) any {
	n := 0
	switch x := old.(type) {
	case []string:
		n = len(x)
	case []int32:
		n = len(x)
	case []float32:
		n = len(x)
	}
	switch kind % 16 {
	case 1:
		return uint32(num)
	case 2:
		return float32(num)
	case 3:
		return int32(num)
	case 4:
		return uint64(num)
	case 5:
		return "x"
	case 6:
		return []string{}
	case 7:
		return make([]string, max(0, n-1))
	case 8:
		return make([]uint32, n)
	case 9:
		return make([]uint8, n)
	case 10:
		return make([]int32, n+1)
	case 11:
		return make([]float32, n)
	case 12:
		return float64(num)
	case 13:
		return true
	case 14:
		return nil // remove the entry
	}
	return int8(num)
}
