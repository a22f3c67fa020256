package promptcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/inference"
)

const (
	modelA  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	modelB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	layout1 = "llama.cpp x; n_ctx 4096; n_batch 512"
	layout2 = "llama.cpp x; n_ctx 2048; n_batch 512"
)

func tokens(n, seed int) []inference.Token {
	t := make([]inference.Token, n)
	for i := range t {
		t[i] = inference.Token(seed*1000 + i)
	}
	return t
}

// warnings collects what a Cache reports.
type warnings []error

func (w *warnings) add(err error) { *w = append(*w, err) }

func newCache(t *testing.T, dir, model string, w *warnings) *Cache {
	t.Helper()
	return New(dir, model, Options{MinTokens: 4, Warn: w.add})
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHitAndMiss(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	c := newCache(t, dir, modelA, &w)
	prefix, state := tokens(100, 1), bytes.Repeat([]byte("kv"), 5000)
	if _, ok := c.Load(layout1, prefix); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Save(layout1, prefix, state)
	got, ok := c.Load(layout1, prefix)
	if !ok || !bytes.Equal(got, state) {
		t.Fatalf("Load after Save = %d bytes, %v; want the %d bytes saved", len(got), ok, len(state))
	}
	for _, tc := range []struct {
		name, model, layout string
		prefix              []inference.Token
	}{
		{"other model", modelB, layout1, prefix},
		{"other context size", modelA, layout2, prefix},
		{"other prompt", modelA, layout1, tokens(100, 2)},
		{"longer prompt", modelA, layout1, tokens(101, 1)},
	} {
		if _, ok := newCache(t, dir, tc.model, &w).Load(tc.layout, tc.prefix); ok {
			t.Errorf("%s: hit, want a miss", tc.name)
		}
	}
	if len(w) > 0 {
		t.Errorf("warnings on clean misses: %v", w)
	}
	// A prefix too short to be worth a file is not kept.
	c.Save(layout1, tokens(3, 3), state)
	if _, ok := c.Load(layout1, tokens(3, 3)); ok {
		t.Error("a prefix under MinTokens was kept")
	}
}

func TestBadEntries(t *testing.T) {
	prefix, state := tokens(64, 1), bytes.Repeat([]byte{1, 2, 3, 4}, 1000)
	for _, tc := range []struct {
		name  string
		spoil func(path string, data []byte, other []byte) []byte
		want  error
	}{
		{"empty", func(_ string, d, _ []byte) []byte { return nil }, ErrTruncated},
		{"half header", func(_ string, d, _ []byte) []byte { return d[:headerSize/2] }, ErrTruncated},
		{"truncated state", func(_ string, d, _ []byte) []byte { return d[:len(d)-1] }, ErrTruncated},
		{"trailing bytes", func(_ string, d, _ []byte) []byte { return append(d, 0) }, ErrCorrupt},
		{"flipped state byte", func(_ string, d, _ []byte) []byte { d[headerSize+100] ^= 1; return d }, ErrCorrupt},
		{"bad magic", func(_ string, d, _ []byte) []byte { d[0] = 'X'; return d }, ErrCorrupt},
		{"other version", func(_ string, d, _ []byte) []byte { d[len(magic)] = 9; return d }, ErrMismatch},
		// Another key's entry under this key's name: a copied or renamed file.
		{"other key", func(_ string, _, o []byte) []byte { return o }, ErrMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var w warnings
			c := newCache(t, dir, modelA, &w)
			c.Save(layout2, prefix, state)
			other, _ := os.ReadFile(entries(t, dir)[0])
			os.Remove(entries(t, dir)[0])
			c.Save(layout1, prefix, state)
			path := entries(t, dir)[0]
			data, _ := os.ReadFile(path)
			if err := os.WriteFile(path, tc.spoil(path, data, other), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Load(layout1, prefix); ok {
				t.Fatal("a bad entry was loaded")
			}
			if len(w) != 1 || !errors.Is(w[0], tc.want) {
				t.Fatalf("warnings = %v, want one %v", w, tc.want)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the bad entry is still there (%v)", err)
			}
			c.Save(layout1, prefix, state)
			if got, ok := c.Load(layout1, prefix); !ok || !bytes.Equal(got, state) {
				t.Error("the entry saved again does not load")
			}
		})
	}
}

func TestEviction(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	state := make([]byte, 1000)
	// Room for two entries, not three.
	c := New(dir, modelA, Options{MinTokens: 1, MaxBytes: 2*int64(headerSize+len(state)) + 10, Warn: w.add})
	a, b, d := tokens(10, 1), tokens(10, 2), tokens(10, 3)
	t0 := time.Now().Add(-time.Hour)
	c.Save(layout1, a, state)
	c.Save(layout1, b, state)
	os.Chtimes(c.path(c.key(layout1, a)), t0, t0)
	os.Chtimes(c.path(c.key(layout1, b)), t0.Add(time.Minute), t0.Add(time.Minute))
	// A hit makes a the most recently used: b goes first.
	if _, ok := c.Load(layout1, a); !ok {
		t.Fatal("miss on a")
	}
	c.Save(layout1, d, state)
	for _, tc := range []struct {
		prefix []inference.Token
		kept   bool
	}{{a, true}, {b, false}, {d, true}} {
		if _, ok := c.Load(layout1, tc.prefix); ok != tc.kept {
			t.Errorf("entry %d kept = %v, want %v", tc.prefix[0], ok, tc.kept)
		}
	}
	if n := len(entries(t, dir)); n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
	// A state larger than the cap is not written at all.
	c.Save(layout1, tokens(10, 4), make([]byte, 3000))
	if _, ok := c.Load(layout1, tokens(10, 4)); ok {
		t.Error("a state over the cap was kept")
	}
	if len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}

func TestRemoveModel(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	newCache(t, dir, modelA, &w).Save(layout1, tokens(10, 1), []byte("a"))
	newCache(t, dir, modelA, &w).Save(layout2, tokens(10, 1), []byte("a"))
	newCache(t, dir, modelB, &w).Save(layout1, tokens(10, 1), []byte("b"))
	n, err := RemoveModel(dir, modelA)
	if err != nil || n != 2 {
		t.Fatalf("RemoveModel = %d, %v; want 2", n, err)
	}
	if _, ok := newCache(t, dir, modelB, &w).Load(layout1, tokens(10, 1)); !ok {
		t.Error("the other model's entry went too")
	}
	if n, err := RemoveModel(filepath.Join(dir, "none"), modelA); err != nil || n != 0 {
		t.Errorf("RemoveModel of a missing directory = %d, %v", n, err)
	}
}

func TestModelSHA256(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(t.TempDir(), "m.gguf")
	os.WriteFile(model, []byte("weights"), 0o644)
	want := sha256.Sum256([]byte("weights"))
	got, err := ModelSHA256(dir, model)
	if err != nil || got != hex.EncodeToString(want[:]) {
		t.Fatalf("ModelSHA256 = %q, %v; want %x", got, err, want)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "hashes", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("%d hash records, want 1", len(recs))
	}
	// The record answers while size and time match...
	os.WriteFile(recs[0], bytes.Replace(mustRead(t, recs[0]), []byte(got), []byte(modelB), 1), 0o600)
	if got, _ := ModelSHA256(dir, model); got != modelB {
		t.Errorf("the recorded hash was not used: %s", got)
	}
	// ...and not after the file changes.
	os.WriteFile(model, []byte("other weights"), 0o644)
	os.Chtimes(model, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	want = sha256.Sum256([]byte("other weights"))
	if got, _ := ModelSHA256(dir, model); got != hex.EncodeToString(want[:]) {
		t.Errorf("after a change ModelSHA256 = %s, want %x", got, want)
	}
	if _, err := ModelSHA256(dir, filepath.Join(dir, "missing.gguf")); err == nil {
		t.Error("no error for a missing model")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
