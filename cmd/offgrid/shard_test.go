package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// shardSuite writes a suite of n short tasks for the synthetic model.
func shardSuite(t *testing.T, n int) string {
	t.Helper()
	var tasks []map[string]any
	for i := range n {
		tasks = append(tasks, map[string]any{
			"id": "t" + string(rune('a'+i)), "category": "reading", "prompt": "Say one word about the number " + string(rune('0'+i)) + ".",
			"checks": map[string]any{"not_called": []string{"bash"}},
		})
	}
	b, err := json.Marshal(map[string]any{"name": "tiny", "tasks": tasks})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readAgent(t *testing.T, dir string) *bench.AgentResults {
	t.Helper()
	res, err := bench.ReadAgentResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func taskIDs(r bench.AgentRun) []string {
	var ids []string
	for _, t := range r.Tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

// TestBenchShardsMerge: four shards of an agent run on the synthetic model,
// merged, hold each task once in the suite's order, with the same
// per-task outcome as one run of them all.
func TestBenchShardsMerge(t *testing.T) {
	suite, model := shardSuite(t, 6), tinyModel(t)
	dir := t.TempDir()
	common := []string{"--agent", "--suite", suite, "-m", model, "-t", "1", "-c", "4096", "--max-tokens", "24", "--seed", "2"}
	run := func(out string, more ...string) {
		t.Helper()
		args := append(append(slices.Clone(common), "--out", out), more...)
		if code, _, stderr := runBench(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", more, code, stderr)
		}
	}
	whole := filepath.Join(dir, "whole")
	run(whole)
	var shards []string
	total := 0
	for i := range 4 {
		out := filepath.Join(dir, fmt.Sprintf("s%d", i))
		run(out, "--shard", fmt.Sprintf("%d/4", i))
		total += len(readAgent(t, out).Runs[0].Tasks)
		shards = append(shards, out)
	}
	if total != 6 {
		t.Fatalf("the shards hold %d tasks of 6", total)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr := runBench(t, append(append([]string{"merge"}, shards[:3]...), filepath.Join(shards[3], "results.json"), "--out", merged)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "tiny") {
		t.Errorf("merge table:\n%s", stdout)
	}
	m, w := readAgent(t, merged), readAgent(t, whole)
	if got, want := taskIDs(m.Runs[0]), taskIDs(w.Runs[0]); !slices.Equal(got, want) {
		t.Errorf("merged tasks %v, the whole run's %v", got, want)
	}
	for i, task := range m.Runs[0].Tasks {
		if o := w.Runs[0].Tasks[i]; task.Pass != o.Pass || task.Answer != o.Answer || len(task.Calls) != len(o.Calls) {
			t.Errorf("task %s: merged %+v, whole %+v", task.ID, task, o)
		}
	}
	if code, _, stderr := runBench(t, "merge", filepath.Join(dir, "s0"), filepath.Join(dir, "s0")); code != 1 || !strings.Contains(stderr, "two shards") {
		t.Errorf("merging a shard twice: exit %d\n%s", code, stderr)
	}
	if code, _, _ := runBench(t, append(slices.Clone(common), "--shard", "2/2")...); code != 2 {
		t.Errorf("--shard 2/2: exit %d", code)
	}
}

// TestBenchResumeAfterKill: an agent run killed with SIGKILL keeps the
// tasks it finished in results.json; --resume runs only the others.
func TestBenchResumeAfterKill(t *testing.T) {
	suite, model := shardSuite(t, 6), tinyModel(t)
	out := t.TempDir()
	args := []string{"bench", "--agent", "--suite", suite, "-m", model, "-t", "1", "-c", "4096", "--max-tokens", "24", "--seed", "2", "--no-prompt-cache"}
	done := killAfter(t, args, out, func() int {
		if res, err := bench.ReadAgentResults(filepath.Join(out, "results.json")); err == nil {
			return len(res.Runs[0].Tasks)
		}
		return 0
	})
	before := readAgent(t, out)
	if done == 0 || len(before.Runs[0].Tasks) == 6 {
		t.Fatalf("killed after %d tasks; results.json holds %d", done, len(before.Runs[0].Tasks))
	}
	if code, _, stderr := runBench(t, append(args[1:], "--resume", out)...); code != 0 {
		t.Fatalf("--resume: exit %d\n%s", code, stderr)
	}
	after := readAgent(t, out)
	if len(after.Runs) != 1 || len(after.Runs[0].Tasks) != 6 {
		t.Fatalf("resumed: %d runs, tasks %v", len(after.Runs), taskIDs(after.Runs[0]))
	}
	for _, kept := range before.Runs[0].Tasks {
		i := slices.IndexFunc(after.Runs[0].Tasks, func(o bench.TaskResult) bool { return o.ID == kept.ID })
		if i < 0 || after.Runs[0].Tasks[i].Seconds != kept.Seconds {
			t.Errorf("task %s was run again (or lost)", kept.ID)
		}
	}
	if !slices.IsSortedFunc(taskIDs(after.Runs[0]), strings.Compare) {
		t.Errorf("tasks out of the suite's order: %v", taskIDs(after.Runs[0]))
	}
}

// TestBenchBFCLShardsMerge: four shards of a BFCL run on the synthetic
// model, merged, hold the cases of one run in its order, each with the
// same reply and verdict.
func TestBenchBFCLShardsMerge(t *testing.T) {
	multiple := filepath.Join(testenv.BFCLDir(t), testenv.BFCLMultiple)
	model := tinyModel(t)
	dir := t.TempDir()
	common := []string{"-m", model, "--data", multiple, "--category", "multiple", "--limit", "8", "--max-tokens", "32", "--seed", "3", "-t", "1"}
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runBench(t, append(slices.Clone(common), "--out", whole)...); code != 0 {
		t.Fatalf("whole: exit %d\n%s", code, stderr)
	}
	var shards []string
	for i := range 4 {
		out := filepath.Join(dir, fmt.Sprintf("s%d", i))
		if code, _, stderr := runBench(t, append(slices.Clone(common), "--shard", fmt.Sprintf("%d/4", i), "--out", out)...); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, code, stderr)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := runBench(t, append(append([]string{"merge"}, shards...), "--out", merged)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	m, err := bench.ReadResults(filepath.Join(merged, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := bench.ReadResults(filepath.Join(whole, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || len(m.Runs[0].Cases) != len(w.Runs[0].Cases) || len(w.Runs[0].Cases) != 8 {
		t.Fatalf("merged %d runs; cases %d, want %d", len(m.Runs), len(m.Runs[0].Cases), len(w.Runs[0].Cases))
	}
	for i, c := range m.Runs[0].Cases {
		o := w.Runs[0].Cases[i]
		if c.ID != o.ID || c.Raw != o.Raw || c.ParseValid != o.ParseValid || c.Verdict.Valid != o.Verdict.Valid {
			t.Errorf("case %d: merged %s %q, whole %s %q", i, c.ID, c.Raw, o.ID, o.Raw)
		}
	}
}

// TestBenchRepeat: --repeat 2 runs each task twice, each repeat with a
// seed of its own, and report.md says how the repeats went.
func TestBenchRepeat(t *testing.T) {
	suite, model := shardSuite(t, 2), tinyModel(t)
	out := t.TempDir()
	code, _, stderr := runBench(t, "agent", "--suite", suite, "-m", model, "-t", "1", "-c", "4096", "--max-tokens", "24", "--seed", "2", "--temp", "0.9", "--repeat", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res := readAgent(t, out)
	r := res.Runs[0]
	var got []string
	for _, task := range r.Tasks {
		got = append(got, fmt.Sprintf("%s/%d", task.ID, task.Repeat))
	}
	if want := []string{"ta/0", "ta/1", "tb/0", "tb/1"}; r.Repeats != 2 || !slices.Equal(got, want) {
		t.Errorf("repeats %d, tasks %v, want %v", r.Repeats, got, want)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "Each task ran 2 times") {
		t.Errorf("report.md (%v):\n%s", err, md)
	}
	if code, _, stderr := runBench(t, "agent", "--suite", suite, "-m", model, "--repeat", "0"); code != 2 || !strings.Contains(stderr, "--repeat") {
		t.Errorf("--repeat 0: exit %d\n%s", code, stderr)
	}
}

// TestBenchBFCLResumeAfterKill: a BFCL run killed with SIGKILL keeps the
// cases it finished; --resume runs only the others, and the result is
// the cases of one run, in its order.
func TestBenchBFCLResumeAfterKill(t *testing.T) {
	multiple := filepath.Join(testenv.BFCLDir(t), testenv.BFCLMultiple)
	model := tinyModel(t)
	out := t.TempDir()
	args := []string{"bench", "-m", model, "--data", multiple, "--category", "multiple", "--limit", "40", "--max-tokens", "32", "--seed", "3", "-t", "1"}
	killAfter(t, args, out, func() int {
		if res, err := bench.ReadResults(filepath.Join(out, "results.json")); err == nil {
			return len(res.Runs[0].Cases)
		}
		return 0
	})
	before, err := bench.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	kept := before.Runs[0].Cases
	if len(kept) == 40 {
		t.Fatalf("the run ended before the kill")
	}
	if code, _, stderr := runBench(t, append(args[1:], "--resume", out)...); code != 0 {
		t.Fatalf("--resume: exit %d\n%s", code, stderr)
	}
	after, err := bench.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	cs := after.Runs[0].Cases
	if len(after.Runs) != 1 || len(cs) != 40 {
		t.Fatalf("resumed: %d runs, %d cases", len(after.Runs), len(cs))
	}
	for _, k := range kept {
		i := slices.IndexFunc(cs, func(c bench.CaseResult) bool { return c.ID == k.ID })
		if i < 0 || cs[i].LatencySeconds != k.LatencySeconds {
			t.Errorf("case %s was run again (or lost)", k.ID)
		}
	}
	for i := 1; i < len(cs); i++ {
		if a, b := cs[i-1].ID, cs[i].ID; len(a) > len(b) || len(a) == len(b) && a > b {
			t.Errorf("cases out of order: %s before %s", a, b)
		}
	}
}

// killAfter runs offgrid with args and --out out as a process of its
// own, and kills it with SIGKILL once saved() (what out holds) reaches
// two; it returns that count. A run that ends first fails the test.
func killAfter(t *testing.T, args []string, out string, saved func() int) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append(slices.Clone(args), "--out", out)...)
	cmd.Env = []string{asCLI + "=1", "HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() { <-exited }()
	defer cmd.Process.Signal(syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("the run ended before it was killed: %s", stderr.String())
		default:
		}
		if n := saved(); n >= 2 {
			return n
		}
	}
	t.Fatal("nothing saved in time")
	return 0
}
