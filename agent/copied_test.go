package agent

import (
	"slices"
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestCopied(t *testing.T) {
	readme := "1: # Stockroom\n2: \n3: Stockroom is a small inventory API.\n4: \n5: ## Running\n6: \n7:     pip install -r requirements.txt\n8:     python -m flask run --port 8042\n9: \n10: The service then answers on port 8042.\n"
	for _, tc := range []struct {
		name    string
		answer  string
		results []string
		want    bool
	}{
		{"an answer", "The service listens on port 8042.", []string{readme}, false},
		{"the file written out", "The file README.md holds:\n\n1: # Stockroom\n2:\n3: Stockroom is a small inventory API.\n4:\n5: ## Running\n6:\n7:     pip install -r requirements.txt\n8:     python -m flask run --port 8042\n", []string{readme}, true},
		{"renumbered", "# Stockroom\n1. Stockroom is a small inventory API.\n2. ## Running\n3. pip install -r requirements.txt\n4. python -m flask run --port 8042\n5. The service then answers on port 8042.", []string{readme}, true},
		{"four lines quoted", "It says:\n# Stockroom\nStockroom is a small inventory API.\n## Running\npip install -r requirements.txt", []string{readme}, false},
		{"quoted in a longer answer", "It says:\n# Stockroom\nStockroom is a small inventory API.\n## Running\npip install -r requirements.txt\npython -m flask run --port 8042\nSo it runs with Flask,\non port 8042,\nfrom the requirements\nthat pip installs,\nand it is an API\nfor the stockroom.", []string{readme}, false},
		{"no results", "# Stockroom\nStockroom is a small inventory API.\n## Running\npip install -r requirements.txt\npython -m flask run --port 8042", nil, false},
	} {
		if got := Copied(tc.answer, tc.results); got != tc.want {
			t.Errorf("%s: copied = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadResults(t *testing.T) {
	reg, err := tools.Builtin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	calls := []ToolRecord{
		{Name: "read_file", Result: tools.OK("1: a line read\n")},
		{Name: "replace_lines", Result: tools.OK("Replaced line 1\n")},
		{Name: "read_file", Result: tools.Fail(tools.TypeNotFound, "no such file")},
		{Name: "grep_search", Result: tools.OK("a.txt:1: a line found\n")},
	}
	got := ReadResults(reg, calls)
	if want := []string{"1: a line read\n", "a.txt:1: a line found\n"}; !slices.Equal(got, want) {
		t.Errorf("ReadResults = %q, want %q", got, want)
	}
}
