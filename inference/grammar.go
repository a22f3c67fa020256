package inference

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"regexp"
	"unsafe"
)

// CheckGrammar parses gbnf with llama.cpp's own grammar parser (and its
// left-recursion check) without a model. It returns nil when llama.cpp
// accepts the grammar, else an error wrapping ErrInvalidGrammar with
// llama.cpp's reason.
func CheckGrammar(gbnf, root string) error {
	initBackend()
	g, err := newGrammarSampler(nil, &Grammar{GBNF: gbnf, Root: root})
	if err != nil {
		return err
	}
	C.llama_sampler_free(g)
	return nil
}

// CheckGrammar validates g against this model's vocabulary (token
// references and trigger tokens included).
func (m *Model) CheckGrammar(g *Grammar) error {
	if !m.rlock() {
		return ErrClosed
	}
	defer m.mu.RUnlock()
	s, err := m.newGrammar(g)
	if err != nil {
		return err
	}
	C.llama_sampler_free(s)
	return nil
}

func (m *Model) newGrammar(g *Grammar) (*C.struct_llama_sampler, error) {
	if err := m.checkTokens(g.TriggerTokens); err != nil {
		return nil, fmt.Errorf("%w: trigger: %w", ErrInvalidGrammar, err)
	}
	return newGrammarSampler(m.vocab, g)
}

func newGrammarSampler(vocab *C.struct_llama_vocab, g *Grammar) (*C.struct_llama_sampler, error) {
	root := g.Root
	if root == "" {
		root = "root"
	}
	if g.GBNF == "" {
		return nil, fmt.Errorf("%w: empty grammar", ErrInvalidGrammar)
	}
	// llama.cpp compiles trigger patterns with std::regex (ECMAScript);
	// check them first so a bad pattern is our error, not the engine's.
	for _, p := range g.TriggerPatterns {
		if _, err := regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("%w: trigger pattern %q: %v", ErrInvalidGrammar, p, err)
		}
	}
	cg := C.CString(g.GBNF)
	defer C.free(unsafe.Pointer(cg))
	cr := C.CString(root)
	defer C.free(unsafe.Pointer(cr))
	var pats **C.char
	if n := len(g.TriggerPatterns); n > 0 {
		arr := (*[1 << 20]*C.char)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:n:n]
		for i, p := range g.TriggerPatterns {
			arr[i] = C.CString(p)
		}
		defer func() {
			for _, p := range arr {
				C.free(unsafe.Pointer(p))
			}
			C.free(unsafe.Pointer(&arr[0]))
		}()
		pats = &arr[0]
	}
	var toks *C.llama_token
	if len(g.TriggerTokens) > 0 {
		toks = (*C.llama_token)(C.malloc(C.size_t(len(g.TriggerTokens)) * C.size_t(unsafe.Sizeof(C.llama_token(0)))))
		defer C.free(unsafe.Pointer(toks))
		copy(unsafe.Slice((*Token)(unsafe.Pointer(toks)), len(g.TriggerTokens)), g.TriggerTokens)
	}
	engineLog()
	s := C.og_grammar_new(vocab, cg, cr, pats, C.size_t(len(g.TriggerPatterns)), toks, C.size_t(len(g.TriggerTokens)))
	if s == nil {
		return nil, engineError(ErrInvalidGrammar, "llama.cpp rejected the grammar")
	}
	return s, nil
}
