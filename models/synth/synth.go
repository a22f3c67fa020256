package synth

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/models/gguf"
)

// Special tokens of the synthetic vocabulary.
const (
	EndOfText = "<|endoftext|>"
	ImStart   = "<|im_start|>"
	ImEnd     = "<|im_end|>"
	ToolCall  = "<tool_call>"
	ToolEnd   = "</tool_call>"
)

// Options shapes the generated model. Zero fields take the defaults.
type Options struct {
	Seed          uint64 // weights; the vocabulary is the same for every seed
	Name          string // general.name; default "offgrid-synth"
	ContextLength int    // training context; default 8192
	Embedding     int    // default 64
	Layers        int    // default 2
	Heads         int    // default 4 (2 KV heads)
	FeedForward   int    // default 128
	Merges        int    // BPE merges learned from the corpus; default 256
	Template      string // chat template; default ChatTemplate; "-" for none
}

func (o *Options) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ContextLength, 8192)
	def(&o.Embedding, 64)
	def(&o.Layers, 2)
	def(&o.Heads, 4)
	def(&o.FeedForward, 128)
	def(&o.Merges, 256)
	if o.Name == "" {
		o.Name = "offgrid-synth"
	}
	if o.Template == "" {
		o.Template = ChatTemplate
	}
}

// Write writes a model to path atomically.
func Write(path string, opts Options) error {
	var buf bytes.Buffer
	if err := Encode(&buf, opts); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// Encode writes a model to w.
func Encode(w io.Writer, opts Options) error {
	opts.defaults()
	if opts.Embedding%opts.Heads != 0 || opts.Heads%2 != 0 {
		return fmt.Errorf("synth: embedding %d must divide into an even number of heads %d", opts.Embedding, opts.Heads)
	}
	voc := newVocab(opts.Merges)
	kvs := voc.metadata()
	kvs = append([]gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "general.name", Value: opts.Name},
		{Key: "general.type", Value: "model"},
		{Key: "general.file_type", Value: uint32(0)},
		{Key: "llama.context_length", Value: uint32(opts.ContextLength)},
		{Key: "llama.embedding_length", Value: uint32(opts.Embedding)},
		{Key: "llama.block_count", Value: uint32(opts.Layers)},
		{Key: "llama.feed_forward_length", Value: uint32(opts.FeedForward)},
		{Key: "llama.attention.head_count", Value: uint32(opts.Heads)},
		{Key: "llama.attention.head_count_kv", Value: uint32(opts.Heads / 2)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: "llama.rope.dimension_count", Value: uint32(opts.Embedding / opts.Heads)},
		{Key: "llama.rope.freq_base", Value: float32(10000)},
		{Key: "llama.vocab_size", Value: uint32(len(voc.tokens))},
	}, kvs...)
	if opts.Template != "-" {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.chat_template", Value: opts.Template})
	}
	return gguf.Write(w, kvs, weights(opts, len(voc.tokens)))
}

// weights draws every tensor of a llama model from one seeded stream.
func weights(o Options, nVocab int) []gguf.Tensor {
	rng := rand.New(rand.NewPCG(o.Seed, 0x6f666667726964)) // "offgrid"
	e, ff, kv := o.Embedding, o.FeedForward, o.Embedding/2
	mat := func(name string, in, out int, scale float64) gguf.Tensor {
		v := make([]float32, in*out)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		return gguf.Tensor{Name: name, Dims: []uint64{uint64(in), uint64(out)}, Type: gguf.F32, Data: gguf.F32Bytes(v)}
	}
	ones := func(name string, n int) gguf.Tensor {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return gguf.Tensor{Name: name, Dims: []uint64{uint64(n)}, Type: gguf.F32, Data: gguf.F32Bytes(v)}
	}
	in := 1 / math.Sqrt(float64(e))
	ts := []gguf.Tensor{mat("token_embd.weight", e, nVocab, 1)}
	for l := range o.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			ones(p+"attn_norm.weight", e),
			mat(p+"attn_q.weight", e, e, in),
			mat(p+"attn_k.weight", e, kv, in),
			mat(p+"attn_v.weight", e, kv, in),
			mat(p+"attn_output.weight", e, e, in),
			ones(p+"ffn_norm.weight", e),
			mat(p+"ffn_gate.weight", e, ff, in),
			mat(p+"ffn_up.weight", e, ff, in),
			mat(p+"ffn_down.weight", ff, e, 1/math.Sqrt(float64(ff))),
		)
	}
	return append(ts, ones("output_norm.weight", e), mat("output.weight", e, nVocab, 2*in))
}

// vocab is a byte-level BPE vocabulary in GPT-2's byte-to-unicode spelling.
type vocab struct {
	tokens []string
	types  []int32
	merges []string
	ids    map[string]int
}

// Token types as llama.cpp numbers them.
const (
	typeNormal      = 1
	typeControl     = 3
	typeUserDefined = 4
)

func newVocab(nMerges int) *vocab {
	v := &vocab{ids: map[string]int{}}
	enc := byteEncoder()
	add := func(s string, t int32) {
		v.ids[s] = len(v.tokens)
		v.tokens = append(v.tokens, s)
		v.types = append(v.types, t)
	}
	for b := range 256 {
		add(enc[b], typeNormal)
	}
	for _, m := range learnMerges(corpus, nMerges, enc) {
		v.merges = append(v.merges, m[0]+" "+m[1])
		add(m[0]+m[1], typeNormal)
	}
	add(EndOfText, typeControl)
	add(ImStart, typeControl)
	add(ImEnd, typeControl)
	add(ToolCall, typeUserDefined)
	add(ToolEnd, typeUserDefined)
	return v
}

func (v *vocab) metadata() []gguf.KV {
	return []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: "gpt2"},
		{Key: "tokenizer.ggml.tokens", Value: v.tokens},
		{Key: "tokenizer.ggml.token_type", Value: v.types},
		{Key: "tokenizer.ggml.merges", Value: v.merges},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(v.ids[EndOfText])},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(v.ids[ImEnd])},
		{Key: "tokenizer.ggml.eot_token_id", Value: uint32(v.ids[ImEnd])},
		{Key: "tokenizer.ggml.padding_token_id", Value: uint32(v.ids[EndOfText])},
		{Key: "tokenizer.ggml.add_bos_token", Value: false},
		{Key: "tokenizer.ggml.add_eos_token", Value: false},
	}
}

// byteEncoder is GPT-2's reversible map from bytes to printable runes:
// printable Latin-1 bytes map to themselves, the rest to U+0100 onwards.
func byteEncoder() [256]string {
	var enc [256]string
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			enc[b] = string(rune(b))
		} else {
			enc[b] = string(rune(256 + n))
			n++
		}
	}
	return enc
}

var pretokenize = regexp.MustCompile(`'(?:s|t|re|ve|m|ll|d)| ?\pL+| ?\pN+| ?[^\s\pL\pN]+|\s+`)

// learnMerges runs byte-pair encoding training on text: n times, merge the
// most frequent adjacent pair inside pre-tokenized words (ties broken by
// the pair's spelling, so the result is deterministic).
func learnMerges(text string, n int, enc [256]string) [][2]string {
	counts := map[string]int{}
	for _, w := range pretokenize.FindAllString(text, -1) {
		counts[w]++
	}
	type word struct {
		syms  []string
		count int
	}
	var words []word
	for _, w := range slices.Sorted(mapsKeys(counts)) {
		syms := make([]string, len(w))
		for i := range len(w) {
			syms[i] = enc[w[i]]
		}
		words = append(words, word{syms, counts[w]})
	}
	var merges [][2]string
	for len(merges) < n {
		pairs := map[[2]string]int{}
		for _, w := range words {
			for i := 0; i+1 < len(w.syms); i++ {
				pairs[[2]string{w.syms[i], w.syms[i+1]}] += w.count
			}
		}
		var best [2]string
		bestN := 1 // a pair must occur at least twice to be worth a token
		for p, c := range pairs {
			if c > bestN || (c == bestN && bestN > 1 && (p[0]+" "+p[1]) < (best[0]+" "+best[1])) {
				best, bestN = p, c
			}
		}
		if bestN < 2 {
			break
		}
		merges = append(merges, best)
		joined := best[0] + best[1]
		for wi := range words {
			s := words[wi].syms
			out := s[:0]
			for i := 0; i < len(s); i++ {
				if i+1 < len(s) && s[i] == best[0] && s[i+1] == best[1] {
					out = append(out, joined)
					i++
				} else {
					out = append(out, s[i])
				}
			}
			words[wi].syms = out
		}
	}
	return merges
}

func mapsKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
