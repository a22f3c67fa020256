package bench

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/bench/checker"
)

func TestMcNemar(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{1, 0, 1},
		{6, 1, 0.125},         // 2 * (1 + 7) / 128
		{17, 1, 0.000145},     // 2 * (1 + 18) / 262144
		{7, 0, 0.015625},      // 2 / 128
		{10, 10, 1},           // even
		{60, 40, 0.0569},      // 2 * P(X ≤ 40), X ~ Bin(100, 1/2)
		{0, 19 + 1, 1.907e-6}, // 2 / 2^20
	} {
		got := McNemar(tc.b, tc.c)
		if math.Abs(got-tc.want) > 0.01*tc.want {
			t.Errorf("McNemar(%d, %d) = %.6g, want %.6g", tc.b, tc.c, got, tc.want)
		}
	}
}

func TestPairAgent(t *testing.T) {
	run := func(mode string, pass ...bool) AgentRun {
		r := AgentRun{Model: "m", Mode: mode, Grammar: "on", Results: "compact"}
		for i, p := range pass {
			r.Tasks = append(r.Tasks, TaskResult{ID: string(rune('a' + i)), Pass: p})
		}
		return r
	}
	if PairAgent([]AgentRun{run("auto", true)}) != nil {
		t.Error("one run paired")
	}
	a := run("auto", true, false, false, true)
	b := run("auto+x", true, true, true, false, true) // task e: not in a
	ps := PairAgent([]AgentRun{a, b})
	if len(ps) != 1 {
		t.Fatalf("%d pairs", len(ps))
	}
	p := ps[0]
	if p.Tasks != 4 || p.Gained != 2 || p.Lost != 1 || p.Diff() != 1 || p.P != 1 {
		t.Errorf("paired %+v", p)
	}
	var buf bytes.Buffer
	if err := WritePaired(&buf, ps); err != nil {
		t.Fatal(err)
	}
	if want := "m auto+x grammar on results compact: +1 (2 gained, 1 lost of 4 tasks), p = 1.000"; !strings.Contains(buf.String(), want) {
		t.Errorf("printed %q, want %q in it", buf.String(), want)
	}
}

func TestRepeats(t *testing.T) {
	if RepeatSeed(1, "a", 0) != RepeatSeed(1, "a", 0) {
		t.Error("RepeatSeed is not deterministic")
	}
	seen := map[uint32]bool{}
	for _, id := range []string{"a", "b"} {
		for r := range 3 {
			for _, base := range []uint32{1, 2} {
				seen[RepeatSeed(base, id, r)] = true
			}
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d distinct seeds of 12", len(seen))
	}
	run := AgentRun{Model: "m", Mode: "auto", Grammar: "on", Results: "compact", Repeats: 3}
	for _, o := range []struct {
		id   string
		r    int
		pass bool
	}{{"a", 0, true}, {"a", 1, true}, {"a", 2, true}, {"b", 0, true}, {"b", 1, false}, {"b", 2, false}} {
		run.Tasks = append(run.Tasks, TaskResult{ID: o.id, Repeat: o.r, Pass: o.pass})
	}
	var sb strings.Builder
	writeRepeats(&sb, []AgentRun{run})
	for _, want := range []string{"Each task ran 3 times", "Passed per repeat: 2/2, 1/2, 1/2; mean 66.7%, standard deviation 28.9 points.", "passed in some repeats only: b 1/3."} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("repeats section lacks %q:\n%s", want, sb.String())
		}
	}
	// The same task in two repeats is no conflict when merging.
	other := run
	other.Tasks = nil
	if _, err := MergeAgent([]*AgentResults{{Version: ResultsVersion, Runs: []AgentRun{run}}, {Version: ResultsVersion, Runs: []AgentRun{other}}}, nil); err != nil {
		t.Error(err)
	}
}

func TestPairBFCL(t *testing.T) {
	run := func(grammar string, valid ...bool) Run {
		r := Run{Runner: "offgrid", Model: "m", Grammar: grammar}
		for i, v := range valid {
			r.Cases = append(r.Cases, CaseResult{ID: fmt.Sprintf("simple_%d", i), Verdict: checker.Result{Valid: v}})
		}
		return r
	}
	ps := PairBFCL([]Run{run("off", false, false, true), run("on", true, true, true)})
	if len(ps) != 1 || ps[0].Gained != 2 || ps[0].Lost != 0 || ps[0].Tasks != 3 {
		t.Fatalf("paired %+v", ps)
	}
	if want := "+2 (2 gained, 0 lost of 3 cases), p = 0.500"; ps[0].String() != want {
		t.Errorf("%q, want %q", ps[0].String(), want)
	}
	var sb strings.Builder
	pairedMarkdown(&sb, ps)
	if !strings.Contains(sb.String(), "| offgrid grammar on m | 3 | +2 | 2 | 0 | 0.500 |") {
		t.Errorf("markdown:\n%s", sb.String())
	}
}
