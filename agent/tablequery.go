package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/tools"
)

// TableQuery: a question answered from a table offgrid read (a CSV or
// TSV file) has the model write, under a grammar of the table's own
// columns and values (tools.Table.Queries), the rows and the figure it
// asks for; offgrid computes the figure, adds it to the read's result,
// and begins the answer with it (queryNote), so the answer copies a
// figure instead of adding numbers. The 0.5B, shown "quantity: sum 612"
// among the table's figures, answered a Spanish "how many units in
// total?" with 1212; asked for the query, it wrote "sum of quantity,
// all rows".

// tableQueryExamples are questions about one table and their queries,
// in several languages. On 22 questions of my own over the dev
// fixtures' tables (sums, averages, extremes, counts, lists, lookups;
// six languages), the 0.5B chose 9 queries right with the first five of
// these, written rows first; 13 with the figure first; 17 with the row
// of a greatest or least value named so, and these eight. With five
// more, on ids and on one zone's total, 19 of 27; 22 once a value the
// question names chose the rows (tools.Table.Queries).
var tableQueryExamples = []struct{ question, query string }{
	{"Wie viel Umsatz kam aus Lyon?", "sum of amount, only where city = Lyon"},
	{"which orders came from Porto?", "list, only where city = Porto"},
	{"¿Qué pedido fue el más grande?", "the row with the greatest amount, all rows"},
	{"What kind of order is A-7?", "none"},
	{"一番小さい注文は？", "the row with the least amount, all rows"},
	{"Combien de commandes de gros ?", "count, only where kind = wholesale"},
	{"What's the total of all orders?", "sum of amount, all rows"},
	{"Welche Bestellung aus Kiel war am kleinsten?", "the row with the least amount, only where city = Kiel"},
}

// queryTable has the model query the first table that one of the turn's
// own reads, at index from or later, read whole, and adds the query and
// its answer to that read's result.
// It does nothing when Options.TableQuery is off, no table was read, or
// the model chooses "none".
func (a *Agent) queryTable(ctx context.Context, turn *Turn, request string, from int, on func(Event)) error {
	if !a.opts.TableQuery || a.opts.NoGrammar {
		return nil
	}
	for i := from; i < len(turn.Calls); i++ {
		r := &turn.Calls[i]
		if !r.ByAgent || r.Name != readFileTool || !r.OK() || r.Result.Data == nil {
			continue
		}
		body, _ := tools.SplitTableNote(*r.Result.Data)
		lines, ok := tools.Unnumbered(body)
		if !ok {
			continue
		}
		table, ok := tools.ParseTable(r.argPath(), strings.Join(lines, "\n")+"\n")
		if !ok {
			continue
		}
		q, err := a.choose(ctx, turn, on, tableQueryMessages(r.argPath(), table, request), table.Queries(request))
		if err != nil {
			return err
		}
		if q != "" && q != "none" {
			if res, err := table.Query(request, q); err == nil {
				data := strings.TrimRight(*r.Result.Data, "\n") + "\n" + queryMark + res + "]\n"
				r.Result.Data = &data
			}
		}
		return nil
	}
	return nil
}

// queryMark begins the line a query's answer adds to a read's result.
const queryMark = "[query: "

// queryNote begins the answer to a question a table query answered
// (queryTable): the file and the query's answer, "From data/stock.csv,
// sum of quantity, all rows: 612 (8 of 8 rows).", which the model
// continues. Shown the figure at the end of the file, in the results and
// after the request, the 0.5B still answered the first row's quantity.
func queryNote(calls []ToolRecord) string {
	for _, c := range calls {
		if c.Name != readFileTool || !c.OK() || c.Result.Data == nil {
			continue
		}
		_, res, ok := strings.Cut(*c.Result.Data, "\n"+queryMark)
		if !ok {
			continue
		}
		res = strings.TrimSuffix(strings.TrimRight(res, "\n"), "]")
		if !strings.Contains(res, "\n") {
			res += "."
		}
		return fmt.Sprintf("From %s, %s\n\n", c.argPath(), res)
	}
	return ""
}

// Copies of a query's answer: asked where P-104 is mentioned, the 0.5B
// continued queryNote's "From data/sales-2026-q3.csv, list, only where
// product_id = P-104 (3 of 15 rows):" and its three rows with the same
// query and the same rows under "From data/inventory.json, …" and "From
// reports/summary.md, …": rows put in files that do not hold them. A
// copy of the note says nothing the note does not, so the model's lines
// that restate the query, for whatever file, or copy one of its rows
// are dropped.

// withoutQueryCopies returns text without its lines that restate the
// query of note (queryNote) or copy one of the note's rows; text as it
// is when note is "".
func withoutQueryCopies(text, note string) string {
	head, rows, _ := strings.Cut(strings.TrimSpace(note), "\n")
	_, query, ok := strings.Cut(head, ", ") // "From PATH, QUERY"
	if !ok {
		return text
	}
	query = strings.TrimRight(query, ".:")
	copied := map[string]bool{}
	for _, r := range strings.Split(rows, "\n") {
		if r = strings.TrimSpace(r); r != "" {
			copied[r] = true
		}
	}
	return withoutLines(text, func(l string) bool {
		l = strings.TrimSpace(l)
		return strings.Contains(l, query) || copied[l] || copied[strings.TrimSuffix(l, "]")]
	})
}

// tableQueryMessages is the choice put to the model: what a table is
// and examples of queries over a table of orders, then the table's size
// and columns, and the question. The examples' table is the same for
// every table, so that their prompt stays in the KV cache. The columns are described, not shown
// in rows: shown a table's first rows, the 0.5B summed the quantity of
// the first row for "how many units in total?".
func tableQueryMessages(path string, t *tools.Table, question string) []Message {
	example := describeTable("orders.csv", exampleOrders())
	return fewShot("A user asks a question about a table (a CSV file). Reply with the computation over the table's rows that answers it, or none if it needs none.",
		tableQueryExamples, func(ex struct{ question, query string }) (string, string) {
			return example + "\n\n" + ex.question, ex.query
		}, describeTable(path, t)+"\n\n"+question)
}

// exampleOrders is the table of tableQueryExamples.
func exampleOrders() *tools.Table {
	t, _ := tools.ParseTable("orders.csv", "id,city,kind,amount\nA-1,Lyon,retail,12.50\nA-2,Porto,retail,3.00\nA-3,Lyon,wholesale,80.00\nA-4,Kiel,retail,7.25\nA-5,Porto,wholesale,40.00\nA-6,Lyon,retail,9.00\nA-7,Kiel,wholesale,55.00\n")
	return t
}

// describeTable says what the table of the file name holds: its rows,
// and its columns with their values, a few of them, or "numbers".
func describeTable(name string, t *tools.Table) string {
	parts := make([]string, len(t.Head))
	for c, h := range t.Head {
		vs, numeric := t.Column(c)
		switch {
		case numeric && c > 0:
			parts[c] = h + " (numbers)"
		case len(vs) <= 6:
			parts[c] = h + " (" + strings.Join(vs, ", ") + ")"
		default:
			parts[c] = fmt.Sprintf("%s (%d values, such as %s)", h, len(vs), vs[0])
		}
	}
	return fmt.Sprintf("The file %s has %d rows; its columns: %s.", name, len(t.Rows), strings.Join(parts, "; "))
}
