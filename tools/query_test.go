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
		{"sum of water_l, only where zone = A", "sum of water_l, only where zone = A: 18.5 (2 of 4 rows)"},
		{"sum of water_l, all rows", "sum of water_l, all rows: 28.0 (4 of 4 rows)"},
		{"count, all rows", "count, all rows: 4 (4 of 4 rows)"},
		{"average of temp_max_c, only where zone = B", "average of temp_max_c, only where zone = B: 26.05 (2 of 4 rows)"},
		{"the row with the greatest temp_max_c, all rows", "the row with the greatest temp_max_c, all rows: 29.8 (4 of 4 rows), in the row:\n2024-06-02,A,29.8,10.0"},
		{"the row with the least water_l, only where zone = B", "the row with the least water_l, only where zone = B: 4.0 (2 of 4 rows), in the row:\n2024-06-01,B,25.1,4.0"},
		{"list, only where date = 2024-06-02", "list, only where date = 2024-06-02 (2 of 4 rows):\n2024-06-02,A,29.8,10.0\n2024-06-02,B,27.0,5.5"},
	} {
		got, err := table.Query("", tc.query)
		if err != nil || got != tc.want {
			t.Errorf("Query(%q) = %q, %v; want %q", tc.query, got, err, tc.want)
		}
	}
	for _, q := range []string{"none", "list, all rows", "count, only where zone = C", "count, only where water_l = 4.0", "sum of date, all rows", "sum of zone, all rows", "rows where zone = A: sum of water_l", "drop table"} {
		if _, err := table.Query("", q); !errors.Is(err, ErrQuery) {
			t.Errorf("Query(%q): err %v, want ErrQuery", q, err)
		}
	}
	// A number the question writes compares with each numeric column.
	for _, tc := range []struct{ question, query, want string }{
		{"Which days got under 6 litres?", "list, only where water_l < 6", "list, only where water_l < 6 (2 of 4 rows):\n2024-06-01,B,25.1,4.0\n2024-06-02,B,27.0,5.5"},
		{"¿Cuántos días pasaron de 27,2 grados?", "count, only where temp_max_c > 27.2", "count, only where temp_max_c > 27.2: 2 (2 of 4 rows)"},
		{"水が10リットルだった日は？", "list, only where water_l = 10", "list, only where water_l = 10 (1 of 4 rows):\n2024-06-02,A,29.8,10.0"},
		{"List the days with less water than 6.", "list, only where water_l < 6", "list, only where water_l < 6 (2 of 4 rows):\n2024-06-01,B,25.1,4.0\n2024-06-02,B,27.0,5.5"},
		{"the hottest day above 40 degrees?", "the row with the greatest temp_max_c, only where temp_max_c > 40", "the row with the greatest temp_max_c, only where temp_max_c > 40: no row (0 of 4 rows)"},
		{"the average above 40 degrees?", "average of water_l, only where temp_max_c > 40", "average of water_l, only where temp_max_c > 40: no row (0 of 4 rows)"},
	} {
		got, err := table.Query(tc.question, tc.query)
		if err != nil || got != tc.want {
			t.Errorf("Query(%q, %q) = %q, %v; want %q", tc.question, tc.query, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ question, query string }{
		{"Which days got under 6 litres?", "list, only where water_l < 7"}, // not written
		{"What did order S-104 cost?", "list, only where water_l < 104"},   // a code's
		{"water on 2024-06-02?", "list, only where water_l = 2024"},        // a date's
		{"Which hoses are under 10mm?", "list, only where water_l < 10"},   // a size's
		{"Rows with water under 6.?", "list, only where water_l < 6"},      // a dot touches it
	} {
		if _, err := table.Query(tc.question, tc.query); !errors.Is(err, ErrQuery) {
			t.Errorf("Query(%q, %q): err %v, want ErrQuery", tc.question, tc.query, err)
		}
	}
	qs := table.Queries("")
	if qs[0] != "none" || !slices.Contains(qs, "sum of water_l, only where zone = A") || slices.Contains(qs, "sum of date, all rows") {
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
	// A value may hold the ", " that ends the figure's part of a query.
	notes, _ := ParseTable("n.csv", "id,note,qty\n1,\"a, b\",2\n2,\"a, b\",3\n3,c,4\n4,c,1\n")
	if got, err := notes.Query("", "sum of qty, only where note = a, b"); err != nil || got != "sum of qty, only where note = a, b: 5 (2 of 4 rows)" {
		t.Errorf("Query = %q, %v", got, err)
	}
	// A question that names one value of a column of few values is
	// about its rows; naming two, or a lower-case "a", it may be about
	// all of them.
	for _, tc := range []struct {
		question string
		all      bool
	}{
		{"¿Cuántos litros recibió la zona A en total?", false},
		{"六月份A区一共浇了多少升水？", false},
		{"How much did zones A and B get together?", true},
		{"On a arrosé combien de litres ?", true},
	} {
		qs := table.Queries(tc.question)
		if slices.Contains(qs, "sum of water_l, all rows") != tc.all || !slices.Contains(qs, "sum of water_l, only where zone = A") {
			t.Errorf("Queries(%q) = %q; want all rows offered: %v", tc.question, qs, tc.all)
		}
	}
	// A column of ids (more values than half the rows) selects rows by
	// the values the question holds; any of its values that holds a
	// letter (a name, an id, not a date) selects a row to list.
	orders, _ := ParseTable("o.csv", "id,customer,total\nS-1,C-001,10.00\nS-2,C-002,5.50\nS-3,C-001,2.25\n")
	for _, tc := range []struct {
		question, query string
		ok              bool
	}{
		{"What did C-001 spend?", "sum of total, only where customer = C-001", true},
		{"What did c-001 spend?", "sum of total, only where customer = C-001", true},
		{"What did C-001 spend?", "sum of total, only where customer = C-002", false},
		{"What was order S-2?", "list, only where id = S-2", true},
		{"", "list, only where id = S-2", true},
		{"", "sum of total, only where id = S-2", false},
	} {
		got, err := orders.Query(tc.question, tc.query)
		if ok := err == nil; ok != tc.ok || slices.Contains(orders.Queries(tc.question), tc.query) != tc.ok {
			t.Errorf("Query(%q, %q) = %q, %v; want it offered: %v", tc.question, tc.query, got, err, tc.ok)
		}
	}
	if got, _ := orders.Query("C-001?", "sum of total, only where customer = C-001"); got != "sum of total, only where customer = C-001: 12.25 (2 of 3 rows)" {
		t.Errorf("Query = %q", got)
	}
	// "我们在汉堡有哪些客户？" names Hamburg in another script: its rows
	// are offered to list, not to sum. A date selects no row so.
	customers, _ := ParseTable("c.csv", "id,city,since\nC-1,Hamburg,2024-03-11\nC-2,Valencia,2025-01-20\nC-3,Hamburg,2023-11-02\nC-4,Kiel,2025-06-14\n")
	qs = customers.Queries("我们在汉堡有哪些客户？")
	if !slices.Contains(qs, "list, only where city = Hamburg") || slices.Contains(qs, "count, only where city = Hamburg") ||
		slices.Contains(qs, "list, only where since = 2024-03-11") {
		t.Errorf("Queries = %q", qs)
	}
	// A cell holding the separator is written back quoted.
	quoted, _ := ParseTable("c.csv", "id,name,qty\n1,\"Bolt, M8\",4\n2,Nut,1\n")
	if got, err := quoted.Query("", "the row with the greatest qty, all rows"); err != nil || got != "the row with the greatest qty, all rows: 4 (2 of 2 rows), in the row:\n1,\"Bolt, M8\",4" {
		t.Errorf("Query = %q, %v", got, err)
	}
}
