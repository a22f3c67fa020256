package gguf_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/models/gguf"
)

// validModel is the metadata of a tiny llama model that Validate accepts.
func validModel() []gguf.KV {
	return []gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "llama.context_length", Value: uint32(128)},
		{Key: "llama.embedding_length", Value: uint32(16)},
		{Key: "llama.block_count", Value: uint32(2)},
		{Key: "llama.attention.head_count", Value: uint32(4)},
		{Key: "llama.attention.head_count_kv", Value: uint32(2)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-6)},
		{Key: "llama.rope.freq_base", Value: float32(10000)},
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.tokens", Value: []string{"a", "b", "", "c"}},
		{Key: "tokenizer.ggml.token_type", Value: []int32{1, 1, 1, 3}},
		{Key: "tokenizer.ggml.merges", Value: []string{"a b"}},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(3)},
	}
}

func validate(t *testing.T, kvs []gguf.KV) error {
	t.Helper()
	ts := []gguf.Tensor{{Name: "w", Dims: []uint64{1}, Type: gguf.F32, Data: gguf.F32Bytes([]float32{1})}}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kvs, ts); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f.Validate()
}

// with returns validModel with key set to v (nil removes it).
func with(key string, v any) []gguf.KV {
	var out []gguf.KV
	found := false
	for _, kv := range validModel() {
		if kv.Key == key {
			found = true
			if v == nil {
				continue
			}
			kv.Value = v
		}
		out = append(out, kv)
	}
	if !found {
		out = append(out, gguf.KV{Key: key, Value: v})
	}
	return out
}

func TestValidate(t *testing.T) {
	if err := validate(t, validModel()); err != nil {
		t.Fatalf("valid model: %v", err)
	}
	for _, ok := range [][]gguf.KV{
		with("llama.attention.head_count", []int32{4, 0}), // per-layer, a layer without attention
		with("llama.feed_forward_length", []uint32{64, 32}),
		with("tokenizer.ggml.scores", []float32{0, 0, 0, 0}),
		with("llama.rope.scaling.type", "yarn"),
		with("llama.expert_count", uint32(8)),
	} {
		if ok[len(ok)-1].Key == "llama.expert_count" {
			ok = append(ok, gguf.KV{Key: "llama.expert_used_count", Value: uint32(2)})
		}
		if err := validate(t, ok); err != nil {
			t.Errorf("%v: %v", ok[len(ok)-1], err)
		}
	}
	for _, c := range []struct {
		kvs  []gguf.KV
		want string
	}{
		{with("tokenizer.ggml.tokens", []string{}), "tokens is empty"},
		{with("tokenizer.ggml.tokens", []uint32{1, 2, 3, 4}), "tokens is array of uint32"},
		{with("tokenizer.ggml.tokens", []string{"a", "b", "a", "c"}), `both "a"`},
		{with("tokenizer.ggml.tokens", []string{"a", "[EMPTY_2]", "", "c"}), `both "[EMPTY_2]"`},
		{with("tokenizer.ggml.token_type", []int32{1}), "token_type has 1 entries"},
		{with("tokenizer.ggml.scores", []string{"1", "2", "3", "4"}), "scores is array of string"},
		{with("tokenizer.ggml.merges", []uint8{1}), "merges is array of uint8"},
		{with("tokenizer.ggml.model", uint32(1)), "tokenizer.ggml.model is uint32"},
		{with("tokenizer.ggml.eos_token_id", uint32(4)), "outside the vocabulary"},
		{with("tokenizer.ggml.bos_token_id", int32(-1)), "want a token id"},
		{with("llama.block_count", uint32(0)), "block_count is 0"},
		{with("llama.block_count", nil), "block_count is missing"},
		{with("llama.block_count", float32(2)), "want a non-negative integer"},
		{with("llama.context_length", uint64(1<<40)), "context_length is"},
		{with("llama.attention.head_count", uint32(32)), "more than llama.embedding_length"},
		{with("llama.attention.head_count", []float32{4, 4}), "want an array of int32"},
		{with("llama.attention.head_count", []int32{4}), "1 entries for 2 layers"},
		{with("llama.attention.head_count_kv", uint32(3)), "does not divide"},
		{with("llama.attention.layer_norm_rms_epsilon", float32(math.NaN())), "finite"},
		{with("llama.attention.layer_norm_rms_epsilon", float32(-1)), "positive"},
		{with("llama.attention.layer_norm_epsilon", float32(0)), "positive"},
		{with("llama.rope.freq_base", float32(0)), "positive"},
		{with("llama.rope.freq_base", float32(math.Inf(1))), "finite"},
		{with("llama.rope.scaling.type", "sideways"), "scaling.type"},
		{with("llama.expert_used_count", uint32(1)), "expert counts"},
	} {
		err := validate(t, c.kvs)
		if !errors.Is(err, gguf.ErrMetadata) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want ErrMetadata mentioning %q", err, c.want)
		}
	}
}
