//go:build cgo

package models

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// TestTruncatedModel: a stored GGUF truncated since it was stored (a
// disk that filled, a copy cut short) fails to load with an error that
// names the file and says it ends early, fails verify on its size; the
// store stays intact (listed, manifests and default unchanged, the other
// model still loads), and importing the model again repairs it.
func TestTruncatedModel(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tiny.gguf")
	if err := synth.Write(src, synth.Options{Seed: 5, Embedding: 16, Heads: 2, Layers: 1, FeedForward: 32, Merges: 16, ContextLength: 64}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		size int
		says string // in the load error
	}{
		{"in the header", 10, "truncated"},
		{"in the metadata", 100, "does not fit"},
		{"in the tensors", len(good) / 2, "extends past the end of the file"},
		{"by a byte", len(good) - 1, "extends past the end of the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewStore(filepath.Join(t.TempDir(), "models"))
			m, err := st.Import(ctx, "tiny", src, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Import(ctx, "other", src, ""); err != nil {
				t.Fatal(err)
			}
			if err := st.SetDefault("tiny"); err != nil {
				t.Fatal(err)
			}
			manifest, _ := os.ReadFile(st.manifestPath("tiny"))
			if err := os.Truncate(st.Path("tiny"), int64(tc.size)); err != nil {
				t.Fatal(err)
			}

			path, err := st.Resolve(DefaultRef)
			if err != nil || path != st.Path("tiny") {
				t.Fatalf("resolve: %q, %v", path, err)
			}
			_, err = inference.Load(path, inference.ModelOptions{})
			if !errors.Is(err, inference.ErrLoad) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("load: %v; want ErrLoad naming %s and saying %q", err, path, tc.says)
			}
			_, err = st.Verify(ctx, "tiny")
			if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "the manifest says") {
				t.Errorf("verify: %v, want ErrChecksum on the size", err)
			}

			// The store is intact.
			if list, err := st.List(); err != nil || len(list) != 2 {
				t.Errorf("list: %+v, %v", list, err)
			}
			if now, _ := os.ReadFile(st.manifestPath("tiny")); !bytes.Equal(now, manifest) {
				t.Errorf("the manifest changed:\n%s\nwas\n%s", now, manifest)
			}
			if d, err := st.Default(); err != nil || d.Name != "tiny" {
				t.Errorf("default: %+v, %v", d, err)
			}
			if _, err := st.Verify(ctx, "other"); err != nil {
				t.Errorf("verify other: %v", err)
			}
			other, err := inference.Load(st.Path("other"), inference.ModelOptions{})
			if err != nil {
				t.Fatalf("load other: %v", err)
			}
			other.Close()

			// Importing it again (as a new pull does) repairs it.
			if _, err := st.Import(ctx, "tiny", src, m.SHA256); err != nil {
				t.Fatalf("import again: %v", err)
			}
			if _, err := st.Verify(ctx, "tiny"); err != nil {
				t.Errorf("verify after the import: %v", err)
			}
			lm, err := inference.Load(path, inference.ModelOptions{})
			if err != nil {
				t.Fatalf("load after the import: %v", err)
			}
			lm.Close()
		})
	}
}
