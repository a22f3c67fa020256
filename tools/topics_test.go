package tools

import (
	"fmt"
	"slices"
	"testing"
)

func TestFileNames(t *testing.T) {
	got := FileNames(`Copy notes.txt into "backup.txt", then docs/guide.md; version 1.4.2, e.g. notes.txt. Add a .gitignore for any .log file and .env. Note 2024-06-17.md: 10.5mm, Python 3.x, 2.5kg.`)
	if want := []string{"notes.txt", "backup.txt", "docs/guide.md", ".gitignore", "2024-06-17.md"}; !slices.Equal(got, want) {
		t.Errorf("FileNames = %q, want %q", got, want)
	}
}

func TestFields(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"What does notes.txt say?", []string{"What", "does", "notes.txt", "say?"}},
		{"src文件夹里的main.py是什么？", []string{"src", "main.py"}},
		{"「config/app.yaml」のportを8080に変えて。", []string{"config/app.yaml", "port", "8080"}},
		{"¿Qué dice notes.txt?", []string{"Qué", "dice", "notes.txt?"}},
		{"Öffne die Datei «bericht.md»", []string{"Öffne", "die", "Datei", "bericht.md"}},
	} {
		if got := Fields(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Fields(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func ExampleFileNames() {
	fmt.Println(FileNames("把 notes.txt 复制到「backup.txt」，版本 1.4.2"))
	// Output:
	// [notes.txt backup.txt]
}
