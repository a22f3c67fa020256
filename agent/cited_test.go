package agent

import (
	"encoding/json"
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestCitedFile(t *testing.T) {
	dir, reg := toolsOver(t, map[string]string{
		"docs/wiring.md":            "# Wiring\n",
		"data/readings_2024-06.csv": "date,zone,humidity_pct\n2024-06-01,A,62\n",
		"data/inventory.csv":        "item,quantity\nseeds,3\n",
		"README.md":                 "# greenhouse\n",
	})
	var o Options
	o.LookIn(dir)
	a := &Agent{reg: reg, opts: o}
	read := func(p string) ToolRecord {
		return ToolRecord{Name: readFileTool, Arguments: json.RawMessage(`{"path":"` + p + `"}`), Result: tools.OK("1: x\n")}
	}
	failed := ToolRecord{Name: readFileTool, Arguments: json.RawMessage(`{"path":"nope.md"}`), Result: tools.Fail(tools.TypeNotFound, "no such file")}
	grep := ToolRecord{Name: "grep_search", Arguments: json.RawMessage(`{"pattern":"June"}`), Result: tools.OK("docs/wiring.md:17: since June 2024\n")}
	edit := ToolRecord{Name: "replace_lines", Arguments: json.RawMessage(`{"path":"README.md"}`), Result: tools.OK("Replaced lines 1-1")}
	const cites = "According to the data in the `data/readings_2024-06.csv` file, the lowest humidity was 4.0%."
	for _, tc := range []struct {
		name, answer, want string
		calls              []ToolRecord
		change             bool
	}{
		{"a file the search showed, another read", cites, "data/readings_2024-06.csv", []ToolRecord{grep, read("docs/wiring.md")}, false},
		{"in another language", "data/readings_2024-06.csv によると、最低湿度は 44 % でした。", "data/readings_2024-06.csv", []ToolRecord{grep, read("./docs/wiring.md")}, false},
		{"the file read", "According to docs/wiring.md, the Pi has its own supply.", "", []ToolRecord{grep, read("docs/wiring.md")}, false},
		{"two files named: a list", "data/inventory.csv and data/readings_2024-06.csv mention it.", "", []ToolRecord{grep, read("docs/wiring.md")}, false},
		{"the same file twice", cites + " See data/readings_2024-06.csv.", "data/readings_2024-06.csv", []ToolRecord{read("docs/wiring.md")}, false},
		{"a file that does not exist", "According to data/readings_2024-07.csv, 50 %.", "", []ToolRecord{read("docs/wiring.md")}, false},
		{"outside the folder", "According to /etc/hosts, it is local.", "", []ToolRecord{read("docs/wiring.md")}, false},
		{"a folder", "It is in data/.", "", []ToolRecord{read("docs/wiring.md")}, false},
		{"no file read", cites, "", []ToolRecord{grep}, false},
		{"a failed read is not one", cites, "", []ToolRecord{failed}, false},
		{"two files read", cites, "", []ToolRecord{read("docs/wiring.md"), read("README.md")}, false},
		{"a change made", cites, "", []ToolRecord{read("docs/wiring.md"), edit}, false},
		{"a change asked for", cites, "", []ToolRecord{read("docs/wiring.md")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := a.citedFile(Turn{Calls: tc.calls, change: tc.change}, tc.answer)
			if got != tc.want {
				t.Errorf("citedFile(%q) = %q, want %q", tc.answer, got, tc.want)
			}
		})
	}
}
