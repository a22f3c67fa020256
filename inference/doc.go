// Package inference runs GGUF language models in-process through llama.cpp.
//
// The package is a cgo binding of our own over the pinned engine in
// third_party/llamacpp. It hides every C type: callers see [Model],
// [Context], token slices and plain Go structs. Load a model, open a
// context, then stream tokens with [Context.Generate]:
//
//	m, err := inference.Load("model.gguf", inference.ModelOptions{})
//	...
//	c, err := m.NewContext(inference.ContextOptions{ContextSize: 4096})
//	...
//	prompt, err := m.Tokenize("Hello", true, false)
//	res, err := c.Generate(ctx, inference.Request{Prompt: prompt, MaxTokens: 64},
//		func(p inference.Piece) error { fmt.Print(p.Text); return nil })
//
// The request and result types (inference.go) are plain Go and build without
// cgo, so packages above the engine (the agent, the benchmark) can depend on
// them and be tested with a scripted engine.
//
// # Go ↔ C mapping
//
// The binding keeps every C type inside this package:
//
//	Go                      C (llama.h)
//	*Model                  struct llama_model * (+ its const struct llama_vocab *)
//	*Context                struct llama_context *, a struct llama_batch sized to the
//	                        batch, a llama_token_data buffer of vocabulary size for
//	                        sampling, and an og_abort flag in C memory
//	Token (int32)           llama_token
//	Sampling                a llama_sampler chain: penalties → top-k → top-p → min-p →
//	                        temperature → dist(seed), or greedy when Temperature is 0
//	Grammar                 llama_sampler_init_grammar, or
//	                        llama_sampler_init_grammar_lazy_patterns when it has triggers
//	ModelOptions            struct llama_model_params (n_gpu_layers, use_mmap, vocab_only)
//	ContextOptions          struct llama_context_params (n_ctx, n_batch = n_ubatch,
//	                        n_threads, swa_full so any shared prefix stays reusable)
//
// Saved KV states: Context.SaveState and LoadState wrap
// llama_state_seq_get_data and llama_state_seq_set_data for sequence 0 (the
// only one). A Request.Prefix is decoded in its own llama_decode calls, so
// its keys and values do not depend on what follows; a PrefixCache (see
// inference/promptcache) then stores and restores exactly those bytes.
//
// Every call that can throw a C++ exception goes through shim.cpp, whose
// functions catch it and return a failure code; the engine's log is kept in
// a small buffer there and quoted in the Go error. Inputs that would trip a
// GGML_ASSERT (tokens outside the vocabulary, prompts longer than the window,
// bad trigger patterns) are checked in Go before the call.
//
// Cancellation: Generate registers context.AfterFunc to raise the context's
// abort flag; llama_decode polls it through its abort callback and returns
// early, after which the KV cache is trimmed back to the tokens known to be
// in it, so the Context stays usable.
//
// Sampling with a grammar follows llama.cpp's common sampler: the chain
// picks a token from the raw logits first and the grammar only checks that
// one token; when the grammar rejects it, the grammar is applied to the
// whole vocabulary and the chain samples again (GrammarSampleFirst).
// GrammarFullVocab applies the grammar to every candidate each step.
package inference
