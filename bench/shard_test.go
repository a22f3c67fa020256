package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"": {0, 1}, "0/1": {0, 1}, "3/4": {3, 4}} {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"4/4", "-1/4", "1/0", "1", "a/b", "1/2/3"} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q): no error", in)
		}
	}
}

// TestShards: the shards of a suite hold each of its tasks once, and
// each shard holds some of a suite of 200.
func TestShards(t *testing.T) {
	s, err := GeneralSuite()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i := range 4 {
		part := s.Shard(Shard{i, 4})
		if len(part.Tasks) < len(s.Tasks)/8 {
			t.Errorf("shard %d/4 has %d of %d tasks", i, len(part.Tasks), len(s.Tasks))
		}
		for _, task := range part.Tasks {
			seen[task.ID]++
		}
	}
	for _, task := range s.Tasks {
		if seen[task.ID] != 1 {
			t.Errorf("task %s is in %d shards", task.ID, seen[task.ID])
		}
	}
}

func TestMergeAgent(t *testing.T) {
	suite := &Suite{Name: "s"}
	for i := range 6 {
		suite.Tasks = append(suite.Tasks, Task{ID: fmt.Sprintf("t%d", i)})
	}
	run := func(ids ...int) AgentRun {
		r := AgentRun{Model: "m", Mode: "auto", Grammar: "on", Results: "compact", Seconds: 1}
		for _, i := range ids {
			r.Tasks = append(r.Tasks, TaskResult{ID: fmt.Sprintf("t%d", i), Pass: i%2 == 0})
		}
		return r
	}
	parts := []*AgentResults{
		{Version: ResultsVersion, Suite: "s", Runs: []AgentRun{run(4, 1)}},
		{Version: ResultsVersion, Suite: "s", Runs: []AgentRun{run(5, 0, 2)}},
		{Version: ResultsVersion, Suite: "s", Runs: []AgentRun{run(3)}},
	}
	got, err := MergeAgent(parts, suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 1 {
		t.Fatalf("%d runs", len(got.Runs))
	}
	var ids []string
	for _, task := range got.Runs[0].Tasks {
		ids = append(ids, task.ID)
	}
	if want := []string{"t0", "t1", "t2", "t3", "t4", "t5"}; !slices.Equal(ids, want) || got.Runs[0].Seconds != 3 {
		t.Errorf("merged %v in %v s", ids, got.Runs[0].Seconds)
	}
	if _, err := MergeAgent(append(parts, parts[2]), suite); err == nil || !strings.Contains(err.Error(), "t3") {
		t.Errorf("a task in two shards: %v", err)
	}
	other := &AgentResults{Version: ResultsVersion, Suite: "s", Runs: []AgentRun{run(0)}}
	other.Runs[0].Seed = 7 // another run: kept apart
	if got, err := MergeAgent([]*AgentResults{parts[0], other}, suite); err != nil || len(got.Runs) != 2 {
		t.Errorf("two runs merged into %v (%v)", got, err)
	}
	if got := Resume(parts[1], run()); len(got) != 3 {
		t.Errorf("Resume: %d tasks", len(got))
	}
}

func TestMergeResults(t *testing.T) {
	run := func(ids ...string) Run {
		r := Run{Runner: "offgrid", Model: "m", Grammar: "on"}
		for _, id := range ids {
			cat := "simple"
			if strings.HasPrefix(id, "multiple") {
				cat = "multiple"
			}
			r.Cases = append(r.Cases, CaseResult{ID: id, Category: cat})
		}
		return r
	}
	parts := []*Results{
		{Version: ResultsVersion, Runs: []Run{run("simple_10", "multiple_2")}},
		{Version: ResultsVersion, Runs: []Run{run("simple_9", "multiple_1", "simple_0")}},
	}
	got, err := MergeResults(parts)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range got.Runs[0].Cases {
		ids = append(ids, c.ID)
	}
	if want := []string{"simple_0", "simple_9", "simple_10", "multiple_1", "multiple_2"}; !slices.Equal(ids, want) {
		t.Errorf("merged %v, want %v", ids, want)
	}
	if _, err := MergeResults(append(parts, parts[0])); err == nil || !strings.Contains(err.Error(), "simple_10") {
		t.Errorf("a case in two shards: %v", err)
	}
}
