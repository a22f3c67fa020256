package main

import (
	"strings"
	"testing"
)

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	bar := newProgressBar(&b, "bench", caseCounts)
	bar.cases(1, 4)
	bar.cases(4, 4) // the last count is always drawn
	bar.done()
	out := b.String()
	for _, want := range []string{"\rbench [######..................] 1/4 ", "\rbench [########################] 4/4 ", " cases/s ETA ", "in "} {
		if !strings.Contains(out, want) {
			t.Errorf("case bar lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("case bar does not end its line: %q", out)
	}

	b.Reset()
	bar = newProgressBar(&b, "pull m", byteCounts)
	bar.update(3<<20, 0) // no total yet
	bar.update(1<<30, 1<<30)
	bar.done()
	out = b.String()
	for _, want := range []string{"\rpull m 3.0 MiB ", " MB/s ", "] 1.0 GiB/1.0 GiB "} {
		if !strings.Contains(out, want) {
			t.Errorf("byte bar lacks %q:\n%q", want, out)
		}
	}

	b.Reset()
	newProgressBar(&b, "idle", caseCounts).done()
	if b.Len() != 0 {
		t.Errorf("a bar never updated wrote %q", b.String())
	}
}
