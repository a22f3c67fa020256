package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMentions(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("x\n"), 0o644)
	outside := filepath.Join(filepath.Dir(root), "secret.txt")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	defer os.Remove(outside)
	named := Mentions(root)
	for _, tc := range []struct {
		request string
		want    bool
	}{
		{"What does notes.txt say?", true},
		{"Read 'notes.txt'.", true},
		{"Which port does docs/guide.md say the server listens on?", true},
		{"What files are in ./docs?", true},
		{"What does missing.txt say?", false},
		{"What is 12 times 12?", false},
		{"What is in the docs folder?", false}, // a bare word is not taken for a name
		{"Read ../secret.txt", false},          // outside the root
		{"Fetch https://notes.txt/x", false},
	} {
		if got := named(tc.request); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.request, got, tc.want)
		}
	}
}
