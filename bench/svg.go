package bench

import (
	"fmt"
	"html"
	"io"
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
	name  string
	color string
	value func(Row) float64
}{
	{"parse-valid", "#4e79a7", func(r Row) float64 { return r.ParseValid }},
	{"schema-valid", "#59a14f", func(r Row) float64 { return r.SchemaValid }},
	{"correct function", "#f28e2b", func(r Row) float64 { return r.CorrectFunction }},
	{"accuracy (BFCL AST)", "#e15759", func(r Row) float64 { return r.Accuracy }},
}

// WriteSVG draws a grouped bar chart: per run (model × grammar mode), its
// overall validity and accuracy percentages.
func WriteSVG(w io.Writer, rows []Row) error {
	groups := overall(rows)
	const (
		barW, gap, left, top, plotH = 22, 30, 50, 40, 240
	)
	groupW := len(svgSeries)*barW + gap
	width := left + len(groups)*groupW + 20
	if width < 520 {
		width = 520
	}
	height := top + plotH + 90
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&sb, `<text x="%d" y="18" font-size="14" font-weight="bold">Tool-call reliability on BFCL (%%)</text>`+"\n", left)
	for p := 0; p <= 100; p += 20 {
		y := top + plotH - p*plotH/100
		fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/><text x="%d" y="%d" text-anchor="end">%d</text>`+"\n", left, y, width-10, y, left-6, y+4, p)
	}
	for g, r := range groups {
		x0 := left + g*groupW + gap/2
		for s, ser := range svgSeries {
			v := ser.value(r)
			h := int(v * plotH / 100)
			x := x0 + s*barW
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s: %.1f%%</title></rect>`+"\n", x, top+plotH-h, barW-2, h, ser.color, html.EscapeString(ser.name), v)
			fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%.0f</text>`+"\n", x+barW/2-1, top+plotH-h-3, v)
		}
		cx := x0 + len(svgSeries)*barW/2
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", cx, top+plotH+16, html.EscapeString(r.Runner+" · grammar "+r.Grammar))
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", cx, top+plotH+30, html.EscapeString(shorten(r.Model, 28)))
	}
	lx := left
	for _, ser := range svgSeries {
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
