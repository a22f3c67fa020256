package tools

import (
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Table queries: a question about a table ("how much water did zone A
// get?", "¿cuántas unidades hay en total?", "which order was the
// largest?") is a choice of rows and one figure over them. Written as a
// query of a fixed form, "rows where zone = A: sum of water_l", the
// choice is one a grammar can hold to the table's own columns and values
// (Queries), in any language, and offgrid computes the figure (Query):
// a small model picks the rows and the column right more often than it
// adds their numbers.

// maxQueryValues bounds the values of a column a query may select rows
// by: a column with more distinct values (and a numeric one) is not a
// filter. maxQueries bounds the queries of a table (the grammar's
// size): past it, the columns with the most values are left out.
const (
	maxQueryValues = 40
	maxQueries     = 2000
)

// ErrQuery is returned for a query that is not one of a table's Queries.
var ErrQuery = errors.New("tools: not a query of this table")

// query is one of a table's queries: its text, the column and value
// that choose its rows (col -1: all rows), and what of them.
type query struct {
	text  string
	col   int
	value string
	op    string // list, count, sum, average, greatest or least
	of    int    // the numeric column of sum, average, greatest and least
}

// queries returns the table's queries, "none" first (Queries).
func (t *Table) queries() []query {
	type op struct {
		name, text string
		of         int
	}
	ops := []op{{"list", "list", -1}, {"count", "count", -1}}
	for c, h := range t.Head {
		if c > 0 && t.numeric(c) {
			ops = append(ops, op{"sum", "sum of " + h, c}, op{"average", "average of " + h, c},
				op{"greatest", "greatest " + h, c}, op{"least", "least " + h, c})
		}
	}
	type filter struct {
		text  string
		col   int
		value string
	}
	var by [][]filter // the filters of each column that may choose rows
	for c, h := range t.Head {
		vs := t.values(c)
		if len(vs) > maxQueryValues || 2*len(vs) > len(t.Rows) || t.numeric(c) {
			continue
		}
		var fs []filter
		for _, v := range vs {
			if !strings.ContainsAny(v, "\r\n") {
				fs = append(fs, filter{"rows where " + h + " = " + v, c, v})
			}
		}
		by = append(by, fs)
	}
	slices.SortStableFunc(by, func(a, b []filter) int { return len(a) - len(b) })
	filters := []filter{{"all rows", -1, ""}}
	for _, fs := range by {
		if (len(filters)+len(fs))*len(ops) > maxQueries {
			break
		}
		filters = append(filters, fs...)
	}
	out := []query{{text: "none", col: -1}}
	seen := map[string]bool{"none": true}
	for _, f := range filters {
		for _, o := range ops {
			q := query{f.text + ": " + o.text, f.col, f.value, o.name, o.of}
			if f.col < 0 && o.name == "list" || seen[q.text] {
				continue // the whole table; a text that two columns' names make twice
			}
			seen[q.text] = true
			out = append(out, q)
		}
	}
	return out
}

// Queries returns every query of the table, and "none": the rows (all,
// or those whose cell of a column that is not numeric, with at most
// maxQueryValues distinct cells and no more than half the rows, has a
// value), then ": " and what of them: "list", "count", or the sum,
// average, greatest or least value of a numeric column other than the
// first.
func (t *Table) Queries() []string {
	qs := t.queries()
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.text
	}
	return out
}

// Query returns the answer to q, one of the table's Queries but "none",
// as a line that restates it: "rows where zone = A: sum of water_l =
// 64.5 (7 of 14 rows)"; a list or a greatest or least value gives the
// rows, as they are in the file, on the lines after it.
func (t *Table) Query(text string) (string, error) {
	qs := t.queries()
	i := slices.IndexFunc(qs, func(q query) bool { return q.text == text })
	if i <= 0 { // not a query, or none
		return "", fmt.Errorf("%w: %q", ErrQuery, text)
	}
	q := qs[i]
	rows := t.Rows
	if q.col >= 0 {
		rows = nil
		for _, r := range t.Rows {
			if r[q.col] == q.value {
				rows = append(rows, r)
			}
		}
	}
	of := fmt.Sprintf("(%d of %s)", len(rows), plural(len(t.Rows), "row"))
	line := func(r []string) string { // as the file has it
		var b strings.Builder
		w := csv.NewWriter(&b)
		if t.comma != 0 {
			w.Comma = t.comma
		}
		w.Write(r)
		w.Flush()
		return strings.TrimSuffix(b.String(), "\n")
	}
	switch q.op {
	case "list":
		ls := make([]string, len(rows))
		for i, r := range rows {
			ls[i] = line(r)
		}
		return fmt.Sprintf("%s %s:\n%s", text, of, strings.Join(ls, "\n")), nil
	case "count":
		return fmt.Sprintf("%s = %d %s", text, len(rows), of), nil
	}
	sum, decimals, best := 0.0, 0, 0
	for i, r := range rows {
		v, d, _ := number(r[q.of])
		sum += v
		decimals = max(decimals, d)
		b, _, _ := number(rows[best][q.of])
		if q.op == "greatest" && v > b || q.op == "least" && v < b {
			best = i
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
	switch q.op {
	case "sum":
		return fmt.Sprintf("%s = %s %s", text, f(sum), of), nil
	case "average":
		return fmt.Sprintf("%s = %s %s", text, strconv.FormatFloat(sum/float64(len(rows)), 'f', decimals+1, 64), of), nil
	}
	v, _, _ := number(rows[best][q.of])
	return fmt.Sprintf("%s = %s %s, in the row:\n%s", text, f(v), of, line(rows[best])), nil
}
