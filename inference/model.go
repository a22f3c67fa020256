package inference

/*
#cgo CFLAGS: -std=c11
#cgo CXXFLAGS: -std=c++17
#cgo linux LDFLAGS: -lm
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/offgrid-ai/offgrid/models/gguf"
	_ "github.com/offgrid-ai/offgrid/third_party/llamacpp" // the engine
)

// initBackend initializes llama.cpp once per process. The engine's backend
// registry is process-wide state in C; this is its only Go-side mirror.
var initBackend = sync.OnceFunc(func() {
	C.og_log_init(C.bool(os.Getenv("OFFGRID_DEBUG") != ""))
	C.og_backend_init()
	loadBackends()
})

// engineLog returns and clears the engine's recent warnings and errors.
func engineLog() string {
	buf := make([]byte, 4096)
	n := C.og_log_take((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	return strings.TrimSpace(string(buf[:n]))
}

// engineError builds an error that quotes what the engine logged.
func engineError(base error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if log := engineLog(); log != "" {
		lines := strings.Split(log, "\n")
		if len(lines) > 6 {
			lines = lines[len(lines)-6:]
		}
		msg += ": " + strings.Join(lines, "; ")
	}
	if base != nil {
		return fmt.Errorf("%w: %s", base, msg)
	}
	return errors.New(msg)
}

// ErrLoad is returned (wrapped) when a model file cannot be loaded.
var ErrLoad = errors.New("inference: cannot load model")

// Model is a loaded GGUF model. It is safe for concurrent use, Close
// included; each Context it creates is not. After Close its methods return
// zero values (and ErrClosed where they return an error); they never hand
// llama.cpp a freed model.
type Model struct {
	path      string
	gpuLayers int

	// mu guards the fields below. Methods read-lock it for each call into
	// llama.cpp; Close and the Context count write-lock it. c and vocab
	// stay valid while closed is false or contexts > 0; a Context uses
	// them through its reference without taking mu.
	mu       sync.RWMutex
	c        *C.struct_llama_model
	vocab    *C.struct_llama_vocab
	closed   bool
	contexts int // open Contexts
}

// Load loads the GGUF model at path. Before handing the file to llama.cpp it
// reads the header with the strict reader in models/gguf, which checks every
// count, length and offset against the file size, so truncated, corrupt and
// hostile files give a clear error instead of reaching C, and validates the
// metadata llama.cpp trusts (gguf.File.Validate); llama.cpp's own loader
// then validates the rest. Every failure wraps ErrLoad.
func Load(path string, opts ModelOptions) (*Model, error) {
	initBackend()
	gf, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	if err := gf.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrLoad, path, err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	engineLog() // drop stale messages
	c := C.og_model_load(cpath, C.int32_t(opts.GPULayers), C.bool(!opts.NoMmap), C.bool(opts.VocabOnly))
	if c == nil {
		return nil, engineError(ErrLoad, "%s", path)
	}
	m := &Model{c: c, vocab: C.llama_model_get_vocab(c), path: path, gpuLayers: opts.GPULayers}
	runtime.SetFinalizer(m, (*Model).Close)
	return m, nil
}

// Close closes the model; it waits for calls in progress and is safe to
// call twice. Contexts created from it keep working until they are closed:
// the weights are freed when the model and all its contexts are closed.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		runtime.SetFinalizer(m, nil)
		m.freeLocked()
	}
	return nil
}

// freeLocked frees the weights once the model and its contexts are closed.
func (m *Model) freeLocked() {
	if m.closed && m.contexts == 0 && m.c != nil {
		C.llama_model_free(m.c)
		m.c, m.vocab = nil, nil
	}
}

// rlock read-locks the model for a call into llama.cpp. After Close it
// returns false with the lock released.
func (m *Model) rlock() bool {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return false
	}
	return true
}

// acquire counts a new Context, which keeps the weights alive.
func (m *Model) acquire() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.contexts++
	return nil
}

// release undoes acquire.
func (m *Model) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.contexts--
	m.freeLocked()
}

// Path returns the file the model was loaded from.
func (m *Model) Path() string { return m.path }

// Meta returns a metadata value as text, and whether the key exists.
func (m *Model) Meta(key string) (string, bool) {
	if !m.rlock() {
		return "", false
	}
	defer m.mu.RUnlock()
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	n := C.llama_model_meta_val_str(m.c, ckey, nil, 0)
	if n < 0 {
		return "", false
	}
	buf := make([]byte, int(n)+1)
	C.llama_model_meta_val_str(m.c, ckey, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	return string(buf[:n]), true
}

// Architecture is the model's general.architecture, e.g. "llama" or "gemma3".
func (m *Model) Architecture() string {
	v, _ := m.Meta("general.architecture")
	return v
}

// Description is llama.cpp's one-line description (type, size, quantization).
func (m *Model) Description() string {
	if !m.rlock() {
		return ""
	}
	defer m.mu.RUnlock()
	buf := make([]byte, 256)
	n := C.llama_model_desc(m.c, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	if n < 0 {
		return ""
	}
	return string(buf[:min(int(n), len(buf))])
}

// ParamCount is the number of parameters.
func (m *Model) ParamCount() uint64 {
	if !m.rlock() {
		return 0
	}
	defer m.mu.RUnlock()
	return uint64(C.llama_model_n_params(m.c))
}

// Size is the total size of the weights in bytes.
func (m *Model) Size() uint64 {
	if !m.rlock() {
		return 0
	}
	defer m.mu.RUnlock()
	return uint64(C.llama_model_size(m.c))
}

// ContextLength is the context window the model was trained with.
func (m *Model) ContextLength() int {
	if !m.rlock() {
		return 0
	}
	defer m.mu.RUnlock()
	return m.contextLength()
}

func (m *Model) contextLength() int { return int(C.llama_model_n_ctx_train(m.c)) }

// VocabSize is the number of tokens in the vocabulary.
func (m *Model) VocabSize() int {
	if !m.rlock() {
		return 0
	}
	defer m.mu.RUnlock()
	return m.vocabSize()
}

func (m *Model) vocabSize() int { return int(C.llama_vocab_n_tokens(m.vocab)) }

// BOS is the beginning-of-sequence token, or -1.
func (m *Model) BOS() Token {
	if !m.rlock() {
		return -1
	}
	defer m.mu.RUnlock()
	return Token(C.llama_vocab_bos(m.vocab))
}

// EOS is the end-of-sequence token, or -1.
func (m *Model) EOS() Token {
	if !m.rlock() {
		return -1
	}
	defer m.mu.RUnlock()
	return Token(C.llama_vocab_eos(m.vocab))
}

// EOT is the end-of-turn token, or -1.
func (m *Model) EOT() Token {
	if !m.rlock() {
		return -1
	}
	defer m.mu.RUnlock()
	return Token(C.llama_vocab_eot(m.vocab))
}

// AddBOS reports whether the tokenizer adds BOS to a prompt.
func (m *Model) AddBOS() bool {
	if !m.rlock() {
		return false
	}
	defer m.mu.RUnlock()
	return bool(C.llama_vocab_get_add_bos(m.vocab))
}

// IsEOG reports whether tok ends generation (EOS, EOT and similar).
func (m *Model) IsEOG(tok Token) bool {
	if !m.rlock() {
		return false
	}
	defer m.mu.RUnlock()
	return m.isEOG(tok)
}

func (m *Model) isEOG(tok Token) bool {
	return bool(C.llama_vocab_is_eog(m.vocab, C.llama_token(tok)))
}

// EOG lists every end-of-generation token of the vocabulary.
func (m *Model) EOG() []Token {
	if !m.rlock() {
		return nil
	}
	defer m.mu.RUnlock()
	var out []Token
	for t := range m.vocabSize() {
		if m.isEOG(Token(t)) {
			out = append(out, Token(t))
		}
	}
	return out
}

// ChatTemplate returns the GGUF's tokenizer.chat_template, or "".
func (m *Model) ChatTemplate() string {
	if !m.rlock() {
		return ""
	}
	defer m.mu.RUnlock()
	p := C.llama_model_chat_template(m.c, nil)
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// TokenText returns the vocabulary entry of tok as text, special tokens
// included (e.g. "<bos>"); "" for an id outside the vocabulary.
func (m *Model) TokenText(tok Token) string {
	if !m.rlock() {
		return ""
	}
	defer m.mu.RUnlock()
	if tok < 0 || int(tok) >= m.vocabSize() {
		return ""
	}
	return m.piece(tok, true)
}

// Tokenize converts text to tokens. addSpecial adds BOS/EOS as the model is
// configured to; parseSpecial turns special-token text such as "<|im_end|>"
// into the special token instead of spelling it out.
func (m *Model) Tokenize(text string, addSpecial, parseSpecial bool) ([]Token, error) {
	if !m.rlock() {
		return nil, ErrClosed
	}
	defer m.mu.RUnlock()
	return m.tokenize(text, addSpecial, parseSpecial)
}

func (m *Model) tokenize(text string, addSpecial, parseSpecial bool) ([]Token, error) {
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	n := len(text) + 8
	for range 2 {
		out := make([]Token, n)
		got := C.og_tokenize(m.vocab, ctext, C.int32_t(len(text)), (*C.llama_token)(unsafe.Pointer(&out[0])),
			C.int32_t(n), C.bool(addSpecial), C.bool(parseSpecial))
		switch {
		case got == C.INT32_MIN:
			return nil, engineError(nil, "inference: tokenize failed")
		case got >= 0:
			return out[:got], nil
		}
		n = int(-got)
	}
	return nil, errors.New("inference: tokenize: buffer size mismatch")
}

// The lower-case methods call llama.cpp without locking: the caller holds
// the read lock of an open model or a Context's reference.

// piece returns the text of one token (raw bytes, possibly partial UTF-8).
func (m *Model) piece(tok Token, special bool) string {
	var stack [64]byte
	buf := stack[:]
	for range 2 {
		n := C.og_token_to_piece(m.vocab, C.llama_token(tok), (*C.char)(unsafe.Pointer(&buf[0])), C.int32_t(len(buf)), C.bool(special))
		if n >= 0 {
			return string(buf[:n])
		}
		if n == C.INT32_MIN {
			return ""
		}
		buf = make([]byte, int(-n))
	}
	return ""
}

// TokenPiece returns the bytes one token contributes to the text. A piece
// can be part of a multi-byte character. Special tokens render as their
// text when special is true and as nothing otherwise.
func (m *Model) TokenPiece(tok Token, special bool) string {
	if !m.rlock() {
		return ""
	}
	defer m.mu.RUnlock()
	return m.piece(tok, special)
}

// Detokenize converts tokens back to text. With special false, control
// tokens are left out.
func (m *Model) Detokenize(tokens []Token, special bool) (string, error) {
	if !m.rlock() {
		return "", ErrClosed
	}
	defer m.mu.RUnlock()
	if err := m.checkTokens(tokens); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString(m.piece(t, special))
	}
	return b.String(), nil
}

func (m *Model) checkTokens(tokens []Token) error {
	n := Token(m.vocabSize())
	for i, t := range tokens {
		if t < 0 || t >= n {
			return fmt.Errorf("%w: token %d at position %d (vocabulary has %d)", ErrInvalidToken, t, i, n)
		}
	}
	return nil
}
