package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// TestLoadShared loads the 600 simple and multiple cases of the BFCL data
// the tests share: the copy beside the repository or the official data.
func TestLoadShared(t *testing.T) {
	dir := testenv.BFCLDir(t)
	files := testenv.BFCLFiles(t)
	all, skipped, err := Load(files, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 600 || len(skipped) != 0 {
		t.Fatalf("got %d cases, skipped %v; want 600 and none", len(all), skipped)
	}
	if all[0].Category != "simple" || all[0].BFCLCategory != "simple_python" || all[len(all)-1].Category != "multiple" {
		t.Errorf("order: first %s/%s, last %s", all[0].ID, all[0].Category, all[len(all)-1].Category)
	}
	for _, c := range all {
		if len(c.Tools) == 0 || len(c.Funcs) != len(c.Tools) || len(c.Answers) == 0 || len(c.Messages) == 0 {
			t.Fatalf("%s: incomplete case: %d tools, %d funcs, %d answers", c.ID, len(c.Tools), len(c.Funcs), len(c.Answers))
		}
	}

	got, _, err := Load([]string{files[1], dir}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("same file twice: got %d cases, err %v", len(got), err)
	}

	some, _, err := Load([]string{dir}, LoadOptions{Categories: []string{"multiple"}, Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 7 || some[0].ID != "multiple_0" || some[6].Category != "multiple" {
		t.Errorf("--category multiple --limit 7: got %d cases starting %s", len(some), some[0].ID)
	}
	limited, _, _ := Load(files, LoadOptions{Limit: 3})
	if len(limited) != 6 {
		t.Errorf("--limit 3 over two categories: got %d cases, want 6", len(limited))
	}
	if _, _, err := Load([]string{dir}, LoadOptions{Categories: []string{"simpel"}}); err == nil {
		t.Error("unknown category accepted")
	}
}

func TestCategory(t *testing.T) {
	for id, want := range map[string][2]string{
		"simple_python_12":           {"simple_python", "simple"},
		"simple_12":                  {"simple", "simple"},
		"multiple_0":                 {"multiple", "multiple"},
		"parallel_multiple_3":        {"parallel_multiple", "parallel_multiple"},
		"irrelevance_9":              {"irrelevance", "irrelevance"},
		"live_parallel_multiple_0-1": {"live_parallel_multiple", "live_parallel_multiple"},
		"simple_java_4":              {"simple_java", ""},
		"multi_turn_base_1":          {"multi_turn_base", ""},
	} {
		b, c := Category(id)
		if b != want[0] || c != want[1] {
			t.Errorf("Category(%q) = %q, %q; want %q, %q", id, b, c, want[0], want[1])
		}
	}
}

func writeData(t *testing.T, questions, answers string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "BFCL_test.json"), []byte(questions), 0o644); err != nil {
		t.Fatal(err)
	}
	if answers != "" {
		os.Mkdir(filepath.Join(dir, "possible_answer"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "possible_answer", "BFCL_test.json"), []byte(answers), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const oneQuestion = `{"id": "simple_python_0", "question": [[{"role": "user", "content": "Area of a 10 by 5 triangle?"}]], "function": [{"name": "area", "description": "Triangle area.", "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}, "height": {"type": "float"}}, "required": ["base", "height"]}}]}
`

func TestLoadFiles(t *testing.T) {
	tests := []struct {
		name, questions, answers, wantErr string
		cases                             int
		skipped                           map[string]int
	}{
		{"ok", oneQuestion, `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10], "height": [5.0]}}]}`, "", 1, map[string]int{}},
		{"irrelevance needs no answers", strings.ReplaceAll(oneQuestion, "simple_python_0", "irrelevance_0"), "", "", 1, map[string]int{}},
		{"unsupported skipped", strings.ReplaceAll(oneQuestion, "simple_python_0", "simple_java_0") + "\n\n", "", "", 0, map[string]int{"simple_java": 1}},
		{"no answers file", oneQuestion, "", "no such file", 0, nil},
		{"answer missing", oneQuestion, `{"id": "simple_python_9", "ground_truth": []}`, "no possible answer for simple_python_0", 0, nil},
		{"bad json", oneQuestion + "{not json}\n", `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10]}}]}`, "BFCL_test.json:2", 0, nil},
		{"bad answer", oneQuestion, `{"id": "simple_python_0", "ground_truth": [{"area": {"base": 10}}]}`, "not a list", 0, nil},
		{"no id", `{"question": [[{"role": "user", "content": "x"}]], "function": []}`, "", "no id", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeData(t, tt.questions, tt.answers)
			cases, skipped, err := Load([]string{dir}, LoadOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) != tt.cases || len(skipped) != len(tt.skipped) {
				t.Fatalf("got %d cases, skipped %v", len(cases), skipped)
			}
			for k, v := range tt.skipped {
				if skipped[k] != v {
					t.Errorf("skipped[%s] = %d, want %d", k, skipped[k], v)
				}
			}
		})
	}
	doc := writeData(t, "{\n \"simple_python\": [\"simple_python_1\"]\n}\n", "")
	if cases, skipped, err := Load([]string{doc}, LoadOptions{}); err != nil || len(cases) != 0 || skipped["BFCL_test.json"] != 1 {
		t.Errorf("a JSON document file (BFCL's format_sensitivity index): %d cases, skipped %v, err %v", len(cases), skipped, err)
	}
	if _, _, err := Load([]string{t.TempDir()}, LoadOptions{}); !errors.Is(err, ErrData) {
		t.Errorf("empty dir: %v", err)
	}
	if _, _, err := Load([]string{filepath.Join(t.TempDir(), "nope.json")}, LoadOptions{}); err == nil {
		t.Error("missing file accepted")
	}
}
