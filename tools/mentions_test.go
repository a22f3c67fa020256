package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestMentioned(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "config.json"), []byte("{}\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("x\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "sub", "x.md"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "docs", "x.md"), []byte("x\n"), 0o644)
	for _, name := range []string{"CHANGELOG.md", "TODO.md", "TODO.txt"} {
		os.WriteFile(filepath.Join(root, name), []byte("x\n"), 0o644)
	}
	outside := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-secret.txt")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	defer os.Remove(outside)
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
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
		{"What does missing.txt say?", []Mention{{Path: "missing.txt", Missing: true}}},
		{"What does guide.md say?", []Mention{file("docs/guide.md")}}, // the one file of that name
		{"Lies guide.md und docs/guide.md", []Mention{file("docs/guide.md")}},
		{"Read sub/x.md", []Mention{file("docs/sub/x.md")}},
		{"Read x.md", nil}, // two files of that name: which is not known
		{"「notes.txt」には何が書いてありますか？", []Mention{file("notes.txt")}},
		{"docs文件夹里有哪些文件？", []Mention{{Path: "docs", Dir: true}}},
		{"Quels fichiers y a-t-il dans le dossier docs ?", []Mention{{Path: "docs", Dir: true}}},
		{"Muestra /etc/hosts", []Mention{{Path: "/etc/hosts", Missing: true}}},
		// A file of the root named by its full path is named as the tools take it.
		{"Read " + root + "/docs/guide.md", []Mention{file("docs/guide.md")}},
		{"Lies " + root + "/docs/", []Mention{{Path: "docs", Dir: true}}},
		{"What is in " + root + "?", nil},
		{"What is 12 times 12?", nil},
		{"What is in the docs folder?", []Mention{{Path: "docs", Dir: true}}}, // a bare word naming an entry of the root
		{"How do I write docs for an API?", []Mention{{Path: "docs", Dir: true}}},
		{"Do the notes say anything?", nil}, // only an entry's whole name counts
		{"Was steht im docs-Ordner?", []Mention{{Path: "docs", Dir: true}}},
		{"Ist das docs-Verzeichnis in docs aktuell?", []Mention{{Path: "docs", Dir: true}}},
		{"a well-documented pipe-line", nil},
		{"Read ../" + filepath.Base(outside), []Mention{{Path: "../" + filepath.Base(outside), Missing: true}}},
		{"Read link.txt", []Mention{{Path: "link.txt", Missing: true}}}, // a link out of the root
		{"Fetch https://notes.txt/x", nil},
		// A route is not a file: one with a parameter, or after a method.
		{"Note in notes.txt that we added a GET /items/<sku>/history endpoint.", []Mention{file("notes.txt")}},
		{"Документируй /users/{id} и /posts/:slug в docs/guide.md", []Mention{file("docs/guide.md")}},
		{"POST /api/v2 にエンドポイントを追加して", nil},
		{"Proxy GET requests for /api/v2 to :8080", []Mention{{Path: "/api/v2", Missing: true}}}, // no method before it
		// A word in capitals names the one root file it is the name of
		// before the dot; in lower or mixed case it is prose.
		{"看一下 CHANGELOG 里最新发布的版本号和 notes.txt 是否一致", []Mention{file("CHANGELOG.md"), file("notes.txt")}},
		{"Is the CHANGELOG.md in the CHANGELOG?", []Mention{file("CHANGELOG.md")}},
		{"Was steht im Changelog?", nil},
		{"What is left in TODO?", nil}, // TODO.md and TODO.txt: which is not known
		{"Read NOTES", nil},
	} {
		if got := Mentioned(root, tc.request); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.request, got, tc.want)
		}
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"b.txt": "b", "a/z.go": "z", "a/y.md": "y", ".env": "SECRET=1", ".git/config": "x",
		"build/out.bin": "x", ".gitignore": "build/\n", "c/.hidden/x.txt": "x",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	got, more, err := Files(t.Context(), dir, 10)
	if want := []string{"a/y.md", "a/z.go", "b.txt"}; err != nil || more || !slices.Equal(got, want) {
		t.Errorf("Files = %q, %v, %v; want %q", got, more, err, want)
	}
	got, more, err = Files(t.Context(), dir, 2)
	if want := []string{"a/y.md", "a/z.go"}; err != nil || !more || !slices.Equal(got, want) {
		t.Errorf("Files(max 2) = %q, %v, %v; want %q and more", got, more, err, want)
	}
	if _, _, err := Files(t.Context(), filepath.Join(dir, "nope"), 10); err == nil {
		t.Error("Files of a missing directory: no error")
	}
}

func TestSample(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.md":          "# Toplantı\nçay 3 lira\nkahve 12 lira\n",
		"b.bin":         "çay\x00\x01",
		"c.txt":         "one line with no end",
		"d.csv":         "ürün,fiyat\nçay,3\n",
		".env":          "SECRET=1\n",
		"build/x.txt":   "ignored\n",
		".gitignore":    "build/\n",
		"e/invalid.txt": "ok \xff\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	for _, tc := range []struct {
		perFile, max int
		want         string
	}{
		{1024, 1 << 10, "# Toplantı\nçay 3 lira\nkahve 12 lira\none line with no end\nürün,fiyat\nçay,3\nok \n"},
		{16, 1 << 10, "# Toplantı\none line with no\nürün,fiyat\nok \n"}, // cut at a line's end, if any
		{1024, 30, "# Toplantı\nçay 3 lira\none li\n"},                   // max in all
	} {
		got, err := Sample(t.Context(), dir, tc.perFile, tc.max)
		if err != nil || got != tc.want {
			t.Errorf("Sample(%d, %d) = %q, %v; want %q", tc.perFile, tc.max, got, err, tc.want)
		}
	}
	if _, err := Sample(t.Context(), filepath.Join(dir, "nope"), 10, 10); err == nil {
		t.Error("Sample of a missing directory: no error")
	}
}

func TestMentionOutside(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"notes.txt", false},
		{"docs/guide.md", false},
		{"./docs/", false},
		{"docs/../notes.txt", false},
		{"/etc/hosts", true},
		{"..", true},
		{"../secret.env", true},
		{"docs/../../secret.env", true},
		{"..notes", false},
	} {
		if got := (Mention{Path: tc.path}).Outside(); got != tc.want {
			t.Errorf("Mention{Path: %q}.Outside() = %v, want %v", tc.path, got, tc.want)
		}
	}
}
