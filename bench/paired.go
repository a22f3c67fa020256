package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Paired is one run compared with another over the tasks both ran:
// which passed in one and not the other. Runs of the same tasks are
// compared task by task, as McNemar's test does, so that "+3 tasks" is
// judged against the tasks that changed, not against the pass rates.
type Paired struct {
	Base, Other string // the runs' labels
	Tasks       int    // tasks (or cases) both ran
	Unit        string // what Tasks counts: "" is tasks
	Gained      int    // passed in Other only
	Lost        int    // passed in Base only
	// P is McNemar's exact two-sided p-value: how likely a split of the
	// changed tasks at least this uneven is when neither run is better.
	P float64
}

// unit names what was compared: tasks, or cases for BFCL (unit is set).
func (p Paired) unit() string {
	if p.Unit != "" {
		return p.Unit
	}
	return "tasks"
}

// Diff is Other's passes minus Base's.
func (p Paired) Diff() int { return p.Gained - p.Lost }

// String is the comparison for people, e.g. "+5 (6 gained, 1 lost of
// 100 tasks), p = 0.125".
func (p Paired) String() string {
	pv := "p = " + pValue(p.P)
	if p.P < 0.001 {
		pv = "p < 0.001"
	}
	return fmt.Sprintf("%+d (%d gained, %d lost of %d %s), %s", p.Diff(), p.Gained, p.Lost, p.Tasks, p.unit(), pv)
}

func pValue(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// pairOutcome is one case's or task's result, for pairing: which (id and
// repeat) and whether it passed.
type pairOutcome struct {
	id     string
	repeat int
	pass   bool
}

// pair compares other with base over the outcomes both have.
func pair(baseLabel, otherLabel, unit string, base, other []pairOutcome) Paired {
	type key struct {
		id     string
		repeat int
	}
	was := map[key]bool{}
	for _, o := range base {
		was[key{o.id, o.repeat}] = o.pass
	}
	p := Paired{Base: baseLabel, Other: otherLabel, Unit: unit}
	for _, o := range other {
		before, ok := was[key{o.id, o.repeat}]
		if !ok {
			continue
		}
		p.Tasks++
		switch {
		case o.pass && !before:
			p.Gained++
		case before && !o.pass:
			p.Lost++
		}
	}
	p.P = McNemar(p.Gained, p.Lost)
	return p
}

// PairAgent compares each run after the first with the first, over the
// tasks (by id and repeat) both ran. It returns nil for fewer than two
// runs.
func PairAgent(runs []AgentRun) []Paired {
	outcomes := func(r AgentRun) []pairOutcome {
		var out []pairOutcome
		for _, t := range r.Tasks {
			out = append(out, pairOutcome{t.ID, t.Repeat, t.Pass})
		}
		return out
	}
	var out []Paired
	for i := 1; i < len(runs); i++ {
		out = append(out, pair(runs[0].Label(), runs[i].Label(), "", outcomes(runs[0]), outcomes(runs[i])))
	}
	return out
}

// PairBFCL compares each BFCL run after the first with the first, over
// the cases (by id and repeat) both ran, by the checker's verdict. It
// returns nil for fewer than two runs.
func PairBFCL(runs []Run) []Paired {
	outcomes := func(r Run) []pairOutcome {
		var out []pairOutcome
		for _, c := range r.Cases {
			out = append(out, pairOutcome{c.ID, c.Repeat, c.Verdict.Valid})
		}
		return out
	}
	label := func(r *Run) string { return r.Label() + " " + r.Model }
	var out []Paired
	for i := 1; i < len(runs); i++ {
		out = append(out, pair(label(&runs[0]), label(&runs[i]), "cases", outcomes(runs[0]), outcomes(runs[i])))
	}
	return out
}

// McNemar returns the exact two-sided p-value of McNemar's test for b
// and c discordant pairs: twice the binomial tail of min(b, c) in b + c
// fair coin tosses, at most 1.
func McNemar(b, c int) float64 {
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	// Sum C(n, i) / 2^n for i ≤ k in logs, exact enough for any n here.
	tail := 0.0
	for i := 0; i <= k; i++ {
		lg := lgammaInt(n+1) - lgammaInt(i+1) - lgammaInt(n-i+1) - float64(n)*math.Ln2
		tail += math.Exp(lg)
	}
	return min(1, 2*tail)
}

func lgammaInt(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// WritePaired prints the comparisons, one a line, after a blank line;
// nothing when there are none.
func WritePaired(w io.Writer, ps []Paired) error {
	if len(ps) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\npaired with %s:\n", ps[0].Base)
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s: %s\n", p.Other, p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadAgentResults reads the results.json of an agent run, e.g. to
// compare new runs with it.
func ReadAgentResults(path string) (*AgentResults, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var res AgentResults
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	if res.Version != ResultsVersion {
		return nil, fmt.Errorf("%w: %s: version %d, want %d", ErrResults, path, res.Version, ResultsVersion)
	}
	if err := checkSchema(agentSchema, data); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	if len(res.Runs) == 0 {
		return nil, fmt.Errorf("%w: %s: no agent runs", ErrResults, path)
	}
	return &res, nil
}

// writeRepeats adds, for each run whose tasks ran several times
// (--repeat), the pass rate of each repeat with their mean and standard
// deviation, and the tasks whose outcome changed between repeats.
func writeRepeats(sb *strings.Builder, runs []AgentRun) {
	for _, r := range runs {
		k := r.Repeats
		if k < 2 {
			continue
		}
		passed, n := make([]int, k), make([]int, k)
		perTask := map[string][2]int{} // passes, runs
		var order []string
		for _, t := range r.Tasks {
			if t.Repeat < k {
				n[t.Repeat]++
				passed[t.Repeat] += b2i(t.Pass)
			}
			c, ok := perTask[t.ID]
			if !ok {
				order = append(order, t.ID)
			}
			perTask[t.ID] = [2]int{c[0] + b2i(t.Pass), c[1] + 1}
		}
		var rates []float64
		var cells []string
		for i := range k {
			if n[i] > 0 {
				rates = append(rates, pct(passed[i], n[i]))
				cells = append(cells, fmt.Sprintf("%d/%d", passed[i], n[i]))
			}
		}
		mean, sd := meanSD(rates)
		fmt.Fprintf(sb, "\n## Repeats: %s\n\nEach task ran %d times, each with its own seed. Passed per repeat: %s; mean %.1f%%, standard deviation %.1f points.\n",
			r.Label(), k, strings.Join(cells, ", "), mean, sd)
		var unstable []string
		for _, id := range order {
			if c := perTask[id]; c[0] > 0 && c[0] < c[1] {
				unstable = append(unstable, fmt.Sprintf("%s %d/%d", id, c[0], c[1]))
			}
		}
		if len(unstable) > 0 {
			fmt.Fprintf(sb, "\nTasks that passed in some repeats only: %s.\n", strings.Join(unstable, ", "))
		}
	}
}

// meanSD returns the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// pairedMarkdown adds the comparisons to a report.md, as a table; nothing
// when there are none.
func pairedMarkdown(sb *strings.Builder, ps []Paired) {
	if len(ps) == 0 {
		return
	}
	unit := ps[0].unit()
	fmt.Fprintf(sb, "\n## Paired with %s\n\nOver the %s both runs ran; p is McNemar's exact test.\n\n", ps[0].Base, unit)
	mdTable(sb, []string{"run", unit, "difference", "gained", "lost", "p"}, 1, func(row func([]string)) {
		for _, p := range ps {
			row([]string{p.Other, fmt.Sprint(p.Tasks), fmt.Sprintf("%+d", p.Diff()), fmt.Sprint(p.Gained), fmt.Sprint(p.Lost), pValue(p.P)})
		}
	})
}
