package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// Row is the summary of one run (model × grammar mode) on one category,
// or on all its cases when Category is "all".
type Row struct {
	Runner, Model, Grammar, ToolFormat, Category string

	Cases int
	// Percentages of cases. AST is accuracy on call categories and
	// Irrelevance on irrelevance ones; the other is -1. In "all" rows
	// Accuracy counts correct verdicts over every case.
	ParseValid, SchemaValid, CorrectFunction, AST, Irrelevance, Accuracy float64
	Errors                                                               int

	MeanLatency, MedianLatency float64 // seconds per case
	PromptTPS, GenerateTPS     float64
	CasesPerMinute             float64
}

// Label names the row's run.
func (r Row) Label() string { return fmt.Sprintf("%s %s grammar %s", r.Runner, r.Model, r.Grammar) }

// Summarize returns one row per run and category present (in Categories
// order) followed by the run's "all" row.
func Summarize(runs []Run) []Row {
	var rows []Row
	for _, run := range runs {
		byCat := map[string][]CaseResult{}
		for _, c := range run.Cases {
			byCat[c.Category] = append(byCat[c.Category], c)
		}
		cats := 0
		for _, cat := range categories {
			if cs := byCat[cat]; len(cs) > 0 {
				rows = append(rows, summarize(run, cat, cs))
				cats++
			}
		}
		if cats != 1 {
			rows = append(rows, summarize(run, "all", run.Cases))
		}
	}
	return rows
}

func summarize(run Run, cat string, cs []CaseResult) Row {
	r := Row{Runner: run.Runner, Model: run.Model, Grammar: run.Grammar, ToolFormat: run.ToolFormat, Category: cat, Cases: len(cs), AST: -1, Irrelevance: -1}
	if len(cs) == 0 {
		return r
	}
	var parse, schema, fn, correct, calls, callsOK, irr, irrOK int
	var lat []float64
	var pTok, gTok int
	var pSec, gSec, latSum float64
	for _, c := range cs {
		parse += b2i(c.ParseValid)
		schema += b2i(c.SchemaValid)
		fn += b2i(c.CorrectFunction)
		correct += b2i(c.Verdict.Valid)
		if strings.Contains(c.Category, "irrelevance") {
			irr++
			irrOK += b2i(c.Verdict.Valid)
		} else {
			calls++
			callsOK += b2i(c.Verdict.Valid)
		}
		if c.Error != "" {
			r.Errors++
		}
		lat = append(lat, c.LatencySeconds)
		latSum += c.LatencySeconds
		pTok += c.PromptTokens
		pSec += c.PromptSeconds
		gTok += c.GeneratedTokens
		gSec += c.GenerateSeconds
	}
	n := float64(len(cs))
	r.ParseValid = pct(parse, len(cs))
	r.SchemaValid = pct(schema, len(cs))
	r.CorrectFunction = pct(fn, len(cs))
	r.Accuracy = pct(correct, len(cs))
	if calls > 0 {
		r.AST = pct(callsOK, calls)
	}
	if irr > 0 {
		r.Irrelevance = pct(irrOK, irr)
	}
	r.MeanLatency = latSum / n
	slices.Sort(lat)
	if len(lat)%2 == 1 {
		r.MedianLatency = lat[len(lat)/2]
	} else {
		r.MedianLatency = (lat[len(lat)/2-1] + lat[len(lat)/2]) / 2
	}
	if pSec > 0 {
		r.PromptTPS = float64(pTok) / pSec
	}
	if gSec > 0 {
		r.GenerateTPS = float64(gTok) / gSec
	}
	if latSum > 0 {
		r.CasesPerMinute = n / latSum * 60
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pct(n, of int) float64 { return 100 * float64(n) / float64(of) }

// Wilson returns the 95 % Wilson score interval of k successes in n
// trials, as fractions; 0, 0 when n is 0.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / d
	half := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return max(0, mid-half), min(1, mid+half)
}

// wilsonCell is Wilson's interval as a table cell, in percent.
func wilsonCell(k, n int) string {
	lo, hi := Wilson(k, n)
	return fmt.Sprintf("%.0f–%.0f%%", 100*lo, 100*hi)
}

var header = []string{"runner", "model", "grammar", "category", "cases", "parse-valid", "schema-valid", "correct fn", "AST acc", "irrelevance", "95% CI", "mean s", "median s", "prompt tok/s", "gen tok/s", "cases/min"}

func (r Row) cells() []string {
	opt := func(v float64) string {
		if v < 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", v)
	}
	cat := r.Category
	if r.Errors > 0 {
		cat += fmt.Sprintf(" (%d errors)", r.Errors)
	}
	return []string{
		r.Runner, r.Model, r.Grammar, cat, fmt.Sprint(r.Cases),
		opt(r.ParseValid), opt(r.SchemaValid), opt(r.CorrectFunction), opt(r.AST), opt(r.Irrelevance), r.interval(),
		fmt.Sprintf("%.2f", r.MeanLatency), fmt.Sprintf("%.2f", r.MedianLatency),
		fmt.Sprintf("%.0f", r.PromptTPS), fmt.Sprintf("%.1f", r.GenerateTPS), fmt.Sprintf("%.1f", r.CasesPerMinute),
	}
}

// interval is the 95 % Wilson interval of the row's accuracy: AST or
// irrelevance on a category, every verdict on "all".
func (r Row) interval() string {
	acc := r.Accuracy
	switch {
	case r.Category == "all":
	case r.AST >= 0:
		acc = r.AST
	case r.Irrelevance >= 0:
		acc = r.Irrelevance
	}
	if r.Cases == 0 || acc < 0 {
		return "-"
	}
	return wilsonCell(int(math.Round(acc*float64(r.Cases)/100)), r.Cases)
}

// WriteTable prints rows as an aligned text table.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	return tw.Flush()
}

// WriteMarkdown writes rows as a Markdown report; command is shown as the
// command that produced it.
func WriteMarkdown(w io.Writer, rows []Row, command string) error {
	var sb strings.Builder
	sb.WriteString("# offgrid bench\n\n")
	if command != "" {
		fmt.Fprintf(&sb, "```\n%s\n```\n\n", command)
	}
	mdTable(&sb, header, 4, func(row func([]string)) {
		for _, r := range rows {
			row(r.cells())
		}
	})
	sb.WriteString("\nparse-valid: the reply decoded into calls (at least one where calls are expected); " +
		"schema-valid: every call names a tool and its arguments validate against the tool's JSON Schema; " +
		"correct fn: the expected function names were called; AST acc and irrelevance: BFCL's AST checker verdicts, with the 95 % Wilson interval of the row's accuracy. " +
		"Latency is per case; tokens/s are totals over the run's cases.\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteReports writes results.json, report.md and report.svg into dir
// (created if needed), each atomically.
func WriteReports(dir string, res *Results, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := WriteResults(filepath.Join(dir, "results.json"), res); err != nil {
		return err
	}
	rows := Summarize(res.Runs)
	var md, svg bytes.Buffer
	if err := WriteMarkdown(&md, rows, command); err != nil {
		return err
	}
	var paired strings.Builder
	pairedMarkdown(&paired, PairBFCL(res.Runs))
	md.WriteString(paired.String())
	if err := WriteSVG(&svg, rows); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "report.md"), md.Bytes()); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "report.svg"), svg.Bytes())
}
