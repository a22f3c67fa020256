package agent

import (
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestCopied(t *testing.T) {
	reg, err := tools.Builtin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	readme := "1: # Stockroom\n2: \n3: Stockroom is a small inventory API.\n4: \n5: ## Running\n6: \n7:     pip install -r requirements.txt\n8:     python -m flask run --port 8042\n9: \n10: The service then answers on port 8042.\n11: \n12: ## Testing\n13: \n14:     python -m pytest\n15: \n16: Tests use an SQLite file in /tmp.\n"
	tail := "12: ## Testing\n13:\n14:     python -m pytest\n15:\n16: Tests use an SQLite file in /tmp.\n"
	read := ToolRecord{Name: "read_file", Result: tools.OK(readme)}
	report := "Replaced lines 8-8 (1 line) of README.md with 1 line.\n    5: ## Running\n    6: \n    7:     pip install -r requirements.txt\n+   8:     python -m flask run --port 9000\n    9: \n    10: The service then answers on port 8042.\n"
	changed := ToolRecord{Name: "replace_lines", Result: tools.OK(report)}
	failed := ToolRecord{Name: "read_file", Result: tools.Fail(tools.TypeNotFound, readme)}
	written := "The file README.md holds:\n\n1: # Stockroom\n2:\n3: Stockroom is a small inventory API.\n4:\n5: ## Running\n6:\n7:     pip install -r requirements.txt\n8:     python -m flask run --port 8042\n"
	for _, tc := range []struct {
		name   string
		answer string
		calls  []ToolRecord
		want   bool
	}{
		{"an answer", "The service listens on port 8042.", []ToolRecord{read}, false},
		{"the file written out", written, []ToolRecord{read}, true},
		{"renumbered", "# Stockroom\n1. Stockroom is a small inventory API.\n2. ## Running\n3. pip install -r requirements.txt\n4. python -m flask run --port 8042\n5. The service then answers on port 8042.", []ToolRecord{read}, true},
		{"four lines quoted", "It says:\n# Stockroom\nStockroom is a small inventory API.\n## Running\npip install -r requirements.txt", []ToolRecord{read}, false},
		{"quoted in a longer answer", "It says:\n# Stockroom\nStockroom is a small inventory API.\n## Running\npip install -r requirements.txt\npython -m flask run --port 8042\nSo it runs with Flask,\non port 8042,\nfrom the requirements\nthat pip installs,\nand it is an API\nfor the stockroom.", []ToolRecord{read}, false},
		{"no results", written, nil, false},
		{"a failed read", written, []ToolRecord{failed}, false},
		{"a change reported", report, []ToolRecord{read, changed}, false},
		{"a change, then the file written out", report + "\n" + written + tail, []ToolRecord{read, changed}, true},
	} {
		if got := Copied(reg, tc.calls, tc.answer); got != tc.want {
			t.Errorf("%s: Copied = %v, want %v", tc.name, got, tc.want)
		}
	}
}
