// Package synth generates tiny random-weight llama models as GGUF files.
//
// The models are real to llama.cpp: a llama architecture with a byte-level
// BPE vocabulary (any UTF-8 text can be spelled), merges learned from a
// small built-in corpus, special tokens for ChatML and Hermes tool calls,
// and a chat template of our own ([ChatTemplate]). Their weights are
// random, so what they say is noise, but they load in milliseconds and run
// every code path of the engine, the grammar and the agent. The same seed
// always gives the same bytes.
package synth
