// offgrid's engine shim: thin C wrappers over llama.cpp that keep C++
// exceptions and checked-input aborts on the C side.
#include "shim.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// quiet_abort replaces ggml's default abort handler, which forks gdb (or
// lldb) to print a backtrace: print the engine's message, then abort.
void quiet_abort(const char *msg) {
    fprintf(stderr, "offgrid: the engine stopped on an internal check: %s\n", msg);
    fflush(stderr);
}

void og_backend_init(void) {
    // ggml's terminate handler also launches a debugger unless this is set.
    setenv("GGML_NO_BACKTRACE", "1", 1);
    ggml_set_abort_callback(quiet_abort);
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

// valid_utf8_prefix reports whether s is valid UTF-8 (no overlong forms,
// no surrogates, nothing above U+10FFFF), allowing the last sequence to be
// incomplete.
static bool valid_utf8_prefix(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int len;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c == 0xE0) {
            len = 3, lo = 0xA0;
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            len = 3;
        } else if (c == 0xED) {
            len = 3, hi = 0x9F;
        } else if (c == 0xF0) {
            len = 4, lo = 0x90;
        } else if (c >= 0xF1 && c <= 0xF3) {
            len = 4;
        } else if (c == 0xF4) {
            len = 4, hi = 0x8F;
        } else {
            return false;
        }
        for (int k = 1; k < len; k++) {
            if (i + k >= n) {
                return true;  // incomplete final sequence
            }
            unsigned char d = s[i + k];
            if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) {
                return false;
            }
        }
        i += len;
    }
    return true;
}

// utf8_ok reports whether the text so far (of which pending is the
// incomplete UTF-8 tail) stays valid UTF-8 with tok's piece appended. An
// end-of-generation token is only valid on a complete character.
static bool utf8_ok(const struct llama_vocab *vocab, llama_token tok, const char *pending, int32_t n_pending) {
    if (llama_vocab_is_eog(vocab, tok)) {
        return n_pending == 0;
    }
    std::string s(pending, (size_t)n_pending);
    char buf[128];
    int32_t n = llama_token_to_piece(vocab, tok, buf, sizeof buf, 0, true);
    if (n < 0) {
        std::string big((size_t)-n, '\0');
        n = llama_token_to_piece(vocab, tok, &big[0], -n, 0, true);
        s.append(big.data(), n < 0 ? 0 : (size_t)n);
    } else {
        s.append(buf, (size_t)n);
    }
    return valid_utf8_prefix((const unsigned char *)s.data(), s.size());
}

// constrained samples from the candidates the grammar allows that also keep
// the text valid UTF-8. llama.cpp's grammar decodes UTF-8 leniently (it does
// not check continuation bytes), so a grammar alone can accept byte tokens
// that break a JSON string; the first few such choices are banned one by
// one, after that every allowed candidate is checked.
static llama_token constrained(const float *logits, struct llama_sampler *chain, struct llama_sampler *grammar,
                               const struct llama_vocab *vocab, llama_token_data *cands, int32_t n_vocab,
                               const char *pending, int32_t n_pending) {
    std::vector<llama_token> banned;
    for (int attempt = 0; attempt < 10; attempt++) {
        llama_token_data_array arr;
        fill_candidates(logits, cands, n_vocab, &arr);
        for (llama_token b : banned) {
            cands[b].logit = -INFINITY;
        }
        llama_sampler_apply(grammar, &arr);
        if (attempt >= 8) {
            for (size_t i = 0; i < arr.size; i++) {
                if (!std::isinf(arr.data[i].logit) && !utf8_ok(vocab, arr.data[i].id, pending, n_pending)) {
                    arr.data[i].logit = -INFINITY;
                }
            }
        }
        if (!any_allowed(arr)) {
            return -2;
        }
        llama_sampler_apply(chain, &arr);
        llama_token id = selected(arr);
        if (id < 0 || utf8_ok(vocab, id, pending, n_pending)) {
            return id;
        }
        banned.push_back(id);
    }
    return -2;
}

llama_token og_sample(struct llama_context *ctx, struct llama_sampler *chain, struct llama_sampler *grammar,
                      llama_token_data *cands, int32_t n_vocab, bool full_vocab, int32_t *resampled,
                      const char *pending, int32_t n_pending) {
    try {
        const float *logits = llama_get_logits_ith(ctx, -1);
        if (logits == nullptr) {
            return -1;
        }
        // The samplers assert on NaN and infinite logits (as broken weights
        // produce): refuse them here.
        for (int32_t i = 0; i < n_vocab; i++) {
            if (!std::isfinite(logits[i])) {
                return -3;
            }
        }
        const struct llama_vocab *vocab = llama_model_get_vocab(llama_get_model(ctx));
        if (grammar != nullptr && full_vocab) {
            return constrained(logits, chain, grammar, vocab, cands, n_vocab, pending, n_pending);
        }
        llama_token_data_array arr;
        fill_candidates(logits, cands, n_vocab, &arr);
        llama_sampler_apply(chain, &arr);
        llama_token id = selected(arr);
        if (grammar == nullptr || id < 0) {
            return id;
        }
        // Fast path: does the grammar accept the token the model chose?
        llama_token_data one = {id, 1.0f, 0.0f};
        llama_token_data_array single = {&one, 1, -1, false};
        llama_sampler_apply(grammar, &single);
        if (!std::isinf(single.data[0].logit) && utf8_ok(vocab, id, pending, n_pending)) {
            return id;
        }
        // Rejected: constrain the whole vocabulary and sample again.
        if (resampled != nullptr) {
            (*resampled)++;
        }
        return constrained(logits, chain, grammar, vocab, cands, n_vocab, pending, n_pending);
    } catch (const std::exception &e) {
        log_exception("sample", e);
        return -1;
    }
}

float og_prob(struct llama_context *ctx, struct llama_sampler *grammar, llama_token_data *cands, int32_t n_vocab,
              llama_token tok) {
    try {
        const float *logits = llama_get_logits_ith(ctx, -1);
        if (logits == nullptr || tok < 0 || tok >= n_vocab) {
            return -1.0f;
        }
        llama_token_data_array arr;
        fill_candidates(logits, cands, n_vocab, &arr);
        if (grammar != nullptr) {
            llama_sampler_apply(grammar, &arr);
        }
        float top = -INFINITY;
        for (size_t i = 0; i < arr.size; i++) {
            if (!std::isinf(arr.data[i].logit)) {
                top = std::max(top, arr.data[i].logit);
            }
        }
        if (std::isinf(top)) {
            return -1.0f;
        }
        double sum = 0.0, own = 0.0;
        for (size_t i = 0; i < arr.size; i++) {
            if (std::isinf(arr.data[i].logit)) {
                continue;
            }
            double e = std::exp((double)(arr.data[i].logit - top));
            sum += e;
            if (arr.data[i].id == tok) {
                own = e;
            }
        }
        return (float)(own / sum);
    } catch (const std::exception &e) {
        log_exception("prob", e);
        return -1.0f;
    }
}

float og_top(struct llama_context *ctx, int32_t n_vocab, llama_token tok, int32_t k, llama_token *ids, float *probs) {
    try {
        const float *logits = llama_get_logits_ith(ctx, -1);
        if (logits == nullptr || tok < 0 || tok >= n_vocab || k < 0) {
            return -1.0f;
        }
        float top = -INFINITY;
        for (int32_t i = 0; i < n_vocab; i++) {
            top = std::max(top, logits[i]);
        }
        if (!std::isfinite(top)) {
            return -1.0f;
        }
        for (int32_t j = 0; j < k; j++) {
            ids[j] = -1;
            probs[j] = 0.0f;
        }
        double sum = 0.0;
        for (int32_t i = 0; i < n_vocab; i++) {
            sum += std::exp((double)(logits[i] - top));
            if (i == tok || k == 0 || (ids[k - 1] >= 0 && logits[i] <= logits[ids[k - 1]])) {
                continue;
            }
            int32_t j = k - 1; // insert i, keeping ids sorted by logit
            while (j > 0 && (ids[j - 1] < 0 || logits[i] > logits[ids[j - 1]])) {
                ids[j] = ids[j - 1];
                j--;
            }
            ids[j] = i;
        }
        for (int32_t j = 0; j < k && ids[j] >= 0; j++) {
            probs[j] = (float)(std::exp((double)(logits[ids[j]] - top)) / sum);
        }
        return (float)(std::exp((double)(logits[tok] - top)) / sum);
    } catch (const std::exception &e) {
        log_exception("top", e);
        return -1.0f;
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

size_t og_state_size(struct llama_context *ctx) {
    try {
        return llama_state_seq_get_size(ctx, 0);
    } catch (const std::exception &e) {
        log_exception("state size", e);
        return 0;
    }
}

size_t og_state_get(struct llama_context *ctx, uint8_t *buf, size_t size) {
    try {
        return llama_state_seq_get_data(ctx, buf, size, 0);
    } catch (const std::exception &e) {
        log_exception("state save", e);
        return 0;
    }
}

size_t og_state_set(struct llama_context *ctx, const uint8_t *buf, size_t size) {
    try {
        size_t n = llama_state_seq_set_data(ctx, buf, size, 0);
        if (n == 0) {
            llama_memory_seq_rm(llama_get_memory(ctx), 0, -1, -1);
        }
        return n;
    } catch (const std::exception &e) {
        log_exception("state load", e);
        llama_memory_seq_rm(llama_get_memory(ctx), 0, -1, -1);
        return 0;
    }
}

}  // extern "C"
