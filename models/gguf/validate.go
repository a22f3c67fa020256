package gguf

import (
	"errors"
	"fmt"
	"math"
	"reflect"
)

// ErrMetadata is wrapped by every error of [File.Validate]: a value the
// engine trusts has the wrong type, length or range.
var ErrMetadata = errors.New("gguf: metadata the engine cannot use safely")

// Bounds on hyperparameters. They are far above any published model and far
// below what would overflow the engine's 32-bit arithmetic.
const (
	maxLayers    = 512 // llama.cpp's LLAMA_MAX_LAYERS
	maxExperts   = 512 // llama.cpp's LLAMA_MAX_EXPERTS
	maxContext   = 1 << 24
	maxEmbedding = 1 << 20
	maxHeads     = 1 << 14
	maxVocab     = 1 << 24
)

// specialTokens are the metadata keys holding token ids.
var specialTokens = []string{
	"bos", "eos", "eot", "eom", "unknown", "seperator", "padding", "cls", "mask",
	"fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep", "prefix", "suffix", "middle",
}

// recurrent architectures have no attention heads.
var recurrent = map[string]bool{
	"mamba": true, "mamba2": true, "rwkv6": true, "rwkv6qwen2": true, "rwkv7": true, "arwkv7": true,
}

// Validate checks the metadata llama.cpp reads without checking it first:
// the vocabulary arrays' element types and lengths, unique token texts,
// special token ids inside the vocabulary, and the architecture's
// hyperparameters (present where required, finite, in range). A file that
// passes still goes through llama.cpp's own loader, which checks tensor
// shapes against these values. The error wraps [ErrMetadata].
func (f *File) Validate() error {
	if err := f.validateVocab(); err != nil {
		return fmt.Errorf("%w: %w", ErrMetadata, err)
	}
	if err := f.validateHyper(); err != nil {
		return fmt.Errorf("%w: %w", ErrMetadata, err)
	}
	return nil
}

func (f *File) validateVocab() error {
	if v, ok := f.Get("tokenizer.ggml.model"); ok {
		if _, ok := v.(string); !ok {
			return fmt.Errorf("tokenizer.ggml.model is %s, want string", typeName(v))
		}
	}
	// llama.cpp reads these arrays' elements as the types below without
	// checking (or asserting on) the stored type.
	for _, a := range []struct {
		key  string
		want reflect.Type
	}{
		{"tokenizer.ggml.tokens", reflect.TypeFor[[]string]()},
		{"tokenizer.ggml.scores", reflect.TypeFor[[]float32]()},
		{"tokenizer.ggml.token_type", reflect.TypeFor[[]int32]()},
		{"tokenizer.ggml.merges", reflect.TypeFor[[]string]()},
		{"tokenizer.ggml.precompiled_charsmap", reflect.TypeFor[[]uint8]()},
	} {
		if v, ok := f.Get(a.key); ok && reflect.TypeOf(v) != a.want {
			return fmt.Errorf("%s is %s, want an array of %s", a.key, typeName(v), a.want.Elem())
		}
	}
	v, ok := f.Get("tokenizer.ggml.tokens")
	if !ok {
		return nil // llama.cpp refuses a missing vocabulary itself
	}
	tokens := v.([]string)
	n := len(tokens)
	if n == 0 {
		return errors.New("tokenizer.ggml.tokens is empty")
	}
	if n > maxVocab {
		return fmt.Errorf("tokenizer.ggml.tokens has %d entries (at most %d)", n, maxVocab)
	}
	// llama.cpp renames empty tokens, then asserts that all texts differ.
	seen := make(map[string]int, n)
	for i, t := range tokens {
		if t == "" {
			t = fmt.Sprintf("[EMPTY_%d]", i)
		}
		if j, dup := seen[t]; dup {
			return fmt.Errorf("tokenizer.ggml.tokens: entries %d and %d are both %q", j, i, t)
		}
		seen[t] = i
	}
	for _, key := range []string{"tokenizer.ggml.scores", "tokenizer.ggml.token_type"} {
		if m, ok := f.ArrayLen(key); ok && m != n {
			return fmt.Errorf("%s has %d entries, tokenizer.ggml.tokens %d", key, m, n)
		}
	}
	for _, name := range specialTokens {
		key := "tokenizer.ggml." + name + "_token_id"
		v, ok := f.Get(key)
		if !ok {
			continue
		}
		id, ok := f.Uint(key)
		if !ok {
			return fmt.Errorf("%s is %v (%s), want a token id", key, v, typeName(v))
		}
		if id >= uint64(n) {
			return fmt.Errorf("%s is %d, outside the vocabulary of %d tokens", key, id, n)
		}
	}
	return nil
}

func (f *File) validateHyper() error {
	arch, ok := f.String("general.architecture")
	if !ok {
		return nil // llama.cpp refuses a missing architecture itself
	}
	if arch == "" {
		return errors.New("general.architecture is empty")
	}
	k := func(s string) string { return arch + "." + s }
	layers, err := f.count(k("block_count"), 1, maxLayers, true)
	if err != nil {
		return err
	}
	if _, err := f.count(k("context_length"), 1, maxContext, true); err != nil {
		return err
	}
	embd, err := f.count(k("embedding_length"), 1, maxEmbedding, true)
	if err != nil {
		return err
	}
	for _, key := range []string{"feed_forward_length", "expert_feed_forward_length", "expert_shared_feed_forward_length"} {
		if err := f.perLayer(k(key), layers, 0, 1<<24); err != nil {
			return err
		}
	}
	minHeads := uint64(1)
	if recurrent[arch] {
		minHeads = 0
	}
	heads, err := f.perLayerScalar(k("attention.head_count"), layers, minHeads, maxHeads)
	if err != nil {
		return err
	}
	kvHeads, err := f.perLayerScalar(k("attention.head_count_kv"), layers, 0, maxHeads)
	if err != nil {
		return err
	}
	if heads > 0 && kvHeads > 0 && heads%kvHeads != 0 {
		return fmt.Errorf("%s is %d, which %s %d does not divide", k("attention.head_count"), heads, k("attention.head_count_kv"), kvHeads)
	}
	if heads > embd {
		return fmt.Errorf("%s is %d, more than %s %d", k("attention.head_count"), heads, k("embedding_length"), embd)
	}
	for _, key := range []string{"attention.key_length", "attention.value_length", "rope.dimension_count"} {
		if _, err := f.count(k(key), 1, maxEmbedding, false); err != nil {
			return err
		}
	}
	for _, key := range []string{"attention.layer_norm_epsilon", "attention.layer_norm_rms_epsilon", "attention.group_norm_epsilon"} {
		if err := f.float(k(key), false, 1); err != nil {
			return err
		}
	}
	if err := f.float(k("rope.freq_base"), false, math.MaxFloat32); err != nil {
		return err
	}
	for _, key := range []string{"rope.scaling.factor", "rope.scale_linear", "rope.scaling.attn_factor"} {
		if err := f.float(k(key), true, math.MaxFloat32); err != nil {
			return err
		}
	}
	if err := f.perLayer(k("rope.dimension_sections"), 4, 0, maxEmbedding); err != nil {
		return err
	}
	if v, ok := f.Get(k("rope.scaling.type")); ok {
		switch v {
		case "none", "linear", "yarn", "longrope":
		default:
			return fmt.Errorf("%s is %q, want none, linear, yarn or longrope", k("rope.scaling.type"), v)
		}
	}
	return f.validateExperts(k)
}

// validateExperts mirrors the assertions llama.cpp makes on mixture-of-experts counts.
func (f *File) validateExperts(k func(string) string) error {
	experts, err := f.count(k("expert_count"), 0, maxExperts, false)
	if err != nil {
		return err
	}
	used, err := f.count(k("expert_used_count"), 0, maxExperts, false)
	if err != nil {
		return err
	}
	groups, err := f.count(k("expert_group_count"), 0, maxExperts, false)
	if err != nil {
		return err
	}
	groupsUsed, err := f.count(k("expert_group_used_count"), 0, maxExperts, false)
	if err != nil {
		return err
	}
	bad := func(why string) error {
		return fmt.Errorf("expert counts (%d experts, %d used, %d groups, %d groups used): %s", experts, used, groups, groupsUsed, why)
	}
	switch {
	case used > experts:
		return bad("more used than exist")
	case experts == 0 && (used != 0 || groups != 0):
		return bad("used or grouped experts without experts")
	case experts > 0 && used == 0:
		return bad("no expert used")
	case experts > 0 && groups >= experts:
		return bad("as many groups as experts")
	case groups > 1 && (experts%groups != 0 || groupsUsed == 0 || groupsUsed >= groups):
		return bad("groups do not divide the experts")
	}
	return nil
}

// count checks an integer value in [lo, hi]; a missing key is an error only
// when required. A missing key reads as 0.
func (f *File) count(key string, lo, hi uint64, required bool) (uint64, error) {
	v, ok := f.Get(key)
	if !ok {
		if required {
			return 0, fmt.Errorf("%s is missing", key)
		}
		return 0, nil
	}
	n, ok := f.Uint(key)
	if !ok {
		return 0, fmt.Errorf("%s is %v (%s), want a non-negative integer", key, v, typeName(v))
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%s is %d, want %d to %d", key, n, lo, hi)
	}
	return n, nil
}

// perLayer checks a value that is either one integer or an array with one
// integer per layer, each in [lo, hi].
func (f *File) perLayer(key string, layers, lo, hi uint64) error {
	_, err := f.perLayerScalar(key, layers, lo, hi)
	return err
}

// perLayerScalar is perLayer that also returns the value when it is one
// integer (0 for an array or a missing key).
func (f *File) perLayerScalar(key string, layers, lo, hi uint64) (uint64, error) {
	v, ok := f.Get(key)
	if !ok {
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return f.count(key, lo, hi, false)
	}
	// llama.cpp asserts on any other element type.
	if k := rv.Type().Elem().Kind(); k != reflect.Int32 && k != reflect.Uint32 {
		return 0, fmt.Errorf("%s is %s, want an array of int32 or uint32", key, typeName(v))
	}
	if uint64(rv.Len()) != layers {
		return 0, fmt.Errorf("%s has %d entries for %d layers", key, rv.Len(), layers)
	}
	for i := range rv.Len() {
		e := rv.Index(i)
		var n uint64
		if e.CanInt() {
			if e.Int() < 0 {
				return 0, fmt.Errorf("%s[%d] is %d", key, i, e.Int())
			}
			n = uint64(e.Int())
		} else {
			n = e.Uint()
		}
		if n > hi {
			return 0, fmt.Errorf("%s[%d] is %d, at most %d", key, i, n, hi)
		}
	}
	return 0, nil
}

// float checks an optional floating-point value: finite, above zero (or
// zero when zeroOK), at most hi.
func (f *File) float(key string, zeroOK bool, hi float64) error {
	v, ok := f.Get(key)
	if !ok {
		return nil
	}
	var x float64
	switch y := v.(type) {
	case float32:
		x = float64(y)
	case float64:
		x = y
	default:
		return fmt.Errorf("%s is %v (%s), want a number", key, v, typeName(v))
	}
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%s is %v, want a finite number", key, x)
	case x < 0 || (x == 0 && !zeroOK):
		return fmt.Errorf("%s is %v, want a positive number", key, x)
	case x > hi:
		return fmt.Errorf("%s is %v, at most %v", key, x, hi)
	}
	return nil
}

// typeName names a metadata value's GGUF type, e.g. "uint32" or "array of uint8".
func typeName(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		return "array of " + rv.Type().Elem().String()
	}
	return fmt.Sprintf("%T", v)
}
