package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAgentTableFirst: a question the model chooses is answered from a
// table's rows is searched for in the folder's tables, and the table
// found is read; when no table line shares a word, the search goes on
// through every file; a question it chooses is not, and a change, are
// searched everywhere, without the choice. The answer is not shown the
// search of the tables that found nothing.
func TestAgentTableFirst(t *testing.T) {
	files := map[string]string{
		"docs/wiring.md":            "# Wiring\n- The Pi has its own supply since June.\n",
		"data/readings_2024-06.csv": "date,zone,humidity\n2024-06-01,A,62\n2024-06-02,A,44\n",
		"data/stock.tsv":            "item\tqty\nhose\t1\n",
	}
	for _, tc := range []struct {
		name, request string
		replies       []string // intent, the words, the table choice, …
		filters       []string // of offgrid's searches, in order
		read          string
		chosen        bool // the model was asked
	}{
		{"a table's rows", "What was the lowest humidity in June?",
			[]string{"read", "June humidity lowest", "yes", "44 %."}, []string{"{data/readings_2024-06.csv,data/stock.tsv}"}, "data/readings_2024-06.csv", true},
		{"no table line shares a word", "Qu'est-ce qui alimente le Pi ?",
			[]string{"read", "Pi supply", "yes", "Its own supply."}, []string{"{data/readings_2024-06.csv,data/stock.tsv}", ""}, "docs/wiring.md", true},
		{"not a table's", "Since when has the Pi had its own supply?",
			[]string{"read", "Pi supply", "no", "Since June."}, []string{""}, "docs/wiring.md", true},
		{"a change", "Say in the wiring notes that the Pi's supply is 3A.",
			[]string{"change", "Pi supply wiring", "```\n1: # Wiring\n2: - The Pi has its own 3A supply since June.\n```", "Done."}, []string{""}, "docs/wiring.md", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, files)
			eng := &fakeEngine{t: t, replies: tc.replies}
			a := searchingAgent(t, dir, reg, eng, true)
			a.opts.TableFirst = true
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			var filters []string
			read := ""
			for _, c := range turn.Calls {
				var args struct {
					Path   string
					Filter string `json:"file_filter"`
				}
				json.Unmarshal(c.Arguments, &args)
				switch {
				case c.Name == "grep_search" && c.ByAgent:
					filters = append(filters, args.Filter)
				case c.Name == "read_file" && c.ByAgent && read == "":
					read = args.Path
				}
			}
			if strings.Join(filters, " | ") != strings.Join(tc.filters, " | ") || read != tc.read {
				t.Errorf("searched in %q and read %q, want %q and %q", filters, read, tc.filters, tc.read)
			}
			asked := len(eng.prompts) > 2 && strings.Contains(eng.prompts[2], "Its data tables are data/readings_2024-06.csv, data/stock.tsv.")
			if asked != tc.chosen {
				t.Errorf("the model chose whether a table answers: %v, want %v", asked, tc.chosen)
			}
			// The answer sees the lines found plain (PlainAnswer), not the
			// search of the tables that found none.
			if answer := eng.prompts[len(eng.prompts)-1]; tc.chosen && (!strings.Contains(answer, plainIntro) || strings.Contains(answer, "No line")) {
				t.Errorf("the answer's prompt is not the plain one of the lines found:\n%s", answer)
			}
		})
	}
}

func TestTablesFilter(t *testing.T) {
	many := make([]string, maxTables+1)
	for i := range many {
		many[i] = fmt.Sprintf("data/t%d.csv", i)
	}
	for _, tc := range []struct {
		tables []string
		want   string
	}{
		{[]string{"data/a.csv"}, "data/a.csv"},
		{[]string{"a.csv", "b/c.tsv"}, "{a.csv,b/c.tsv}"},
		{[]string{"q{1,2}.csv", "x[1].csv"}, `{q\{1\,2\}.csv,x\[1\].csv}`},
		{many, "*.{csv,tsv,CSV,TSV}"},
	} {
		if got := tablesFilter(tc.tables); got != tc.want {
			t.Errorf("tablesFilter(%q) = %q, want %q", tc.tables, got, tc.want)
		}
	}
}
