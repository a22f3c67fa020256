// offgrid's engine shim: thin C wrappers over llama.cpp that keep C++
// exceptions and checked-input aborts on the C side.
#include "shim.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex log_mu;
std::string log_ring;  // recent warnings and errors
bool log_verbose = false;
constexpr size_t kLogMax = 4096;

void log_append(const char *text) {
    std::lock_guard<std::mutex> lock(log_mu);
    log_ring += text;
    if (log_ring.size() > kLogMax) {
        log_ring.erase(0, log_ring.size() - kLogMax);
    }
}

void og_log_cb(enum ggml_log_level level, const char *text, void *) {
    if (text == nullptr) {
        return;
    }
    if (log_verbose) {
        fputs(text, stderr);
    }
    static thread_local enum ggml_log_level last = GGML_LOG_LEVEL_NONE;
    if (level == GGML_LOG_LEVEL_CONT) {
        level = last;
    }
    last = level;
    if (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR) {
        log_append(text);
    }
}

void log_exception(const char *where, const std::exception &e) {
    std::string msg = std::string(where) + ": " + e.what() + "\n";
    log_append(msg.c_str());
}

}  // namespace

extern "C" {

void og_log_init(bool verbose) {
    log_verbose = verbose;
    llama_log_set(og_log_cb, nullptr);
}

size_t og_log_take(char *buf, size_t len) {
    std::lock_guard<std::mutex> lock(log_mu);
    size_t n = log_ring.size() < len ? log_ring.size() : len;
    memcpy(buf, log_ring.data() + (log_ring.size() - n), n);
    log_ring.clear();
    return n;
}

void og_backend_init(void) {
    try {
        llama_backend_init();
    } catch (const std::exception &e) {
        log_exception("backend init", e);
    }
}

struct llama_model *og_model_load(const char *path, int32_t n_gpu_layers, bool use_mmap, bool vocab_only) {
    try {
        llama_model_params p = llama_model_default_params();
        p.n_gpu_layers = n_gpu_layers;
        p.use_mmap = use_mmap;
        p.vocab_only = vocab_only;
        return llama_model_load_from_file(path, p);
    } catch (const std::exception &e) {
        log_exception("load", e);
        return nullptr;
    }
}

bool og_abort_cb(void *data) {
    return data != nullptr && static_cast<og_abort *>(data)->flag != 0;
}

struct llama_context *og_context_new(struct llama_model *model, uint32_t n_ctx, uint32_t n_batch,
                                     int32_t n_threads, og_abort *abort_flag) {
    try {
        llama_context_params p = llama_context_default_params();
        p.n_ctx = n_ctx;
        p.n_batch = n_batch;
        p.n_ubatch = n_batch;
        p.n_seq_max = 1;
        p.n_threads = n_threads;
        p.n_threads_batch = n_threads;
        p.swa_full = true;  // keep the whole window so any shared prefix can be reused
        p.no_perf = true;
        p.abort_callback = og_abort_cb;
        p.abort_callback_data = abort_flag;
        return llama_init_from_model(model, p);
    } catch (const std::exception &e) {
        log_exception("context", e);
        return nullptr;
    }
}

int32_t og_tokenize(const struct llama_vocab *vocab, const char *text, int32_t len, llama_token *out,
                    int32_t max, bool add_special, bool parse_special) {
    try {
        return llama_tokenize(vocab, text, len, out, max, add_special, parse_special);
    } catch (const std::exception &e) {
        log_exception("tokenize", e);
        return INT32_MIN;
    }
}

int32_t og_token_to_piece(const struct llama_vocab *vocab, llama_token tok, char *buf, int32_t len,
                          bool special) {
    try {
        return llama_token_to_piece(vocab, tok, buf, len, 0, special);
    } catch (const std::exception &e) {
        log_exception("token to piece", e);
        return INT32_MIN;
    }
}

int32_t og_decode(struct llama_context *ctx, struct llama_batch *batch, int32_t n_batch,
                  const llama_token *tokens, int32_t n, int32_t pos0) {
    try {
        for (int32_t start = 0; start < n; start += n_batch) {
            int32_t m = n - start < n_batch ? n - start : n_batch;
            batch->n_tokens = m;
            for (int32_t i = 0; i < m; i++) {
                batch->token[i] = tokens[start + i];
                batch->pos[i] = pos0 + start + i;
                batch->n_seq_id[i] = 1;
                batch->seq_id[i][0] = 0;
                batch->logits[i] = (start + i == n - 1) ? 1 : 0;
            }
            int32_t rc = llama_decode(ctx, *batch);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    } catch (const std::exception &e) {
        log_exception("decode", e);
        return -100;
    }
}

struct llama_sampler *og_chain_new(float temp, int32_t top_k, float top_p, float min_p,
                                   float repeat_penalty, int32_t repeat_last_n, uint32_t seed) {
    try {
        llama_sampler_chain_params cp = llama_sampler_chain_default_params();
        cp.no_perf = true;
        llama_sampler *chain = llama_sampler_chain_init(cp);
        if (repeat_penalty > 0 && repeat_penalty != 1.0f) {
            llama_sampler_chain_add(chain, llama_sampler_init_penalties(repeat_last_n, repeat_penalty, 0, 0));
        }
        if (temp <= 0) {
            llama_sampler_chain_add(chain, llama_sampler_init_greedy());
            return chain;
        }
        if (top_k > 0) {
            llama_sampler_chain_add(chain, llama_sampler_init_top_k(top_k));
        }
        if (top_p > 0 && top_p < 1) {
            llama_sampler_chain_add(chain, llama_sampler_init_top_p(top_p, 1));
        }
        if (min_p > 0) {
            llama_sampler_chain_add(chain, llama_sampler_init_min_p(min_p, 1));
        }
        llama_sampler_chain_add(chain, llama_sampler_init_temp(temp));
        llama_sampler_chain_add(chain, llama_sampler_init_dist(seed));
        return chain;
    } catch (const std::exception &e) {
        log_exception("sampler", e);
        return nullptr;
    }
}

struct llama_sampler *og_grammar_new(const struct llama_vocab *vocab, const char *gbnf, const char *root,
                                     const char **patterns, size_t n_patterns,
                                     const llama_token *tokens, size_t n_tokens) {
    try {
        if (n_patterns == 0 && n_tokens == 0) {
            return llama_sampler_init_grammar(vocab, gbnf, root);
        }
        return llama_sampler_init_grammar_lazy_patterns(vocab, gbnf, root, patterns, n_patterns, tokens,
                                                        n_tokens);
    } catch (const std::exception &e) {
        log_exception("grammar", e);
        return nullptr;
    }
}

static void fill_candidates(const float *logits, llama_token_data *cands, int32_t n_vocab,
                            llama_token_data_array *arr) {
    for (int32_t i = 0; i < n_vocab; i++) {
        cands[i].id = i;
        cands[i].logit = logits[i];
        cands[i].p = 0.0f;
    }
    arr->data = cands;
    arr->size = (size_t)n_vocab;
    arr->selected = -1;
    arr->sorted = false;
}

// any_allowed reports whether the grammar left at least one candidate.
static bool any_allowed(const llama_token_data_array &arr) {
    for (size_t i = 0; i < arr.size; i++) {
        if (!std::isinf(arr.data[i].logit)) {
            return true;
        }
    }
    return false;
}

static llama_token selected(const llama_token_data_array &arr) {
    if (arr.selected < 0 || (size_t)arr.selected >= arr.size) {
        return -1;
    }
    return arr.data[arr.selected].id;
}

llama_token og_sample(struct llama_context *ctx, struct llama_sampler *chain, struct llama_sampler *grammar,
                      llama_token_data *cands, int32_t n_vocab, bool full_vocab, int32_t *resampled) {
    try {
        const float *logits = llama_get_logits_ith(ctx, -1);
        if (logits == nullptr) {
            return -1;
        }
        llama_token_data_array arr;
        fill_candidates(logits, cands, n_vocab, &arr);
        if (grammar != nullptr && full_vocab) {
            llama_sampler_apply(grammar, &arr);
            if (!any_allowed(arr)) {
                return -2;
            }
            llama_sampler_apply(chain, &arr);
            return selected(arr);
        }
        llama_sampler_apply(chain, &arr);
        llama_token id = selected(arr);
        if (grammar == nullptr || id < 0) {
            return id;
        }
        // Fast path: does the grammar accept the token the model chose?
        llama_token_data one = {id, 1.0f, 0.0f};
        llama_token_data_array single = {&one, 1, -1, false};
        llama_sampler_apply(grammar, &single);
        if (!std::isinf(single.data[0].logit)) {
            return id;
        }
        // Rejected: constrain the whole vocabulary and sample again.
        if (resampled != nullptr) {
            (*resampled)++;
        }
        fill_candidates(logits, cands, n_vocab, &arr);
        llama_sampler_apply(grammar, &arr);
        if (!any_allowed(arr)) {
            return -2;
        }
        llama_sampler_apply(chain, &arr);
        return selected(arr);
    } catch (const std::exception &e) {
        log_exception("sample", e);
        return -1;
    }
}

bool og_accept(struct llama_sampler *chain, struct llama_sampler *grammar, llama_token tok) {
    try {
        if (grammar != nullptr) {
            llama_sampler_accept(grammar, tok);
        }
        llama_sampler_accept(chain, tok);
        return true;
    } catch (const std::exception &e) {
        log_exception("accept", e);
        return false;
    }
}

}  // extern "C"
