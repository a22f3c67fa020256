package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/bench/checker"
	"github.com/offgrid-ai/offgrid/grammar"
)

func sampleResults() *Results {
	return &Results{Version: ResultsVersion, Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Runs: []Run{{
		Runner: "offgrid", Model: "m", Grammar: "on", ToolFormat: "auto", Seed: 7, Temp: 0.5, Seconds: 3,
		Cases: []CaseResult{
			{ID: "simple_python_0", Category: "simple", Raw: "[f(a=1.0)]\n\"quoted\" ü",
				Calls:      []Call{{Name: "f", Arguments: json.RawMessage(`{"a":1.0}`)}},
				ParseValid: true, SchemaValid: true, CorrectFunction: true, Verdict: checker.Result{Valid: true},
				LatencySeconds: 1, PromptTokens: 100, PromptSeconds: 0.5, GeneratedTokens: 10, GenerateSeconds: 0.5},
			{ID: "simple_python_1", Category: "simple", Raw: "no", ParseError: "malformed", Calls: []Call{},
				Verdict:        checker.Result{ErrorType: "ast_decoder:decoder_failed", Errors: []string{"x"}},
				LatencySeconds: 3, PromptTokens: 100, PromptSeconds: 0.5, GeneratedTokens: 30, GenerateSeconds: 1.5},
			{ID: "irrelevance_0", Category: "irrelevance", Raw: "no tool", Calls: []Call{}, ParseValid: true, SchemaValid: true, CorrectFunction: true,
				Verdict: checker.Result{Valid: true}, LatencySeconds: 2},
		},
	}}}
}

func TestResultsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	want := sampleResults()
	if err := WriteResults(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if string(got.Runs[0].Cases[0].Calls[0].Arguments) != `{"a":1.0}` {
		t.Errorf("arguments text changed: %s", got.Runs[0].Cases[0].Calls[0].Arguments)
	}

	os.WriteFile(path, []byte(`{"version": 99, "runs": []}`), 0o644)
	if _, err := ReadResults(path); !errors.Is(err, ErrResults) {
		t.Errorf("wrong version: %v", err)
	}
	os.WriteFile(path, []byte(`{"version": 1, "runs": [`), 0o644)
	if _, err := ReadResults(path); !errors.Is(err, ErrResults) {
		t.Errorf("truncated: %v", err)
	}
}

func TestSummarize(t *testing.T) {
	rows := Summarize(sampleResults().Runs)
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want simple, irrelevance, all", len(rows))
	}
	s, irr, all := rows[0], rows[1], rows[2]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s.Category != "simple" || s.Cases != 2 || s.ParseValid != 50 || s.AST != 50 || s.Irrelevance != -1 ||
		!near(s.MeanLatency, 2) || !near(s.MedianLatency, 2) || !near(s.PromptTPS, 200) || !near(s.GenerateTPS, 20) || !near(s.CasesPerMinute, 30) {
		t.Errorf("simple row %+v", s)
	}
	if irr.Category != "irrelevance" || irr.Irrelevance != 100 || irr.AST != -1 {
		t.Errorf("irrelevance row %+v", irr)
	}
	if all.Category != "all" || all.Cases != 3 || !near(all.Accuracy, 200.0/3) || !near(all.MedianLatency, 2) {
		t.Errorf("all row %+v", all)
	}

	var table, md, svg bytes.Buffer
	WriteTable(&table, rows)
	WriteMarkdown(&md, rows, "offgrid bench -m m")
	WriteSVG(&svg, rows)
	if !strings.Contains(table.String(), "50.0%") || !strings.Contains(table.String(), "9–91%") || strings.Count(table.String(), "\n") != 4 {
		t.Errorf("table:\n%s", table.String())
	}
	if !strings.Contains(md.String(), "| offgrid | m | on | simple | 2 | 50.0%") || !strings.Contains(md.String(), "offgrid bench -m m") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<rect x=") != 4+4 {
		t.Errorf("svg: %d bars\n%s", strings.Count(svg.String(), "<rect x="), svg.String())
	}
}

func TestWriteReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteReports(dir, sampleResults(), "cmd"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "report.md report.svg results.json" {
		t.Errorf("files: %v (no temporaries may remain)", names)
	}
}

func TestRunCases(t *testing.T) {
	dir := writeData(t, oneQuestion, `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10], "height": [5.0]}}]}`)
	cases, _, err := Load([]string{dir}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, cases[0], cases[0])
	n := 0
	complete := func(ctx context.Context, c *Case) (Output, error) {
		n++
		switch n {
		case 1:
			return Output{Raw: "[area(base=10, height=5.0)]", Calls: []grammar.Call{{Name: "area", Arguments: json.RawMessage(`{"base":10,"height":5.0}`)}},
				Stats: Stats{PromptTokens: 50, PromptDuration: time.Second, Generated: 12, GenerateDuration: 2 * time.Second}}, nil
		case 2:
			return Output{Raw: "[area(base=", ParseErr: grammar.ErrMalformed}, nil
		}
		return Output{}, errors.New("engine broke")
	}
	var progress []int
	run, err := RunCases(context.Background(), Run{Runner: "offgrid", Grammar: "on"}, cases, complete, func(r Run, total int) { progress = append(progress, len(r.Cases), total) })
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 3 || run.Runner != "offgrid" || !reflect.DeepEqual(progress, []int{1, 3, 2, 3, 3, 3}) {
		t.Fatalf("run %+v, progress %v", run, progress)
	}
	c0, c1, c2 := run.Cases[0], run.Cases[1], run.Cases[2]
	if !c0.Verdict.Valid || !c0.SchemaValid || c0.PromptTokens != 50 || c0.GenerateSeconds != 2 {
		t.Errorf("case 0 %+v", c0)
	}
	if c1.ParseValid || c1.ParseError == "" || c1.Verdict.Valid {
		t.Errorf("case 1 %+v", c1)
	}
	if c2.Error != "engine broke" || c2.ParseValid {
		t.Errorf("case 2 %+v", c2)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err = RunCases(ctx, Run{}, cases, complete, nil)
	if !errors.Is(err, context.Canceled) || len(run.Cases) != 0 {
		t.Errorf("cancelled: %d cases, %v", len(run.Cases), err)
	}
}

func TestRescore(t *testing.T) {
	dir := writeData(t, oneQuestion, `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10], "height": [5.0]}}]}`)
	cases, _, _ := Load([]string{dir}, LoadOptions{})
	peer := []Run{{Runner: "node-llama-cpp", Cases: []CaseResult{
		{ID: "simple_python_0", Calls: []Call{{Name: "area", Arguments: json.RawMessage(`{"base":10,"height":5}`)}}, ParseValid: false},
		{ID: "simple_python_99"},
	}}}
	runs, missing, err := Rescore(peer, cases)
	if err != nil {
		t.Fatal(err)
	}
	if missing != 1 || len(runs) != 1 || len(runs[0].Cases) != 1 || !runs[0].Cases[0].Verdict.Valid || !runs[0].Cases[0].ParseValid || runs[0].Cases[0].Category != "simple" {
		t.Errorf("rescored %+v, missing %d", runs, missing)
	}
}

// TestRunCasesRepeats: with Repeats, each case runs that many times, in
// turn, each with the seed RepeatSeed gives it.
func TestRunCasesRepeats(t *testing.T) {
	dir := writeData(t, oneQuestion, `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10], "height": [5.0]}}]}`)
	cases, _, err := Load([]string{dir}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var seeds []uint32
	complete := func(ctx context.Context, c *Case) (Output, error) {
		seeds = append(seeds, c.Seed)
		return Output{Raw: "x"}, nil
	}
	run, err := RunCases(context.Background(), Run{Runner: "offgrid", Grammar: "on", Seed: 5, Repeats: 3}, cases, complete, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{RepeatSeed(5, cases[0].ID, 0), RepeatSeed(5, cases[0].ID, 1), RepeatSeed(5, cases[0].ID, 2)}
	if !reflect.DeepEqual(seeds, want) || len(run.Cases) != 3 || run.Cases[2].Repeat != 2 || run.Cases[2].ID != cases[0].ID {
		t.Errorf("seeds %v (want %v), cases %+v", seeds, want, run.Cases)
	}
}
