package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// overall picks each run's overall row: its "all" row, or its only
// category's row.
func overall(rows []Row) []Row {
	var out []Row
	for i, r := range rows {
		last := i == len(rows)-1 || rows[i+1].Label() != r.Label()
		if last {
			out = append(out, r)
		}
	}
	return out
}

var svgSeries = []struct {
	barSeries
	value func(Row) float64
}{
	{barSeries{"parse-valid", "#4e79a7"}, func(r Row) float64 { return r.ParseValid }},
	{barSeries{"schema-valid", "#59a14f"}, func(r Row) float64 { return r.SchemaValid }},
	{barSeries{"correct function", "#f28e2b"}, func(r Row) float64 { return r.CorrectFunction }},
	{barSeries{"accuracy (BFCL AST)", "#e15759"}, func(r Row) float64 { return r.Accuracy }},
}

// WriteSVG draws a grouped bar chart: per run (model × grammar mode), its
// overall validity and accuracy percentages.
func WriteSVG(w io.Writer, rows []Row) error {
	var series []barSeries
	for _, s := range svgSeries {
		series = append(series, s.barSeries)
	}
	var groups []barGroup
	for _, r := range overall(rows) {
		g := barGroup{label: r.Runner + " · grammar " + r.Grammar, sub: r.Model, n: r.Cases}
		for _, s := range svgSeries {
			g.values = append(g.values, s.value(r))
		}
		groups = append(groups, g)
	}
	return writeBarChart(w, "Tool-call reliability on BFCL (%, with 95 % intervals)", series, groups)
}

// barSeries is one kind of bar of a chart.
type barSeries struct{ name, color string }

// barGroup is one group of bars: a percentage per series, and the number
// of trials each is out of (n), for its 95 % Wilson interval; 0 draws none.
type barGroup struct {
	label, sub string
	values     []float64
	n          int
}

// writeBarChart draws groups of percentage bars, one bar per series.
func writeBarChart(w io.Writer, title string, series []barSeries, groups []barGroup) error {
	const (
		barW, gap, left, top, plotH = 22, 30, 50, 40, 240
	)
	groupW := max(len(series)*barW+gap, 150)
	width := max(left+len(groups)*groupW+20, 520)
	height := top + plotH + 90
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&sb, `<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	for p := 0; p <= 100; p += 20 {
		y := top + plotH - p*plotH/100
		fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/><text x="%d" y="%d" text-anchor="end">%d</text>`+"\n", left, y, width-10, y, left-6, y+4, p)
	}
	for g, grp := range groups {
		x0 := left + g*groupW + (groupW-len(series)*barW)/2
		for s, ser := range series {
			v := grp.values[s]
			h := int(v * plotH / 100)
			x := x0 + s*barW
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s: %.1f%%</title></rect>`+"\n", x, top+plotH-h, barW-2, h, ser.color, html.EscapeString(ser.name), v)
			label := top + plotH - h - 3
			if grp.n > 0 { // the interval as a whisker
				lo, hi := Wilson(int(math.Round(v*float64(grp.n)/100)), grp.n)
				y1, y2 := top+plotH-int(hi*plotH), top+plotH-int(lo*plotH)
				cx := x + barW/2 - 1
				fmt.Fprintf(&sb, `<g stroke="#333"><title>95%% CI %.0f–%.0f%% (n = %d)</title><line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d"/></g>`+"\n",
					100*lo, 100*hi, grp.n, cx, y1, cx, y2, cx-4, y1, cx+4, y1, cx-4, y2, cx+4, y2)
				label = min(label, y1-3)
			}
			fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%.0f</text>`+"\n", x+barW/2-1, label, v)
		}
		cx := x0 + len(series)*barW/2
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", cx, top+plotH+16, html.EscapeString(shorten(grp.label, 26)))
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", cx, top+plotH+30, html.EscapeString(shorten(grp.sub, 28)))
	}
	lx := left
	for _, ser := range series {
		fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, height-22, ser.color, lx+14, height-13, html.EscapeString(ser.name))
		lx += 14 + 7*len(ser.name) + 16
	}
	sb.WriteString("</svg>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
