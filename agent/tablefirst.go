package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/offgrid-ai/offgrid/tools"
)

// TableFirst: a question about the files that names none, in a folder
// that holds tables (CSV, TSV), is searched for in the tables alone when
// the model chooses, under a grammar, that its answer comes from a
// table's rows. Searched through every file, "What was the lowest
// humidity we recorded in June?" found "since June" in docs/wiring.md,
// and the 0.5B, given that file, made up a figure; the table with a
// humidity column was not read. What decides is the model's choice,
// told the tables' names, in whatever language the request is.

// maxTables bounds the tables a folder's choice names, and the search's
// filter lists by path; a folder of more is searched in every CSV and
// TSV file (tablesFilter).
const maxTables = 20

// tableFirstExamples are questions and whether a table's rows answer
// each.
var tableFirstExamples = []struct{ request, answer string }{
	{"What was the total of the March invoices?", "yes"},
	{"Wer kümmert sich um die Heizung?", "no"},
	{"¿Qué cliente compró más en mayo?", "yes"},
	{"Où est défini le port du serveur ?", "no"},
	{"在庫が一番少ない商品は？", "yes"},
	{"What did we decide about the new logo?", "no"},
	{"Quantos pedidos foram entregues com atraso?", "yes"},
	{"这个函数在哪里定义的？", "no"},
}

// tableMessages is the choice put to the model: the tables the folder
// holds, examples as earlier turns, then the request.
func tableMessages(tables []string, request string) []Message {
	names := strings.Join(tables[:min(len(tables), maxTables)], ", ")
	if len(tables) > maxTables {
		names += " and more"
	}
	return fewShot("A user asks about a folder of files. Its data tables are "+names+
		". Reply yes if the answer comes from the rows of a table: a value in a row, a sum, a count, an average, the largest or the smallest, or the rows that match; no if it comes from code, notes, documents or settings.",
		tableFirstExamples, func(ex struct{ request, answer string }) (string, string) { return ex.request, ex.answer }, request)
}

// tableFilter returns the grep_search file filter of the folder's tables
// when the model chooses that t's request is answered from a table's
// rows (Options.TableFirst); "" when the assist is off, the folder holds
// no table, or the model chooses no.
func (a *Agent) tableFilter(ctx context.Context, t *turnState) string {
	if !a.opts.TableFirst || a.opts.Files == nil || a.opts.NoGrammar || t.in.change {
		return ""
	}
	paths, _, err := a.projectFiles(ctx, maxWalk)
	if err != nil {
		return ""
	}
	var tables []string
	for _, p := range paths {
		if tools.IsTable(p) {
			tables = append(tables, p)
		}
	}
	if len(tables) == 0 {
		return ""
	}
	if yes, err := a.choose(ctx, &t.turn, t.on, tableMessages(tables, t.text), []string{"yes", "no"}); err != nil || yes != "yes" {
		return ""
	}
	return tablesFilter(tables)
}

// tablesFilter returns the grep_search file filter of the tables: their
// paths, or, for more than maxTables, every CSV and TSV file by name.
func tablesFilter(tables []string) string {
	if len(tables) > maxTables {
		return "*.{csv,tsv,CSV,TSV}"
	}
	globs := make([]string, len(tables))
	for i, p := range tables {
		globs[i] = globMeta.ReplaceAllString(p, `\$0`)
	}
	if len(globs) == 1 {
		return globs[0]
	}
	return "{" + strings.Join(globs, ",") + "}"
}

// widened reports whether calls[i] is offgrid's search that the next
// call, offgrid's search of the same pattern, made again through every
// file: the search of the tables (TableFirst) that no line of theirs
// answered. An answer is not shown it.
func widened(calls []ToolRecord, i int) bool {
	if i+1 >= len(calls) {
		return false
	}
	c, next := calls[i], calls[i+1]
	if !c.ByAgent || !next.ByAgent || c.Name != searchTool || next.Name != searchTool {
		return false
	}
	var x, y struct {
		Pattern string `json:"pattern"`
		Filter  string `json:"file_filter"`
	}
	return json.Unmarshal(c.Arguments, &x) == nil && json.Unmarshal(next.Arguments, &y) == nil &&
		x.Pattern == y.Pattern && x.Filter != "" && y.Filter == ""
}
