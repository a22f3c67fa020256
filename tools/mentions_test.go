package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

func TestMentioned(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "config.json"), []byte("{}\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("x\n"), 0o644)
	outside := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-secret.txt")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	defer os.Remove(outside)
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := func(p string) Mention { return Mention{Path: p} }
	for _, tc := range []struct {
		request string
		want    []Mention
	}{
		{"What does notes.txt say?", []Mention{file("notes.txt")}},
		{"Read 'notes.txt'.", []Mention{file("notes.txt")}},
		{"Which port does docs/guide.md say the server listens on?", []Mention{file("docs/guide.md")}},
		{"What files are in ./docs?", []Mention{{Path: "./docs", Dir: true}}},
		{"Copy notes.txt to config.json, then read notes.txt again.", []Mention{file("notes.txt"), file("config.json")}},
		{"What does missing.txt say?", nil},
		{"What is 12 times 12?", nil},
		{"What is in the docs folder?", nil}, // a bare word is not taken for a name
		{"Read ../" + filepath.Base(outside), nil},
		{"Read link.txt", nil}, // a link out of the root
		{"Read pipe.txt", nil}, // not a regular file
		{"Fetch https://notes.txt/x", nil},
	} {
		if got := Mentioned(root, tc.request); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.request, got, tc.want)
		}
	}
}
