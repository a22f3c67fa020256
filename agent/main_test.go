package agent

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// Template verdicts are cached under XDG_CACHE_HOME: keep them out of the user's cache.
	dir, err := os.MkdirTemp("", "offgrid-agent-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
