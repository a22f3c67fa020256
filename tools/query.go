package tools

import (
	"encoding/csv"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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

// query is one of a table's queries: its text, the rows it is over
// (keep nil: all rows), and what of them.
type query struct {
	text string
	keep func(row []string) bool
	op   string // list, count, sum, average, greatest or least
	of   int    // the numeric column of sum, average, greatest and least
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
	type filter struct {
		text string
		keep func(row []string) bool
	}
	equal := func(c int, v string) func([]string) bool { return func(r []string) bool { return r[c] == v } }
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
			f := filter{"only where " + h + " = " + v, equal(c, v)}
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
	// A numeric column compares with a number the question holds ("in
	// stock under 10"); the first column names the rows.
	var numbers []filter
	nums := questionNumbers(question)
	for c, h := range t.Head {
		if c == 0 || !t.numeric(c) {
			continue
		}
		for _, n := range nums {
			for _, cmp := range comparisons {
				numbers = append(numbers, filter{"only where " + h + " " + cmp.sign + " " + n.Text, compare(c, n.Value, cmp.holds)})
			}
		}
	}
	slices.SortStableFunc(by, func(a, b []filter) int { return len(a) - len(b) })
	filters := []filter{{"all rows", nil}}
	if len(only) > 0 {
		// "¿cuántos litros recibió la zona A en total?" is about zone
		// A's rows: offered all rows too, the 0.5B chose them.
		by, filters = [][]filter{only}, nil
	}
	filters = append(filters, numbers...)
	for _, fs := range by {
		if (len(filters)+len(fs))*len(ops) > maxQueries {
			break
		}
		filters = append(filters, fs...)
	}
	out := []query{{text: "none"}}
	seen := map[string]bool{"none": true}
	if len(only) > 0 {
		rows = nil
	}
	for _, f := range filters {
		for _, o := range ops {
			q := query{o.text + ", " + f.text, f.keep, o.name, o.of}
			if f.keep == nil && o.name == "list" || seen[q.text] {
				continue // the whole table; a text that two columns' names make twice
			}
			seen[q.text] = true
			out = append(out, q)
		}
	}
	for _, f := range rows {
		q := query{"list, " + f.text, f.keep, "list", -1}
		if !seen[q.text] && len(out) < maxQueries {
			seen[q.text] = true
			out = append(out, q)
		}
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
// only those, and those of another such value it names. A number the
// question writes compares with each numeric column but the first:
// "list, only where quantity < 10" for "在庫が10個未満の商品はどれ？".
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
	rows := t.Rows
	if q.keep != nil {
		rows = nil
		for _, r := range t.Rows {
			if q.keep(r) {
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
	if len(rows) == 0 && q.op != "count" {
		return fmt.Sprintf("%s: no row %s", text, of), nil
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

// comparisons are the ways a query compares a numeric column with a
// number the question holds.
var comparisons = []struct {
	sign  string
	holds func(a, b float64) bool
}{
	{"<", func(a, b float64) bool { return a < b }},
	{">", func(a, b float64) bool { return a > b }},
	{"=", func(a, b float64) bool { return a == b }},
}

// compare returns the filter of the rows whose column c holds against n.
func compare(c int, n float64, holds func(a, b float64) bool) func([]string) bool {
	return func(r []string) bool {
		v, _, _ := number(r[c])
		return holds(v, n)
	}
}

// numberPattern matches a number a question writes: digits, with a
// decimal point or comma.
var numberPattern = regexp.MustCompile(`\d+(?:[.,]\d+)?`)

// A Number is a number a text writes on its own (Numbers): as written,
// with a decimal point ("9,5" is 9.5), its value, and where it is in the
// text (bytes Start to End).
type Number struct {
	Text       string
	Value      float64
	Start, End int
}

// Numbers returns the numbers text writes on their own, in order: not a
// part of a name, a code or a date ("P-104", "v2", "2026-07-09", "10mm",
// "1.2.3"), which a Latin letter, a digit or one of "-_/" touches, or a
// dot before it. Other scripts touch numbers as they write them:
// "10個未満" writes 10.
func Numbers(text string) []Number {
	touches := func(r rune) bool {
		return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_/", r))
	}
	var out []Number
	for _, loc := range numberPattern.FindAllStringIndex(text, -1) {
		before, _ := utf8.DecodeLastRuneInString(text[:loc[0]])
		after, _ := utf8.DecodeRuneInString(text[loc[1]:])
		if touches(before) || before == '.' || touches(after) || after == '.' && loc[1]+1 < len(text) && text[loc[1]+1] != ' ' {
			continue
		}
		m := strings.Replace(text[loc[0]:loc[1]], ",", ".", 1)
		v, err := strconv.ParseFloat(m, 64)
		if err != nil {
			continue
		}
		out = append(out, Number{m, v, loc[0], loc[1]})
	}
	return out
}

// questionNumbers returns the distinct numbers a question writes on
// their own (Numbers).
func questionNumbers(question string) []Number {
	var out []Number
	for _, n := range Numbers(question) {
		if !slices.ContainsFunc(out, func(o Number) bool { return o.Text == n.Text }) {
			out = append(out, n)
		}
	}
	return out
}
