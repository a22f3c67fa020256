package tools

import (
	"encoding/csv"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Tables: read_file ends a CSV or TSV file read whole with its figures,
// the ones people ask of a table ("how many units in total?", "which
// order was the largest?", "how much water did zone A get?"): its rows
// and columns, each numeric column's sum, least and greatest value (with
// the first cell of their rows), and the sums by the values of a column
// that holds only a few ("water_l by zone: A 64.5, B 40"). A small model
// adds thirty numbers wrong; it copies one right.

// maxGroups is the most distinct values a column may hold to group the
// sums by it; maxTableNote bounds the note.
const (
	maxGroups    = 5
	maxTableNote = 1500
)

// Table is a CSV or TSV file's header and rows.
type Table struct {
	Head  []string
	Rows  [][]string
	comma rune // the file's separator
}

// ParseTable parses text, the content of the file name, as a table: a
// CSV or TSV file (by its name) of a header and at least one row, every
// row as long as the header. It reports false for any other file.
func ParseTable(name, text string) (*Table, bool) {
	comma := tableComma(name)
	if comma == 0 {
		return nil, false
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = comma
	recs, err := r.ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, false
	}
	return &Table{Head: recs[0], Rows: recs[1:], comma: comma}, true
}

// numeric reports whether every cell of column c is a number.
func (t *Table) numeric(c int) bool {
	for _, r := range t.Rows {
		if _, _, ok := number(r[c]); !ok {
			return false
		}
	}
	return true
}

// values returns the distinct cells of column c, in order.
func (t *Table) values(c int) []string {
	var out []string
	seen := make(map[string]bool)
	for _, r := range t.Rows {
		if !seen[r[c]] {
			seen[r[c]] = true
			out = append(out, r[c])
		}
	}
	return out
}

// Column returns the distinct cells of column c, in order, and whether
// every cell is a number.
func (t *Table) Column(c int) (values []string, numeric bool) {
	return t.values(c), t.numeric(c)
}

// tableMark begins the figures tableNote adds to a read of a table.
const tableMark = "[table: "

// tableNote returns the figures of the CSV or TSV file name holding text,
// or "" for another file, one that does not parse, or one without a
// numeric column but the first (which names the rows). The sums by group
// are left out when the note would pass maxTableNote.
func tableNote(name, text string) string {
	t, ok := ParseTable(name, text)
	if !ok {
		return ""
	}
	head, rows := t.Head, t.Rows
	type column struct {
		name     string
		numeric  bool
		decimals int
		values   []float64
	}
	cols := make([]column, len(head))
	for c, h := range head {
		col := column{name: strings.TrimSpace(h), numeric: true}
		for _, row := range rows {
			v, d, ok := number(row[c])
			if !ok {
				col.numeric = false
				break
			}
			col.values = append(col.values, v)
			col.decimals = max(col.decimals, d)
		}
		cols[c] = col
	}
	var b strings.Builder
	fmt.Fprintf(&b, tableMark+"%s, %s (%s)", plural(len(rows), "row"), plural(len(head), "column"), strings.Join(head, ", "))
	numeric := 0
	for c, col := range cols {
		if !col.numeric || c == 0 {
			continue
		}
		numeric++
		lo, hi := 0, 0
		sum := 0.0
		for i, v := range col.values {
			sum += v
			if v < col.values[lo] {
				lo = i
			}
			if v > col.values[hi] {
				hi = i
			}
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', col.decimals, 64) }
		fmt.Fprintf(&b, "\n%s: sum %s, least %s (%s), greatest %s (%s)", col.name, f(sum),
			f(col.values[lo]), rows[lo][0], f(col.values[hi]), rows[hi][0])
	}
	if numeric == 0 {
		return ""
	}
	figures := b.Len()
	for g, by := range cols {
		if by.numeric {
			continue
		}
		var keys []string
		for _, row := range rows {
			if k := strings.TrimSpace(row[g]); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) < 2 || len(keys) > maxGroups || 2*len(keys) > len(rows) {
			continue
		}
		for c, col := range cols {
			if !col.numeric || c == 0 {
				continue
			}
			sums := make([]float64, len(keys))
			for i, row := range rows {
				sums[slices.Index(keys, strings.TrimSpace(row[g]))] += col.values[i]
			}
			fmt.Fprintf(&b, "\n%s by %s:", col.name, by.name)
			for i, k := range keys {
				fmt.Fprintf(&b, " %s %s", k, strconv.FormatFloat(sums[i], 'f', col.decimals, 64))
				if i < len(keys)-1 {
					b.WriteByte(',')
				}
			}
		}
	}
	out := b.String()
	if len(out) > maxTableNote {
		out = out[:figures] // without the sums by group
	}
	return out + "]\n"
}

// IsTable reports whether ParseTable reads the file name as a table, by
// its name: a CSV or TSV file.
func IsTable(name string) bool { return tableComma(name) != 0 }

// tableComma returns the field separator of a CSV or TSV file by its
// name, 0 for another file.
func tableComma(name string) rune {
	switch strings.ToLower(path.Ext(name)) {
	case ".csv":
		return ','
	case ".tsv":
		return '\t'
	}
	return 0
}

// number parses a table cell as a number: digits with an optional sign
// and decimal point, surrounding spaces allowed; it returns the value and
// its decimals.
func number(cell string) (float64, int, bool) {
	s := strings.TrimSpace(cell)
	if s == "" || strings.ContainsAny(s, "eEnNxX_") { // no exponents, NaN, Inf, hex
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, 0, false
	}
	d := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		d = len(s) - i - 1
	}
	return v, d, true
}

// rowLabels returns the cells of a table's row named by its header's
// columns, "(order_id: S-3011, customer_id: C-004, …)", for a grep_search
// line of a CSV or TSV file (name) other than its header; "" when the
// line and the header do not parse to the same number of cells. A small
// model asked which customer is on order S-3011, shown the bare row,
// named the order's number.
func rowLabels(name string, header []string, line int, text string) string {
	if line == 1 || len(header) < 2 {
		return ""
	}
	cells := tableCells(name, text)
	if len(cells) != len(header) {
		return ""
	}
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = strings.TrimSpace(header[i]) + ": " + strings.TrimSpace(c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// tableCells returns the cells of one line of a CSV or TSV file (name),
// its header or a row, or nil.
func tableCells(name, line string) []string {
	comma := tableComma(name)
	if comma == 0 {
		return nil
	}
	r := csv.NewReader(strings.NewReader(line))
	r.Comma, r.LazyQuotes = comma, true
	cells, err := r.Read()
	if err != nil {
		return nil
	}
	return cells
}
