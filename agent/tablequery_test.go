package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgentTableQuery: a question answered from a table read first has
// the model choose a query of it, under a grammar of the table's own
// columns and values, and the answer's prompt shows the figure offgrid
// computed; "none" and a turn without a table add nothing, and the
// assist off asks nothing.
func TestAgentTableQuery(t *testing.T) {
	const readings = "date,zone,water_l\n2024-06-01,A,8.5\n2024-06-01,B,4.0\n2024-06-02,A,10.0\n2024-06-02,B,5.5\n"
	for _, tc := range []struct {
		name, request string
		on            bool
		replies       []string
		want          string // the answer begins with it; "" for no query
		rest          string // the rest of the answer; "" for the last reply
	}{
		{"sum", "¿Cuántos litros recibió la zona A en readings.csv?", true,
			[]string{"read", "sum of water_l, only where zone = A", "Son 18.5 litros."},
			"From readings.csv, sum of water_l, only where zone = A: 18.5 (2 of 4 rows).\n\n", ""},
		{"rows", "Which days did zone B get water, by readings.csv?", true,
			[]string{"read", "list, only where zone = B", "June 1 and 2."},
			"From readings.csv, list, only where zone = B (2 of 4 rows):\n2024-06-01,B,4.0\n2024-06-02,B,5.5\n\n", ""},
		{"rows copied under another file", "Which days did zone B get water, by readings.csv?", true,
			[]string{"read", "list, only where zone = B", "From notes.txt, list, only where zone = B (2 of 4 rows):\n2024-06-01,B,4.0\n2024-06-02,B,5.5]\n\nJune 1 and 2."},
			"From readings.csv, list, only where zone = B (2 of 4 rows):\n2024-06-01,B,4.0\n2024-06-02,B,5.5\n\n", "June 1 and 2."},
		{"none", "What is in readings.csv?", true,
			[]string{"read", "none", "Readings."}, "", ""},
		{"no table", "What does notes.txt say?", true,
			[]string{"read", "Buy milk."}, "", ""},
		{"off", "¿Cuántos litros recibió la zona A en readings.csv?", false,
			[]string{"read", "18.5 litros."}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "readings.csv"), []byte(readings), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
			a, eng := dirAgent(t, dir, tc.replies, Options{ReadFirst: true, ReadAnswer: true, TableQuery: tc.on, Answer: AnswerSeparate})
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			rest := tc.rest
			if rest == "" {
				rest = tc.replies[len(tc.replies)-1]
			}
			if want := tc.want + rest; eng.calls != len(tc.replies) || turn.Content != want {
				t.Fatalf("%d replies, answer %q; want %d, %q", eng.calls, turn.Content, len(tc.replies), want)
			}
			// The model continues the answer after the query's figure.
			if answer := eng.prompts[len(eng.prompts)-1]; !strings.HasSuffix(answer, "<|im_start|>assistant\n"+tc.want) {
				t.Errorf("the answer's prompt does not end with %q:\n%s", tc.want, answer)
			}
			if tc.want != "" && !strings.Contains(eng.prompts[1], "zone (A, B)") {
				t.Errorf("the query's prompt does not describe the table's columns:\n%s", eng.prompts[1])
			}
		})
	}
}

// TestTableQueryExamples: each example's query is one its table offers
// for its question (or none), so that the examples teach only queries
// the grammar allows.
func TestTableQueryExamples(t *testing.T) {
	orders := exampleOrders()
	if orders == nil {
		t.Fatal("the examples' table does not parse")
	}
	for _, ex := range tableQueryExamples {
		if qs := orders.Queries(ex.question); !slices.Contains(qs, ex.query) {
			t.Errorf("%q: %q is not one of the table's queries", ex.question, ex.query)
		}
	}
}

// TestWithoutQueryCopies: the model's lines that restate the query's
// answer, for its file or another, or copy one of its rows, are dropped;
// its other lines stay, and without a query nothing is.
func TestWithoutQueryCopies(t *testing.T) {
	const list = "From data/sales.csv, list, only where product_id = P-104 (2 of 15 rows):\nS-3003,2026-07-09,P-104,2\nS-3008,2026-08-08,P-104,5\n\n"
	const sum = "From data/stock.csv, sum of quantity, all rows: 612 (8 of 8 rows).\n\n"
	for _, tc := range []struct{ name, note, text, want string }{
		{"rows put under other files", list,
			"From data/inventory.json, list, only where product_id = P-104 (2 of 15 rows):\nS-3003,2026-07-09,P-104,2\nS-3008,2026-08-08,P-104,5]\n\nP-104 is sold twice.",
			"\nP-104 is sold twice."},
		{"the note said again", sum, "From data/stock.csv, sum of quantity, all rows: 612 (8 of 8 rows).\nThat is the stock.", "That is the stock."},
		{"a sentence of its own", sum, "There are 612 units in stock.", "There are 612 units in stock."},
		{"a row in a fenced block stays", list, "```\nS-3003,2026-07-09,P-104,2\n```", "```\nS-3003,2026-07-09,P-104,2\n```"},
		{"no query", "", "S-3003,2026-07-09,P-104,2", "S-3003,2026-07-09,P-104,2"},
	} {
		if got := withoutQueryCopies(tc.text, tc.note); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
