package tools

import (
	"errors"
	"slices"
	"testing"
)

const readings = `date,zone,temp_max_c,water_l
2024-06-01,A,27.4,8.5
2024-06-01,B,25.1,4.0
2024-06-02,A,29.8,10.0
2024-06-02,B,27.0,5.5
`

func TestTableQuery(t *testing.T) {
	table, ok := ParseTable("data/readings.csv", readings)
	if !ok {
		t.Fatal("ParseTable: not a table")
	}
	for _, tc := range []struct{ query, want string }{
		{"rows where zone = A: sum of water_l", "rows where zone = A: sum of water_l = 18.5 (2 of 4 rows)"},
		{"all rows: sum of water_l", "all rows: sum of water_l = 28.0 (4 of 4 rows)"},
		{"all rows: count", "all rows: count = 4 (4 of 4 rows)"},
		{"rows where zone = B: average of temp_max_c", "rows where zone = B: average of temp_max_c = 26.05 (2 of 4 rows)"},
		{"all rows: greatest temp_max_c", "all rows: greatest temp_max_c = 29.8 (4 of 4 rows), in the row:\n2024-06-02,A,29.8,10.0"},
		{"rows where zone = B: least water_l", "rows where zone = B: least water_l = 4.0 (2 of 4 rows), in the row:\n2024-06-01,B,25.1,4.0"},
		{"rows where date = 2024-06-02: list", "rows where date = 2024-06-02: list (2 of 4 rows):\n2024-06-02,A,29.8,10.0\n2024-06-02,B,27.0,5.5"},
	} {
		got, err := table.Query(tc.query)
		if err != nil || got != tc.want {
			t.Errorf("Query(%q) = %q, %v; want %q", tc.query, got, err, tc.want)
		}
	}
	for _, q := range []string{"none", "all rows: list", "rows where zone = C: count", "rows where water_l = 4.0: count", "all rows: sum of date", "all rows: sum of zone", "drop table"} {
		if _, err := table.Query(q); !errors.Is(err, ErrQuery) {
			t.Errorf("Query(%q): err %v, want ErrQuery", q, err)
		}
	}
	qs := table.Queries()
	if qs[0] != "none" || !slices.Contains(qs, "rows where zone = A: sum of water_l") || slices.Contains(qs, "all rows: sum of date") {
		t.Errorf("Queries() = %q", qs)
	}
	for _, tc := range []struct{ name, text string }{
		{"notes.txt", readings},
		{"data.csv", "a,b\n"},        // no rows
		{"data.csv", "a,b\n1,2,3\n"}, // a row longer than the header
	} {
		if _, ok := ParseTable(tc.name, tc.text); ok {
			t.Errorf("ParseTable(%q, %q) is a table", tc.name, tc.text)
		}
	}
	// A value may hold the ": " that ends the rows' part of a query.
	notes, _ := ParseTable("n.csv", "id,note,qty\n1,a: b,2\n2,a: b,3\n3,c,4\n4,c,1\n")
	if got, err := notes.Query("rows where note = a: b: sum of qty"); err != nil || got != "rows where note = a: b: sum of qty = 5 (2 of 4 rows)" {
		t.Errorf("Query = %q, %v", got, err)
	}
	// A cell holding the separator is written back quoted.
	quoted, _ := ParseTable("c.csv", "id,name,qty\n1,\"Bolt, M8\",4\n2,Nut,1\n")
	if got, err := quoted.Query("all rows: greatest qty"); err != nil || got != "all rows: greatest qty = 4 (2 of 2 rows), in the row:\n1,\"Bolt, M8\",4" {
		t.Errorf("Query = %q, %v", got, err)
	}
}
