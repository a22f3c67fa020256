package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// progressUnit writes a progress bar's counts and rate.
type progressUnit struct {
	count func(n int64) string
	rate  func(perSecond float64) string
}

var (
	// caseCounts: "12/50 2.10 cases/s".
	caseCounts = progressUnit{
		count: func(n int64) string { return strconv.FormatInt(n, 10) },
		rate:  func(r float64) string { return fmt.Sprintf("%.2f cases/s", r) },
	}
	// byteCounts: "12.0 MiB/241.4 MiB 35.2 MB/s".
	byteCounts = progressUnit{
		count: humanBytes,
		rate:  func(r float64) string { return fmt.Sprintf("%.1f MB/s", r/1e6) },
	}
)

// progressBar draws "label [####....] 12/50 2.10 cases/s ETA 18s" on one
// line of w, at most ten times a second and always at the end; without a
// total it draws "label 12.0 MiB 35.2 MB/s".
type progressBar struct {
	w     io.Writer
	label string
	unit  progressUnit
	start time.Time
	last  time.Time
	drawn bool
	n     int64
	total int64
}

func newProgressBar(w io.Writer, label string, unit progressUnit) *progressBar {
	return &progressBar{w: w, label: label, unit: unit, start: time.Now()}
}

// update records done of total and redraws.
func (p *progressBar) update(done, total int64) {
	p.n, p.total = done, total
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond || (total > 0 && done == total) {
		p.last = now
		p.draw()
	}
}

// cases is update for counts of cases.
func (p *progressBar) cases(done, total int) { p.update(int64(done), int64(total)) }

func (p *progressBar) draw() {
	const width = 24
	rate := float64(p.n) / max(time.Since(p.start).Seconds(), 1e-3)
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r%s %s %s ", p.label, p.unit.count(p.n), p.unit.rate(rate))
	} else {
		filled := int(width * min(p.n, p.total) / p.total)
		eta := "?"
		if rate > 0 {
			eta = (time.Duration(float64(p.total-p.n)/rate) * time.Second).Round(time.Second).String()
		}
		fmt.Fprintf(p.w, "\r%s [%s%s] %s/%s %s ETA %s ", p.label, strings.Repeat("#", filled),
			strings.Repeat(".", width-filled), p.unit.count(p.n), p.unit.count(p.total), p.unit.rate(rate), eta)
	}
	p.drawn = true
}

// done ends the bar's line, if one was drawn.
func (p *progressBar) done() {
	if p.drawn {
		p.draw()
		fmt.Fprintf(p.w, "in %s\n", time.Since(p.start).Round(100*time.Millisecond))
	}
}
