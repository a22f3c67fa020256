package offgrid_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/models"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// TestMain gives the tests and examples a store whose default model is a
// tiny random-weight model, and a cache of their own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "offgrid-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		// The go command's build cache stays the user's (its default is
		// under XDG_CACHE_HOME), so TestExternalModule's build reuses it.
		if os.Getenv("GOCACHE") == "" {
			if c, err := os.UserCacheDir(); err == nil {
				os.Setenv("GOCACHE", filepath.Join(c, "go-build"))
			}
		}
		os.Setenv("OFFGRID_MODELS", filepath.Join(dir, "models"))
		os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
		os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
		gguf := filepath.Join(dir, "tiny.gguf")
		if err := synth.Write(gguf, synth.Options{Seed: 1}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		st := models.NewStore(filepath.Join(dir, "models"))
		if _, err := st.Import(context.Background(), "tiny", gguf, ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := st.SetDefault("tiny"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}
