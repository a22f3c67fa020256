// C interface of offgrid's engine shim. Every function catches C++
// exceptions and reports failure through its return value, so no exception
// and no abort path for checked inputs crosses into Go.
#ifndef OFFGRID_SHIM_H
#define OFFGRID_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__has_include)
#if !__has_include("llama.h")
#error "offgrid: the engine's headers are not on the include path: export CGO_CPPFLAGS=\"-I$(go list -m -f '{{.Dir}}' github.com/ollama/ollama)/llama/llama.cpp/include -I$(go list -m -f '{{.Dir}}' github.com/ollama/ollama)/ml/backend/ggml/ggml/include\" (make does it; see the README)"
#endif
#endif
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

// Logging: engine messages are kept in a small ring buffer (the recent
// warnings and errors are quoted in Go errors) and printed to stderr only
// when verbose is set.
void og_log_init(bool verbose);
// og_log_take copies and clears the recent warning/error text.
size_t og_log_take(char *buf, size_t len);

// og_backend_init initializes llama.cpp and replaces ggml's abort handler,
// which would launch a debugger, with one that prints the message.
void og_backend_init(void);

struct llama_model *og_model_load(const char *path, int32_t n_gpu_layers, bool use_mmap, bool vocab_only);

// Abort flag polled by llama_decode through the abort callback.
typedef struct og_abort {
    volatile int flag;
} og_abort;
bool og_abort_cb(void *data);

struct llama_context *og_context_new(struct llama_model *model, uint32_t n_ctx, uint32_t n_batch,
                                     int32_t n_threads, og_abort *abort_flag);

int32_t og_tokenize(const struct llama_vocab *vocab, const char *text, int32_t len, llama_token *out,
                    int32_t max, bool add_special, bool parse_special);
int32_t og_token_to_piece(const struct llama_vocab *vocab, llama_token tok, char *buf, int32_t len,
                          bool special);

// og_decode decodes n tokens at positions pos0.. in sequence 0, in chunks of
// the batch size, with logits for the last token only. It returns 0 on
// success, 2 when aborted, and another non-zero value on failure.
int32_t og_decode(struct llama_context *ctx, struct llama_batch *batch, int32_t n_batch,
                  const llama_token *tokens, int32_t n, int32_t pos0);

struct llama_sampler *og_chain_new(float temp, int32_t top_k, float top_p, float min_p,
                                   float repeat_penalty, int32_t repeat_last_n, uint32_t seed);

// og_grammar_new returns NULL when the grammar or a trigger pattern is
// rejected; og_log_take then holds llama.cpp's reason. vocab may be NULL
// for a parse-only check.
struct llama_sampler *og_grammar_new(const struct llama_vocab *vocab, const char *gbnf, const char *root,
                                     const char **patterns, size_t n_patterns,
                                     const llama_token *tokens, size_t n_tokens);

// og_sample picks the next token from the logits of the last decoded token.
// With full_vocab false it samples without the grammar first and applies the
// grammar to the whole vocabulary only when the grammar rejects the choice
// (*resampled is then incremented). It returns -1 on failure, -2 when
// the grammar allows no token of the vocabulary and -3 when a logit is NaN
// or infinite. With a grammar, tokens that
// would make the text invalid UTF-8 (pending is the text's incomplete UTF-8
// tail) are never chosen.
llama_token og_sample(struct llama_context *ctx, struct llama_sampler *chain, struct llama_sampler *grammar,
                      llama_token_data *cands, int32_t n_vocab, bool full_vocab, int32_t *resampled,
                      const char *pending, int32_t n_pending);

// og_prob returns the probability of tok among the tokens grammar (may be
// NULL) allows after the last decoded token, the logits at temperature 1;
// -1 on failure. Call it before og_accept feeds tok to the grammar.
float og_prob(struct llama_context *ctx, struct llama_sampler *grammar, llama_token_data *cands, int32_t n_vocab,
              llama_token tok);

// og_top returns the probability of tok after the last decoded token, the
// logits at temperature 1 without a grammar, and fills ids and probs with
// the k most probable other tokens, most probable first; -1 on failure.
float og_top(struct llama_context *ctx, int32_t n_vocab, llama_token tok, int32_t k, llama_token *ids, float *probs);

// og_accept feeds the chosen token to the chain and the grammar. It returns
// false when the grammar cannot accept it.
bool og_accept(struct llama_sampler *chain, struct llama_sampler *grammar, llama_token tok);

// og_state_size returns the bytes the KV state of sequence 0 takes (0 on
// failure). og_state_get copies it into buf and returns the bytes written
// (0 on failure); og_state_set replaces sequence 0 with a state copied
// earlier and returns the bytes read (0 when the state does not fit this
// context: then the sequence is empty).
size_t og_state_size(struct llama_context *ctx);
size_t og_state_get(struct llama_context *ctx, uint8_t *buf, size_t size);
size_t og_state_set(struct llama_context *ctx, const uint8_t *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
