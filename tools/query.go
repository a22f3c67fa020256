package tools

import (
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/offgrid-ai/offgrid/internal/words"
)

// Table queries: a question about a table ("how much water did zone A
// get?", "¿cuántas unidades hay en total?", "which order was the
// largest?") is a choice of one figure and the rows it is over. Written
// as a query of a fixed form, "sum of water_l, only where zone = A", the
// choice is one a grammar can hold to the table's own columns and values
// (Queries), in any language, and offgrid computes the figure (Query):
// a small model picks the rows and the column right more often than it
// adds their numbers. The figure comes first: written after the rows
// ("rows where zone = A: sum of water_l"), a choice made first, the
// 0.5B chose a zone's rows for a whole month's average and answered
// "which item do we have the most of?" with a list of one category.

// maxQueryValues bounds the values of a column a query may select rows
// by whatever the question: a column with more distinct values, or with
// more than half as many as rows (an id, a name, a date), selects rows
// only by a value the question holds ("C-001"), and a numeric column
// none. maxQueries bounds the queries of a table (the grammar's size):
// past it, the columns with the most values are left out.
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
	where filter // the rows
	op    string // list, count, sum, average, greatest or least
	of    int    // the numeric column of sum, average, greatest and least
}

// filter chooses a query's rows: all of them (col -1), those whose cell
// of column col is value, or, for a comparison (cmp '<' or '>'), those
// whose number in column col compares so with num, or with the number
// in column other when other is not -1.
type filter struct {
	text  string
	col   int
	value string
	cmp   byte
	num   float64
	other int
}

// keeps reports whether the row r is one of the filter's rows.
func (f filter) keeps(r []string) bool {
	switch {
	case f.col < 0:
		return true
	case f.cmp == 0:
		return r[f.col] == f.value
	}
	v, _, ok := number(r[f.col])
	w, okw := f.num, true
	if f.other >= 0 {
		w, _, okw = number(r[f.other])
	}
	ok = ok && okw
	if f.cmp == '<' {
		return ok && v < w
	}
	return ok && v > w
}

// queries returns the table's queries for question, "none" first
// (Queries).
func (t *Table) queries(question string) []query {
	type op struct {
		name, text string
		of         int
	}
	ops := []op{{"list", "list", -1}, {"count", "count", -1}}
	for c, h := range t.Head {
		if c > 0 && t.numeric(c) {
			ops = append(ops, op{"sum", "sum of " + h, c}, op{"average", "average of " + h, c},
				op{"greatest", "the row with the greatest " + h, c}, op{"least", "the row with the least " + h, c})
		}
	}
	terms, folded := words.Terms(question), strings.ToLower(question)
	var by [][]filter // the filters of each column that may choose rows
	var only []filter // those of a value the question names, one of its column
	var rows []filter // a row by a value of a column of many (a name), for a list
	for c, h := range t.Head {
		if t.numeric(c) {
			continue
		}
		vs := t.values(c)
		few := len(vs) <= maxQueryValues && 2*len(vs) <= len(t.Rows)
		var fs, named []filter
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n") {
				continue
			}
			f := filter{text: "only where " + h + " = " + v, col: c, value: v, other: -1}
			switch {
			case names(terms, folded, v):
				named = append(named, f)
				fs = append(fs, f)
			case few:
				fs = append(fs, f)
			case len(t.Rows) <= maxQueryValues && strings.ContainsFunc(v, unicode.IsLetter):
				rows = append(rows, f)
			}
		}
		if len(fs) > 0 {
			by = append(by, fs)
		}
		if few && len(named) == 1 {
			only = append(only, named[0])
		}
	}
	slices.SortStableFunc(by, func(a, b []filter) int { return len(a) - len(b) })
	filters := []filter{{text: "all rows", col: -1, other: -1}}
	if len(only) > 0 {
		// "¿cuántos litros recibió la zona A en total?" is about zone
		// A's rows: offered all rows too, the 0.5B chose them.
		by, filters = [][]filter{only}, nil
	}
	for _, fs := range by {
		if (len(filters)+len(fs))*len(ops) > maxQueries {
			break
		}
		filters = append(filters, fs...)
	}
	if len(only) == 0 {
		filters = append(filters, t.comparisons(question)...)
	}
	out := []query{{text: "none", where: filter{col: -1, other: -1}}}
	seen := map[string]bool{"none": true}
	if len(only) > 0 {
		rows = nil
	}
	for _, f := range filters {
		for _, o := range ops {
			q := query{o.text + ", " + f.text, f, o.name, o.of}
			if f.col < 0 && o.name == "list" || seen[q.text] {
				continue // the whole table; a text that two columns' names make twice
			}
			seen[q.text] = true
			out = append(out, q)
		}
	}
	for _, f := range rows {
		q := query{"list, " + f.text, f, "list", -1}
		if !seen[q.text] && len(out) < maxQueries {
			seen[q.text] = true
			out = append(out, q)
		}
	}
	return out
}

// maxCompared bounds the numbers of a question that a query may
// compare a column with.
const maxCompared = 3

// comparisons returns the filters that compare the numbers of a numeric
// column but the first with a number the question holds ("only where
// quantity < 10", "> 10": "which items are under 10?"), and those that
// compare two such columns of one range (comparable): "only where units
// < minimum", ">" ("¿qué productos están por debajo de su stock
// mínimo?"). Offered "= 10" too, the 0.5B chose it for
// "在庫が10個未満の商品は？".
func (t *Table) comparisons(question string) []filter {
	var cols []int
	for c := 1; c < len(t.Head); c++ {
		if t.numeric(c) {
			cols = append(cols, c)
		}
	}
	var out []filter
	for _, n := range numbersIn(question, maxCompared) {
		v, _, _ := number(n)
		for _, c := range cols {
			for _, cmp := range []byte("<>") {
				out = append(out, filter{text: fmt.Sprintf("only where %s %c %s", t.Head[c], cmp, n), col: c, cmp: cmp, num: v, other: -1})
			}
		}
	}
	for i, c := range cols {
		for _, d := range cols[i+1:] {
			if !t.comparable(c, d) {
				continue
			}
			for _, cmp := range []byte("<>") {
				out = append(out, filter{text: fmt.Sprintf("only where %s %c %s", t.Head[c], cmp, t.Head[d]), col: c, cmp: cmp, other: d})
			}
		}
	}
	return out
}

// comparable reports whether the numeric columns c and d hold numbers
// of one kind: in at least half the rows, the two are within a factor
// of two of each other, and each is the greater in some row (stock and
// minimum stock, amount and budget; not quantity and price, nor a unit
// price and the total of units at that price). Offered every pair, the
// 0.5B counted the orders "where qty > unit_price", then "where
// unit_price > total", for "how many orders did we get in Q3?".
func (t *Table) comparable(c, d int) bool {
	less, more, near := false, false, 0
	for _, r := range t.Rows {
		v, _, _ := number(r[c])
		w, _, _ := number(r[d])
		less, more = less || v < w, more || v > w
		lo, hi := min(v, w), max(v, w)
		if v == w || lo > 0 && hi <= 2*lo || hi < 0 && lo >= 2*hi {
			near++
		}
	}
	return less && more && 2*near >= len(t.Rows)
}

// numbersIn returns the first max numbers written in digits in s, ASCII
// or full-width, that are not part of a date, a time, an id or a word
// of Latin letters ("2026-07-02", "9:30", "P-104", "M8"), as ASCII
// ("10", "2.5"). A comma ends a number: it may separate decimals or
// thousands.
func numbersIn(s string, max int) []string {
	rs := []rune(s)
	digit := func(i int) (byte, bool) {
		switch r := rs[i]; {
		case r >= '0' && r <= '9':
			return byte(r), true
		case r >= '０' && r <= '９':
			return byte('0' + r - '０'), true
		}
		return 0, false
	}
	joined := func(i int) bool { // a rune that joins a number to an id, a date or a word
		r := rs[i]
		return r == '-' || r == '/' || r == ':' || r == '_' || r < unicode.MaxASCII && unicode.IsLetter(r)
	}
	var out []string
	for i := 0; i < len(rs) && len(out) < max; {
		if _, ok := digit(i); !ok {
			i++
			continue
		}
		var b []byte
		j := i
		for ; j < len(rs); j++ {
			if d, ok := digit(j); ok {
				b = append(b, d)
				continue
			}
			if rs[j] == '.' && j+1 < len(rs) && !slices.Contains(b, '.') {
				if _, ok := digit(j + 1); ok {
					b = append(b, '.')
					continue
				}
			}
			break
		}
		if (i == 0 || !joined(i-1)) && (j == len(rs) || !joined(j)) && !slices.Contains(out, string(b)) {
			out = append(out, string(b))
		}
		i = j
	}
	return out
}

// names reports whether a question, of words terms (words.Terms) and
// lower case folded, names the value v of a cell: as one of its words,
// in the case written, for a value of one or two letters ("zona A", not
// "On a vendu"), or anywhere in any case for a longer value ("c-001",
// "Hex bolt M8").
func names(terms []string, folded, v string) bool {
	if len([]rune(v)) <= 2 {
		return slices.Contains(terms, v)
	}
	return strings.Contains(folded, strings.ToLower(v))
}

// Queries returns the queries of the table for question, and "none":
// what of the rows, "list", "count", or the sum, average, or the row
// with the greatest or least value of a numeric column other than the
// first; then ", " and the rows, "all rows" or "only where" a column
// that is not numeric has a value: any of a column of few values
// (maxQueryValues), or one the question names: "count, only where zone
// = A", "sum of total, only where customer_id = C-001". Offered every
// date or id of a table, the 0.5B chose the first date's rows for a
// quarter's total. A table of at most maxQueryValues rows also lists
// the rows of any value that holds a letter of a column of more values
// (a name, an id; not a date): "list, only where city = Hamburg", which
// the 0.5B chose for "我们在汉堡有哪些客户？", a question that does not
// spell the value as the table does. A question that names one value
// of a column of few values is about that value's rows: its queries are
// only those, and those of another such value it names.
func (t *Table) Queries(question string) []string {
	qs := t.queries(question)
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.text
	}
	return out
}

// Query returns the answer to q, one of the table's Queries for
// question but "none", as a line that restates it: "sum of water_l,
// only where zone = A: 64.5 (7 of 14 rows)"; a list or a greatest or
// least value gives the rows, as they are in the file, on the lines
// after it.
func (t *Table) Query(question, text string) (string, error) {
	qs := t.queries(question)
	i := slices.IndexFunc(qs, func(q query) bool { return q.text == text })
	if i <= 0 { // not a query, or none
		return "", fmt.Errorf("%w: %q", ErrQuery, text)
	}
	q := qs[i]
	var rows [][]string
	for _, r := range t.Rows {
		if q.where.keeps(r) {
			rows = append(rows, r)
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
		return fmt.Sprintf("%s: %d %s", text, len(rows), of), nil
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
		return fmt.Sprintf("%s: %s %s", text, f(sum), of), nil
	case "average":
		return fmt.Sprintf("%s: %s %s", text, strconv.FormatFloat(sum/float64(len(rows)), 'f', decimals+1, 64), of), nil
	}
	v, _, _ := number(rows[best][q.of])
	return fmt.Sprintf("%s: %s %s, in the row:\n%s", text, f(v), of, line(rows[best])), nil
}
