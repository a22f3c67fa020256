package inference

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/offgrid-ai/offgrid/third_party/llamacpp"
)

// Context is a decoding context over a Model: a KV cache and a batch. It
// remembers which tokens its KV cache holds, so a request that shares a
// prefix with the previous one decodes only the new suffix. A Context is
// not safe for concurrent use.
type Context struct {
	m      *Model
	c      *C.struct_llama_context
	batch  C.struct_llama_batch
	abort  *C.og_abort // C memory: read by llama.cpp's threads
	cands  *C.llama_token_data
	nVocab int
	nBatch int
	nCtx   int
	cached []Token // tokens whose keys and values are in the cache, in order
	layout string
	pcache PrefixCache
}

// NewContext creates a decoding context. It keeps the model's weights
// alive until it is closed, even if the model is closed first.
func (m *Model) NewContext(opts ContextOptions) (*Context, error) {
	if err := m.acquire(); err != nil {
		return nil, err
	}
	x, err := m.newContext(opts)
	if err != nil {
		m.release()
	}
	return x, err
}

func (m *Model) newContext(opts ContextOptions) (*Context, error) {
	nCtx := opts.ContextSize
	if nCtx <= 0 {
		nCtx = min(m.contextLength(), 4096)
	}
	if nCtx <= 0 {
		nCtx = 4096
	}
	nBatch := opts.BatchSize
	if nBatch <= 0 {
		nBatch = 512
	}
	nBatch = min(nBatch, nCtx)
	threads := opts.Threads
	if threads <= 0 {
		threads = PhysicalCores()
	}
	abort := (*C.og_abort)(C.calloc(1, C.size_t(unsafe.Sizeof(C.og_abort{}))))
	engineLog()
	c := C.og_context_new(m.c, C.uint32_t(nCtx), C.uint32_t(nBatch), C.int32_t(threads), abort)
	if c == nil {
		C.free(unsafe.Pointer(abort))
		return nil, engineError(nil, "inference: cannot create context (n_ctx %d)", nCtx)
	}
	nVocab := m.vocabSize()
	x := &Context{
		m:      m,
		c:      c,
		batch:  C.llama_batch_init(C.int32_t(nBatch), 0, 1),
		abort:  abort,
		cands:  (*C.llama_token_data)(C.calloc(C.size_t(nVocab), C.size_t(unsafe.Sizeof(C.llama_token_data{})))),
		nVocab: nVocab,
		nBatch: nBatch,
		nCtx:   int(C.llama_n_ctx(c)),
	}
	// Everything that changes the bytes of a saved KV state or the values
	// in it: the engine version and its build (SIMD, repacking: the
	// system info line), the window, the batch that decoded it, the
	// cache types and attention kernel (llama.cpp's defaults) and where
	// the layers ran.
	x.layout = fmt.Sprintf("llama.cpp %s; %s; n_ctx %d; n_batch %d; n_seq 1; kv f16/f16; flash_attn auto; swa_full; gpu_layers %d",
		llamacpp.Commit(), strings.TrimSpace(C.GoString(C.llama_print_system_info())), x.nCtx, nBatch, m.gpuLayers)
	runtime.SetFinalizer(x, (*Context).Close)
	return x, nil
}

// Close frees the context; a second Close does nothing. After Close its
// methods return zero values or ErrClosed.
func (x *Context) Close() error {
	if x.c == nil {
		return nil
	}
	C.llama_free(x.c)
	C.llama_batch_free(x.batch)
	C.free(unsafe.Pointer(x.abort))
	C.free(unsafe.Pointer(x.cands))
	x.c, x.abort, x.cands = nil, nil, nil
	x.nCtx, x.cached = 0, nil
	runtime.SetFinalizer(x, nil)
	x.m.release()
	return nil
}

// Model returns the model the context decodes.
func (x *Context) Model() *Model { return x.m }

// Size is the context window in tokens (0 after Close).
func (x *Context) Size() int { return x.nCtx }

// Cached returns a copy of the tokens currently held in the KV cache.
func (x *Context) Cached() []Token { return append([]Token(nil), x.cached...) }

// Layout describes what a saved KV state of this context depends on
// besides the model: PrefixCache keys carry it.
func (x *Context) Layout() string { return x.layout }

// SetPrefixCache makes Generate load and save the Request.Prefix part of
// prompts through pc; nil turns it off.
func (x *Context) SetPrefixCache(pc PrefixCache) { x.pcache = pc }

// SaveState returns the KV state of the tokens in the cache (Cached), for
// LoadState in a context of the same model and Layout.
func (x *Context) SaveState() ([]byte, error) {
	if x.c == nil {
		return nil, ErrClosed
	}
	size := C.og_state_size(x.c)
	if size == 0 {
		return nil, engineError(nil, "inference: cannot size the KV state")
	}
	buf := make([]byte, int(size))
	n := C.og_state_get(x.c, (*C.uint8_t)(unsafe.Pointer(&buf[0])), size)
	if n == 0 {
		return nil, engineError(nil, "inference: cannot save the KV state")
	}
	return buf[:n], nil
}

// LoadState replaces the KV cache with a state SaveState returned when
// the cache held tokens. On failure the cache is empty.
func (x *Context) LoadState(tokens []Token, state []byte) error {
	if x.c == nil {
		return ErrClosed
	}
	if err := x.m.checkTokens(tokens); err != nil {
		return err
	}
	if len(tokens) >= x.nCtx {
		return fmt.Errorf("%w: %d tokens, window %d", ErrContextFull, len(tokens), x.nCtx)
	}
	if len(state) == 0 {
		return errors.New("inference: empty KV state")
	}
	x.cached = x.cached[:0]
	engineLog()
	if C.og_state_set(x.c, (*C.uint8_t)(unsafe.Pointer(&state[0])), C.size_t(len(state))) == 0 {
		return engineError(nil, "inference: the KV state does not fit this context")
	}
	if got := int(C.llama_memory_seq_pos_max(C.llama_get_memory(x.c), 0)) + 1; got != len(tokens) {
		x.Reset()
		return fmt.Errorf("inference: the KV state holds %d tokens, not %d", got, len(tokens))
	}
	x.cached = append(x.cached, tokens...)
	return nil
}

// Reset empties the KV cache.
func (x *Context) Reset() {
	if x.c == nil {
		return
	}
	C.llama_memory_clear(C.llama_get_memory(x.c), C.bool(true))
	x.cached = x.cached[:0]
}

// Tokenize is Model.Tokenize, so a Context alone can serve a caller. It
// works until the Context is closed, whether or not the Model is.
func (x *Context) Tokenize(text string, addSpecial, parseSpecial bool) ([]Token, error) {
	if x.c == nil {
		return nil, ErrClosed
	}
	return x.m.tokenize(text, addSpecial, parseSpecial)
}

// Generate continues req.Prompt and streams the output to fn (which may be
// nil). It returns when an end-of-generation token, a stop string,
// MaxTokens or the end of the window is reached, when fn returns an error
// (ErrStop ends without error), or when ctx is cancelled — then decoding is
// interrupted promptly through llama.cpp's abort callback and ctx.Err() is
// returned. The Context stays usable after any return.
func (x *Context) Generate(ctx context.Context, req Request, fn func(Piece) error) (res Result, err error) {
	if x.c == nil {
		return res, ErrClosed
	}
	if len(req.Prompt) == 0 {
		return res, errors.New("inference: empty prompt")
	}
	if err := x.m.checkTokens(req.Prompt); err != nil {
		return res, err
	}
	if len(req.Prompt) >= x.nCtx {
		return res, fmt.Errorf("%w: %d prompt tokens, window %d", ErrContextFull, len(req.Prompt), x.nCtx)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}

	chain := C.og_chain_new(C.float(req.Sampling.Temperature), C.int32_t(req.Sampling.TopK), C.float(req.Sampling.TopP),
		C.float(req.Sampling.MinP), C.float(req.Sampling.RepeatPenalty), C.int32_t(repeatLastN(req.Sampling)), C.uint32_t(req.Sampling.Seed))
	if chain == nil {
		return res, engineError(nil, "inference: cannot build sampler")
	}
	defer C.llama_sampler_free(chain)
	var grammar *C.struct_llama_sampler
	if req.Grammar != nil {
		g, err := x.m.newGrammar(req.Grammar)
		if err != nil {
			return res, err
		}
		grammar = g
		defer C.llama_sampler_free(grammar)
	}

	// Watch ctx: cancellation raises the abort flag that llama_decode polls.
	x.abort.flag = 0
	fired := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() { x.abort.flag = 1; close(fired) })
	defer func() {
		// If the watcher already started, wait for it: lowering the flag
		// before it is raised would abort the next request.
		if !stopWatch() {
			<-fired
		}
		x.abort.flag = 0
	}()

	// Prompt: keep the shared prefix, decode the rest.
	res.Stats.PromptTokens = len(req.Prompt)
	start := time.Now()
	n := commonPrefix(x.cached, req.Prompt)
	if n == len(req.Prompt) {
		n-- // the last prompt token is decoded again to get its logits
	}
	if n < len(x.cached) {
		if !C.llama_memory_seq_rm(C.llama_get_memory(x.c), 0, C.llama_pos(n), -1) {
			x.Reset()
			n = 0
		}
		x.cached = x.cached[:n]
	}
	res.Stats.PromptReused = n
	if p := req.Prefix; p > n && p < len(req.Prompt) {
		loaded, decoded, err := x.prefix(ctx, req.Prompt[:p])
		if err != nil {
			return res, err
		}
		if loaded {
			res.Stats.PromptReused, res.Stats.PromptLoaded = 0, p
		} else {
			res.Stats.PromptReused = p - decoded // less than n after a failed load
		}
	}
	if err := x.decode(ctx, req.Prompt[len(x.cached):]); err != nil {
		return res, err
	}
	res.Stats.PromptDecoded = len(req.Prompt) - res.Stats.PromptReused - res.Stats.PromptLoaded
	res.Stats.PromptDuration = time.Since(start)

	// Generation.
	start = time.Now()
	defer func() { res.Stats.GenerateDuration = time.Since(start) }()
	out := newStreamer(req.Stop, fn)
	var resampled C.int32_t
	defer func() { res.Stats.GrammarResamples = int(resampled) }()
	for {
		if err := ctx.Err(); err != nil {
			res.StopReason = StopCancelled
			res.Text, res.Tokens = out.text(), out.tokens
			return res, err
		}
		if req.MaxTokens > 0 && len(out.tokens) >= req.MaxTokens {
			res.StopReason = StopMaxTokens
			break
		}
		if len(x.cached) >= x.nCtx {
			res.StopReason = StopContextFull
			break
		}
		tail := out.pending()
		var ptail *C.char
		if len(tail) > 0 {
			ptail = (*C.char)(unsafe.Pointer(unsafe.StringData(tail)))
		}
		tok := C.og_sample(x.c, chain, grammar, x.cands, C.int32_t(x.nVocab), C.bool(req.GrammarMode == GrammarFullVocab), &resampled,
			ptail, C.int32_t(len(tail)))
		switch {
		case tok == -2:
			return res, engineError(ErrInvalidGrammar, "inference: the grammar allows no token here (after %q)", out.text())
		case tok == -3:
			return res, fmt.Errorf("%w (after %d generated tokens)", ErrNonFinite, len(out.tokens))
		case tok < 0:
			return res, engineError(nil, "inference: sampling failed")
		}
		res.Stats.Generated++
		if req.FirstProb && res.Stats.Generated == 1 {
			if p := float64(C.og_prob(x.c, grammar, x.cands, C.int32_t(x.nVocab), tok)); p > 0 {
				res.FirstProb = p
			}
		}
		if req.Alternatives > 0 {
			res.Steps = append(res.Steps, x.step(Token(tok), req.Alternatives))
		}
		if !C.og_accept(chain, grammar, tok) {
			return res, engineError(ErrInvalidGrammar, "inference: grammar rejected token %d", tok)
		}
		if x.m.isEOG(Token(tok)) {
			res.StopReason = StopEOG
			break
		}
		stop, err := out.add(Token(tok), x.m.piece(Token(tok), true))
		if err != nil {
			if errors.Is(err, ErrStop) {
				res.StopReason = StopCallback
				break
			}
			res.Text, res.Tokens = out.text(), out.tokens
			return res, err
		}
		if stop {
			res.StopReason = StopString
			break
		}
		if err := x.decode(ctx, []Token{Token(tok)}); err != nil {
			if ctx.Err() != nil {
				res.StopReason = StopCancelled
			}
			res.Text, res.Tokens = out.text(), out.tokens
			return res, err
		}
	}
	if err := out.flush(); err != nil && !errors.Is(err, ErrStop) {
		return res, err
	}
	res.Text, res.Tokens = out.text(), out.tokens
	return res, nil
}

// step returns tok's probability and the k most probable other tokens
// after the last decoded token (Request.Alternatives).
func (x *Context) step(tok Token, k int) Step {
	s := Step{Token: tok, Text: x.m.piece(tok, true)}
	ids := make([]C.llama_token, k)
	probs := make([]C.float, k)
	p := C.og_top(x.c, C.int32_t(x.nVocab), C.llama_token(tok), C.int32_t(k), &ids[0], &probs[0])
	if p < 0 {
		return s
	}
	s.Prob = float64(p)
	for i := range ids {
		if ids[i] < 0 {
			break
		}
		s.Alts = append(s.Alts, Alt{Token: Token(ids[i]), Text: x.m.piece(Token(ids[i]), true), Prob: float64(probs[i])})
	}
	return s
}

// prefix brings the cache to hold exactly prefix, of which it holds a
// shorter part: loaded from the PrefixCache, or decoded (and then saved
// there). It reports whether the state was loaded, else how many tokens
// it decoded.
func (x *Context) prefix(ctx context.Context, prefix []Token) (loaded bool, decoded int, err error) {
	if x.pcache != nil {
		if state, ok := x.pcache.Load(x.layout, prefix); ok {
			if x.LoadState(prefix, state) == nil {
				return true, 0, nil
			}
			// Not loadable after all (the cache checked it against our
			// key): the cache is empty; decode the prefix, and the Save
			// below replaces the entry.
		}
	}
	decoded = len(prefix) - len(x.cached)
	if err := x.decode(ctx, prefix[len(x.cached):]); err != nil {
		return false, 0, err
	}
	if x.pcache != nil {
		if state, err := x.SaveState(); err == nil {
			x.pcache.Save(x.layout, prefix, state)
		}
	}
	return false, decoded, nil
}

// decode appends tokens to the KV cache. On failure or cancellation the
// cache is trimmed back to what is known to be in it.
func (x *Context) decode(ctx context.Context, tokens []Token) error {
	if len(tokens) == 0 {
		return nil
	}
	if len(x.cached)+len(tokens) > x.nCtx {
		return fmt.Errorf("%w: %d tokens, window %d", ErrContextFull, len(x.cached)+len(tokens), x.nCtx)
	}
	rc := C.og_decode(x.c, &x.batch, C.int32_t(x.nBatch), (*C.llama_token)(unsafe.Pointer(&tokens[0])),
		C.int32_t(len(tokens)), C.int32_t(len(x.cached)))
	if rc != 0 {
		// Part of the tokens may be in the cache: drop everything past the
		// known prefix so the next request starts from a consistent state.
		C.llama_memory_seq_rm(C.llama_get_memory(x.c), 0, C.llama_pos(len(x.cached)), -1)
		if rc == 2 || ctx.Err() != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			return context.Canceled
		}
		return engineError(nil, "inference: decode failed (code %d)", int(rc))
	}
	x.cached = append(x.cached, tokens...)
	return nil
}

func repeatLastN(s Sampling) int {
	if s.RepeatLastN == 0 {
		return 64
	}
	return s.RepeatLastN
}

func commonPrefix(a, b []Token) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// streamer turns token pieces into displayable text: it holds back
// incomplete UTF-8 sequences and any tail that could begin a stop string.
type streamer struct {
	stop    []string
	fn      func(Piece) error
	buf     strings.Builder // all text so far
	emitted int             // bytes of buf delivered to fn
	cut     int             // -1, or where a stop string begins
	tokens  []Token
}

func newStreamer(stop []string, fn func(Piece) error) *streamer {
	var s []string
	for _, x := range stop {
		if x != "" {
			s = append(s, x)
		}
	}
	return &streamer{stop: s, fn: fn, cut: -1}
}

// add records a token and its piece. It reports whether a stop string was
// completed.
func (s *streamer) add(tok Token, piece string) (bool, error) {
	s.tokens = append(s.tokens, tok)
	s.buf.WriteString(piece)
	text := s.buf.String()
	for _, st := range s.stop {
		// Only text near the end can hold a new match.
		from := max(0, s.emitted-len(st))
		if i := strings.Index(text[from:], st); i >= 0 {
			s.cut = from + i
			return true, s.deliver(tok, text[:s.cut])
		}
	}
	safe := len(text)
	for _, st := range s.stop {
		for k := min(len(st)-1, len(text)); k > 0; k-- {
			if strings.HasSuffix(text, st[:k]) {
				safe = min(safe, len(text)-k)
				break
			}
		}
	}
	safe = completeUTF8(text[:safe])
	return false, s.deliver(tok, text[:safe])
}

// deliver sends text[s.emitted:] with tok.
func (s *streamer) deliver(tok Token, upto string) error {
	if s.fn == nil || len(upto) < s.emitted {
		s.emitted = max(s.emitted, len(upto))
		return nil
	}
	p := Piece{Token: tok, Text: upto[s.emitted:]}
	s.emitted = len(upto)
	return s.fn(p)
}

// flush delivers what was held back at the end of generation.
func (s *streamer) flush() error {
	t := s.text()
	if len(t) <= s.emitted || s.fn == nil {
		return nil
	}
	p := Piece{Token: -1, Text: t[s.emitted:]}
	s.emitted = len(t)
	return s.fn(p)
}

// pending returns the incomplete UTF-8 sequence at the end of the text.
func (s *streamer) pending() string {
	t := s.buf.String()
	return t[completeUTF8(t):]
}

func (s *streamer) text() string {
	t := s.buf.String()
	if s.cut >= 0 {
		return t[:s.cut]
	}
	return t
}

// completeUTF8 returns the length of s without a trailing incomplete
// UTF-8 sequence.
func completeUTF8(s string) int {
	for i := 1; i <= utf8.UTFMax && i <= len(s); i++ {
		c := s[len(s)-i]
		if c < 0x80 {
			return len(s)
		}
		if utf8.RuneStart(c) {
			if r, _ := utf8.DecodeRuneInString(s[len(s)-i:]); r == utf8.RuneError && !utf8.FullRuneInString(s[len(s)-i:]) {
				return len(s) - i
			}
			return len(s)
		}
	}
	return len(s)
}
