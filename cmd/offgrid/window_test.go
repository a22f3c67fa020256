package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWindow: the tiny model's twelve tools take ~4,700 tokens, more
// than a 4,096-token window: the window is raised (within the model's
// trained 8,192) and the turn runs; with default flags it runs as is;
// -c 0 takes the trained context; a window whose KV cache cannot fit in
// memory is refused before anything is allocated.
func TestRunWindow(t *testing.T) {
	model := tinyModel(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		warn string // in stderr
	}{
		{"default", nil, 0, ""},
		{"raised", []string{"-c", "4096"}, 0, "context window raised from 4096 to"},
		{"trained", []string{"-c", "0"}, 0, ""},
		{"too big", []string{"-c", "200000000"}, 1, "KV cache, more than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, errb := runEnv(t, "", &bytes.Buffer{})
			args := append([]string{"run", "-m", model, "--root", root, "-p", "list files", "--tool-choice", "required",
				"--seed", "3", "-n", "64", "-t", "1", "--max-iterations", "1"}, tc.args...)
			code := runMain(t.Context(), env, args)
			if code != tc.code || !strings.Contains(errb.String(), tc.warn) || strings.Contains(errb.String(), "does not fit") {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb.String())
			}
			if tc.warn == "" && strings.Contains(errb.String(), "raised") {
				t.Fatalf("window raised with default flags:\n%s", errb.String())
			}
		})
	}
}
