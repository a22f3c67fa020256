package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTableNote(t *testing.T) {
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{"sums, least, greatest", "stock.csv", "sku,qty,price\nA-1,120,0.35\nB-2,4,1.20\nC-3,75,0.05\n",
			"[table: 3 rows, 3 columns (sku, qty, price)\nqty: sum 199, least 4 (B-2), greatest 120 (A-1)\nprice: sum 1.60, least 0.05 (C-3), greatest 1.20 (B-2)]\n"},
		{"by a column of few values", "water.csv", "date,zone,litres\n06-01,A,8.5\n06-01,B,4\n06-02,A,10\n06-02,B,5.5\n06-03,A,1\n",
			"[table: 5 rows, 3 columns (date, zone, litres)\nlitres: sum 29.0, least 1.0 (06-03), greatest 10.0 (06-02)\nlitres by zone: A 19.5, B 9.5]\n"},
		{"tab-separated", "t.TSV", "k\tn\nx\t1\ny\t2\n", "[table: 2 rows, 2 columns (k, n)\nn: sum 3, least 1 (x), greatest 2 (y)]\n"},
		{"not a table", "notes.txt", "a,1\nb,2\n", ""},
		{"no numeric column", "people.csv", "name,city\nAnna,Kiel\nTom,Lyon\n", ""},
		{"a cell not a number", "mixed.csv", "k,n\nx,1\ny,n/a\n", ""},
		{"ragged rows", "bad.csv", "k,n\nx,1,2\n", ""},
		{"header only", "empty.csv", "k,n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tableNote(tc.file, tc.text); got != tc.want {
				t.Errorf("tableNote =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestReadFileTable: read_file ends a CSV read whole with its figures,
// not one read from an offset.
func TestReadFileTable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "stock.csv"), []byte("sku,qty\nA,2\nB,3\n"), 0o644)
	r, err := Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), "read_file", json.RawMessage(`{"path": "stock.csv"}`))
	if want := "3: B,3\n[table: 2 rows, 2 columns (sku, qty)\nqty: sum 5, least 2 (A), greatest 3 (B)]\n"; !res.Success || !strings.HasSuffix(res.Text(), want) {
		t.Errorf("read_file stock.csv = %q, want it to end with %q", res.Text(), want)
	}
	res = r.Execute(context.Background(), "read_file", json.RawMessage(`{"path": "stock.csv", "offset": 2}`))
	if strings.Contains(res.Text(), "[table") {
		t.Errorf("read from an offset: %q", res.Text())
	}
}

func TestRowLabels(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		line         int
		text, want   string
	}{
		{"orders.csv", "id,customer,total", 3, "S-3,C-004,49.00", "(id: S-3, customer: C-004, total: 49.00)"},
		{"orders.csv", "id,customer,total", 1, "id,customer,total", ""},                   // the header itself
		{"orders.csv", "id,customer,total", 3, "S-3,C-004", ""},                           // cells do not line up
		{"orders.csv", "id,note", 2, `S-4,"late, again"`, "(id: S-4, note: late, again)"}, // quoted comma
		{"water.tsv", "zone\tlitres", 2, "A\t12.5", "(zone: A, litres: 12.5)"},
		{"notes.txt", "a,b", 2, "1,2", ""},
	} {
		if got := rowLabels(tc.name, tableCells(tc.name, tc.header), tc.line, tc.text); got != tc.want {
			t.Errorf("rowLabels(%q, %q, %d, %q) = %q, want %q", tc.name, tc.header, tc.line, tc.text, got, tc.want)
		}
	}
}
