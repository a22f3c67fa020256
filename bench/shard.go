package bench

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A Shard is one of N parts of a benchmark's cases: the cases whose
// stable hash of (suite, case id) falls in it. Any machine can run any
// shard without coordination; Merge joins their results.
type Shard struct {
	Index, Count int // Index in [0, Count)
}

// ParseShard reads "I/N", I from 0 to N-1 (as a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX counts); "" is the whole (0/1).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || idx < 0 || idx >= count {
		return Shard{}, fmt.Errorf("bench: shard %q: want I/N with 0 ≤ I < N", s)
	}
	return Shard{idx, count}, nil
}

// Has reports whether the case id of suite is in the shard.
func (sh Shard) Has(suite, id string) bool {
	if sh.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(suite + "\x00" + id))
	return h.Sum64()%uint64(sh.Count) == uint64(sh.Index)
}

// Shard returns the suite with only the tasks of sh.
func (s *Suite) Shard(sh Shard) *Suite {
	c := *s
	c.Tasks = slices.DeleteFunc(slices.Clone(s.Tasks), func(t Task) bool { return !sh.Has(s.Name, t.ID) })
	return &c
}

// WriteAgentResults writes res to path atomically: a run killed while it
// writes leaves the previous file whole.
func WriteAgentResults(path string, res *AgentResults) error {
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return writeFile(path, append(js, '\n'))
}

// runKey is what makes two agent runs the same run of a benchmark, to
// resume or merge: the model, profile, settings and seed.
func runKey(r AgentRun) string {
	return strings.Join([]string{r.Model, r.Profile, r.Mode, r.Grammar, r.Results, strconv.FormatUint(uint64(r.Seed), 10), strconv.Itoa(max(r.Repeats, 1))}, "\x00")
}

// RepeatSeed is the sampling seed of repeat r of task id in a run with
// seed base: derived from the three, so that a repeat samples the same
// on any machine, in any shard and after a resume.
func RepeatSeed(base uint32, id string, r int) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", base, id, r)
	return h.Sum32()
}

// Resume returns the tasks that res, an earlier (perhaps killed) run,
// holds for the run like run, to be kept and not run again.
func Resume(res *AgentResults, run AgentRun) []TaskResult {
	if res == nil {
		return nil
	}
	for _, r := range res.Runs {
		if runKey(r) == runKey(run) {
			return slices.Clone(r.Tasks)
		}
	}
	return nil
}

// MergeAgent joins the results of shards into one: runs with the same
// model, profile, settings and seed become one run holding every task
// once, in the order of suite's tasks (tasks suite lacks, or all of them
// when suite is nil, by id). A task two shards both ran is an error.
func MergeAgent(parts []*AgentResults, suite *Suite) (*AgentResults, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("bench: nothing to merge")
	}
	out := &AgentResults{Version: ResultsVersion, Created: parts[0].Created, Suite: parts[0].Suite}
	index := map[string]int{} // run key → index in out.Runs
	for _, p := range parts {
		if p.Suite != out.Suite {
			return nil, fmt.Errorf("bench: merge: suites %q and %q", out.Suite, p.Suite)
		}
		if p.Created.Before(out.Created) {
			out.Created = p.Created
		}
		for _, r := range p.Runs {
			i, ok := index[runKey(r)]
			if !ok {
				i = len(out.Runs)
				index[runKey(r)] = i
				c := r
				c.Tasks, c.Seconds = nil, 0
				out.Runs = append(out.Runs, c)
			}
			m := &out.Runs[i]
			for _, t := range r.Tasks {
				if slices.ContainsFunc(m.Tasks, func(o TaskResult) bool { return o.ID == t.ID && o.Repeat == t.Repeat }) {
					return nil, fmt.Errorf("bench: merge: task %s (repeat %d) of %s is in two shards", t.ID, t.Repeat, r.Label())
				}
				m.Tasks = append(m.Tasks, t)
			}
			m.Seconds += r.Seconds
		}
	}
	order := map[string]int{}
	if suite != nil {
		for i, t := range suite.Tasks {
			order[t.ID] = i
		}
	}
	for i := range out.Runs {
		slices.SortStableFunc(out.Runs[i].Tasks, func(a, b TaskResult) int {
			ia, oka := order[a.ID]
			ib, okb := order[b.ID]
			switch {
			case oka && okb:
				return cmp.Or(cmp.Compare(ia, ib), cmp.Compare(a.Repeat, b.Repeat))
			case oka != okb: // the suite's tasks first
				if oka {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Repeat, b.Repeat))
		})
	}
	return out, nil
}

// ResumeFrom reads dir's results.json, the results of an earlier run to
// go on with; nil when there is none yet.
func ResumeFrom(dir string) (*AgentResults, error) {
	path := filepath.Join(dir, "results.json")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return ReadAgentResults(path)
}

// ShardCases returns the BFCL cases of sh.
func ShardCases(cases []Case, sh Shard) []Case {
	return slices.DeleteFunc(slices.Clone(cases), func(c Case) bool { return !sh.Has("bfcl", c.ID) })
}

// MergeResults joins BFCL results of shards into one: runs with the same
// runner, model, grammar, tool format, seed and temperature become one
// run holding every case once, in the order Load gives them (by category,
// then by id, its numbers compared as numbers). A case two shards both
// ran is an error.
func MergeResults(parts []*Results) (*Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("bench: nothing to merge")
	}
	out := &Results{Version: ResultsVersion, Created: parts[0].Created}
	index := map[string]int{}
	for _, p := range parts {
		if p.Created.Before(out.Created) {
			out.Created = p.Created
		}
		for _, r := range p.Runs {
			key := strings.Join([]string{r.Runner, r.Model, r.Grammar, r.ToolFormat, strconv.FormatUint(uint64(r.Seed), 10), strconv.FormatFloat(float64(r.Temp), 'g', -1, 32), strconv.Itoa(max(r.Repeats, 1))}, "\x00")
			i, ok := index[key]
			if !ok {
				i = len(out.Runs)
				index[key] = i
				c := r
				c.Cases, c.Seconds = nil, 0
				out.Runs = append(out.Runs, c)
			}
			m := &out.Runs[i]
			for _, c := range r.Cases {
				if slices.ContainsFunc(m.Cases, func(o CaseResult) bool { return o.ID == c.ID && o.Repeat == c.Repeat }) {
					return nil, fmt.Errorf("bench: merge: case %s (repeat %d) of %s is in two shards", c.ID, c.Repeat, r.Label())
				}
				m.Cases = append(m.Cases, c)
			}
			m.Seconds += r.Seconds
		}
	}
	rank := map[string]int{}
	for i, c := range categories {
		rank[c] = i
	}
	for i := range out.Runs {
		slices.SortStableFunc(out.Runs[i].Cases, func(a, b CaseResult) int {
			return cmp.Or(cmp.Compare(rank[a.Category], rank[b.Category]), naturalCompare(a.ID, b.ID), cmp.Compare(a.Repeat, b.Repeat))
		})
	}
	return out, nil
}

// naturalCompare orders strings with their runs of digits compared as
// numbers: "simple_9" before "simple_10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// ResumeCases returns the case results that prev, an earlier (perhaps
// killed) BFCL run, holds for the run like run and among cases, to be
// kept and not run again.
func ResumeCases(prev *Results, run Run, cases []Case) []CaseResult {
	if prev == nil {
		return nil
	}
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	for _, r := range prev.Runs {
		if r.Runner == run.Runner && r.Model == run.Model && r.Grammar == run.Grammar && r.ToolFormat == run.ToolFormat &&
			r.Seed == run.Seed && r.Temp == run.Temp && max(r.Repeats, 1) == max(run.Repeats, 1) {
			return slices.DeleteFunc(slices.Clone(r.Cases), func(c CaseResult) bool { return !ids[c.ID] })
		}
	}
	return nil
}
