package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/models/synth"
)

func runBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	store := t.TempDir()
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "OFFGRID_MODELS" {
			return store
		}
		return ""
	}}
	code = runMain(context.Background(), env, append([]string{"bench"}, args...))
	return code, out.String(), errb.String()
}

func TestBenchUsage(t *testing.T) {
	data := t.TempDir() // usage errors come before the data is read
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "x"}, "want --data"},
		{[]string{"--data", data}, "want -m MODEL or --compare"},
		{[]string{"-m", "x", "--data", data, "--grammar", "maybe"}, "--grammar"},
		{[]string{"-m", "x", "--data", data, "--tool-format", "xml"}, "--tool-format"},
		{[]string{"-m", "x", "--data", data, "extra"}, "unexpected arguments"},
		{[]string{"-m", "x", "--limit", "z"}, "invalid argument"},
		{[]string{"bfcl", "-m", "x"}, "want --data"},
		{[]string{"speed", "-m", "x", "--data", data}, "--data is not a flag of bench speed"},
		{[]string{"agent", "-m", "x", "--picks", "2"}, "--picks is not a flag of bench agent"},
		{[]string{"--curator", "-m", "x", "--suite", "general"}, "--suite is not a flag of bench curator"},
		{[]string{"-m", "x", "--data", data, "--read-first"}, "--read-first is not a flag of bench bfcl"},
		{[]string{"speed", "-m", "x", "-ngl", "z"}, "--gpu-layers"},
	} {
		code, _, stderr := runBench(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if code, _, stderr := runBench(t, "-m", "x", "--data", testenv.BFCLDir(t), "--category", "simpel"); code != 1 || !strings.Contains(stderr, "unknown category") {
		t.Errorf("unknown category: exit %d, %s", code, stderr)
	}
}

// TestBenchCompareOnly scores a peer's results.json with no model of our
// own and writes the three report files.
func TestBenchCompareOnly(t *testing.T) {
	simple := filepath.Join(testenv.BFCLDir(t), testenv.BFCLSimple)
	dir := t.TempDir()
	peer := filepath.Join(dir, "peer.json")
	res := &bench.Results{Version: bench.ResultsVersion, Runs: []bench.Run{{Runner: "node-llama-cpp", Model: "m", Grammar: "on",
		Cases: []bench.CaseResult{
			{ID: "simple_python_1", Calls: []bench.Call{{Name: "math.factorial", Arguments: json.RawMessage(`{"number":5}`)}}, LatencySeconds: 1},
			{ID: "simple_python_2", Raw: "I don't know", LatencySeconds: 1},
		}}}}
	if err := bench.WriteResults(peer, res); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBench(t, "--data", simple, "--category", "simple", "--limit", "5", "--compare", peer, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "node-llama-cpp") || !strings.Contains(stdout, "50.0%") {
		t.Errorf("table:\n%s", stdout)
	}
	back, err := bench.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Runs[0].Cases; len(c) != 2 || !c[0].Verdict.Valid || c[1].ParseValid {
		t.Errorf("rescored cases %+v", c)
	}
	for _, f := range []string{"report.md", "report.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	code, stdout, _ = runBench(t, "--data", simple, "--category", "simple", "--limit", "5", "--compare", peer, "--json")
	var rows []bench.Row
	if code != 0 || json.Unmarshal([]byte(stdout), &rows) != nil || len(rows) != 1 || rows[0].Cases != 2 {
		t.Errorf("--json: exit %d, %s", code, stdout)
	}
}

// TestBenchTinyModel runs two cases per grammar mode on the tiny model.
func TestBenchTinyModel(t *testing.T) {
	multiple := filepath.Join(testenv.BFCLDir(t), testenv.BFCLMultiple)
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runBench(t, "-m", model, "--data", multiple, "--category", "multiple", "--limit", "2",
		"--grammar", "on,off", "--max-tokens", "48", "--tool-format", "bfcl-prompt",
		"--temperature", "0.5", "--seed", "7", "--out", out) // --temperature: the old spelling of --temp
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res, err := bench.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Seed != 7 || r.Temp != 0.5 {
			t.Errorf("run %s: seed %d temp %v, want 7 and 0.5", r.Grammar, r.Seed, r.Temp)
		}
	}
	if !strings.Contains(stderr, "use --temp") {
		t.Errorf("no deprecation note for --temperature: %q", stderr)
	}
	table, paired, _ := strings.Cut(stdout, "\n\npaired with ")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "tiny") || !strings.Contains(lines[2], "off") {
		t.Errorf("table:\n%s", stdout)
	}
	if !strings.Contains(paired, "offgrid grammar off tiny: ") || !strings.Contains(paired, "of 2 cases") {
		t.Errorf("no paired comparison:\n%s", stdout)
	}
	if !strings.Contains(stderr, "tiny grammar on [") || !strings.Contains(stderr, "2/2") {
		t.Errorf("no progress bar on stderr: %q", stderr)
	}
}

func TestBenchAgentUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--agent"}, "--agent wants -m MODEL"},
		{[]string{"--agent", "-m", "x", "--mode", "sometimes"}, "--mode: want auto, required or envelope"},
		{[]string{"--agent", "-m", "x", "--on-repeat", "loop"}, "--on-repeat"},
		{[]string{"--agent", "-m", "x", "--answer", "later"}, "--answer"},
		{[]string{"--agent", "-m", "x", "--after-change", "stop"}, "--after-change"},
		{[]string{"--agent", "-m", "x", "--examples", "some"}, "--examples: want off or on"},
		{[]string{"--agent", "-m", "x", "--parallel", "yes"}, "--parallel: want off or on"},
		{[]string{"--agent", "-m", "x", "--task", "no-such-task"}, "no task of suite builtin"},
		{[]string{"--agent", "-m", "x", "--mcp", "no-name"}, "want NAME=COMMAND"},
		{[]string{"--agent", "-m", "x", "--suite", "/nonexistent.json"}, "no such file"},
		{[]string{"--agent", "-m", "x", "--seed", "-2"}, "--seed: want -1 (random) or 0 to 4294967295"},
		{[]string{"--agent", "-m", "x", "--seed", "4294967296"}, "--seed"},
	} {
		code, _, stderr := runBench(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBenchAgentTinyModel runs two agent tasks, in two modes, on the tiny
// random-weight model: the machinery (fresh directories, checks, reports),
// not the model, is under test.
func TestBenchAgentTinyModel(t *testing.T) {
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runBench(t, "--agent", "-m", model, "--task", "ls-root,notool-math", "--mode", "auto,required",
		"--max-tokens", "48", "--threads", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	table, paired, _ := strings.Cut(stdout, "\n\npaired with ")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "auto") || !strings.Contains(lines[2], "required") || !strings.Contains(lines[1], " 2 ") {
		t.Errorf("table:\n%s", stdout)
	}
	if !strings.Contains(paired, "tiny required grammar on results compact: ") || !strings.Contains(paired, "of 2 tasks") {
		t.Errorf("no paired comparison:\n%s", stdout)
	}
	if !strings.Contains(stderr, "tiny auto grammar on compact [") || !strings.Contains(stderr, "2/2") {
		t.Errorf("no progress bar on stderr: %q", stderr)
	}
	var res bench.AgentResults
	if b, err := os.ReadFile(filepath.Join(out, "results.json")); err != nil || json.Unmarshal(b, &res) != nil || len(res.Runs) != 2 || len(res.Runs[0].Tasks) != 2 {
		t.Fatalf("results.json: %v %+v", err, res)
	}
	for _, r := range res.Runs {
		for _, task := range r.Tasks {
			if !task.Pass && len(task.Reasons) == 0 {
				t.Errorf("%s: failed without a reason", task.ID)
			}
			// Both tasks check the answer; no file holds 144.
			if task.AnswerShown == nil || task.ID == "notool-math" && *task.AnswerShown {
				t.Errorf("%s: answer_shown %v", task.ID, task.AnswerShown)
			}
		}
	}
	if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(md), "## Failures") {
		t.Errorf("report.md: %v", err)
	}
}

// TestBenchSpeed runs bench --speed on the tiny generated model: every
// measurement is there and positive, the warm prompt cache holds the
// turn's prefix, and the table has a row per test.
func TestBenchSpeed(t *testing.T) {
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBench(t, "--speed", "-m", model, "-t", "1", "-p", "64", "-n", "8", "-r", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var r bench.SpeedResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	for name, s := range map[string]bench.Spread{"prefill": r.Prefill, "decode": r.Decode, "decode grammar": r.DecodeGrammar,
		"first token cold": r.FirstToken.Cold, "first token warm": r.FirstToken.Warm} {
		if !(s.Min > 0 && s.Min <= s.Median && s.Median <= s.Max) {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if r.Model != "tiny" || r.Threads != 1 || r.Reps != 2 || r.PromptTokens != 64 || r.SystemInfo == "" ||
		r.AgentPrefix == 0 || r.AgentPrefix >= r.AgentPromptTokens || r.MemoryGBs <= 0 || r.ModelBytes == 0 || r.DecodeCeiling <= 0 {
		t.Errorf("result %+v", r)
	}
	var raw map[string]any
	json.Unmarshal([]byte(stdout), &raw)
	for _, k := range []string{"model", "threads", "prefill_tok_s", "decode_tok_s", "decode_grammar_tok_s", "first_token_s", "system_info"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in the JSON", k)
		}
	}

	code, stdout, stderr = runBench(t, "--speed", "-m", model, "-t", "1", "-p", "16", "-n", "4", "-r", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"pp16", "tg4", "tg4 grammar", "first token cold", "first token warm", "decode ceiling", "system_info:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, stderr := runBench(t, "--speed", "-m", model, "-r", "0"); code != 2 || !strings.Contains(stderr, "-r") {
		t.Errorf("-r 0: exit %d\n%s", code, stderr)
	}
}

// TestBenchSpeedCompare: --speed --compare prints saved results side by
// side with the ratios of the first one's medians to the others'.
func TestBenchSpeedCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r bench.SpeedResult) string {
		b, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	a := bench.SpeedResult{Runner: "offgrid", Model: "m", Threads: 2, PromptTokens: 512, GenTokens: 128,
		Prefill: bench.Spread{Min: 200, Median: 220, Max: 230}, Decode: bench.Spread{Min: 50, Median: 60, Max: 61}}
	a.FirstToken.Warm = bench.Spread{Min: 0.5, Median: 0.5, Max: 0.6}
	b := bench.SpeedResult{Runner: "node-llama-cpp", Model: "m", Threads: 2, PromptTokens: 512, GenTokens: 128,
		Prefill: bench.Spread{Min: 190, Median: 200, Max: 210}, Decode: bench.Spread{Min: 40, Median: 40, Max: 41}}
	code, stdout, stderr := runBench(t, "--speed", "--compare", write("a.json", a), "--compare", write("b.json", b))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"node-llama-cpp  m", "offgrid / node-llama-cpp  pp512  1.10x", "offgrid / node-llama-cpp  tg128  1.50x"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "first token warm  1") {
		t.Errorf("a ratio for a test the peer lacks:\n%s", stdout)
	}
	if code, _, stderr := runBench(t, "--speed", "--compare", write("bad.json", bench.SpeedResult{})+"x"); code != 1 {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
}

// TestBenchAgentProfile: offgrid run and bench --agent drive a model by
// its profile through one mapping (loopSettings), except where a flag
// says otherwise, and bench labels the run by the settings it used.
func TestBenchAgentProfile(t *testing.T) {
	p := agent.Profile{Name: "test", ToolChoice: grammar.Auto, Results: agent.ResultsCompact, OnRepeat: agent.RepeatAnother, Answer: agent.AnswerSeparate,
		Assists: []string{"answer-after-change", "remind", "look-first", "read-first", "unknown-as-text", "tools-by-topic", "rewrite", "locate"}}
	f := agentBenchFlags{modes: []string{"auto"}, results: []string{"full"}, roles: []string{"tool"}, toolPrompts: []string{"template"},
		onRepeat: []string{"stop"}, answers: []string{"inline"}, afterChange: []string{"continue"}, examples: []string{"off"},
		parallel: []string{"off"}, assists: []string{""}, set: map[string]bool{"on-repeat": true, "examples": true}}
	cs := f.configs([]string{"on"})
	if len(cs) != 1 {
		t.Fatalf("%d configs, want 1", len(cs))
	}
	var o agent.Options
	cs[0].apply(&o)
	if mode, results := cs[0].labels(o); mode != "auto" || results != "compact" {
		t.Errorf("flags alone: labels %q %q", mode, results)
	}
	o, err := applyLoop(f.loop(cs[0]), o, p)
	if err != nil {
		t.Fatal(err)
	}
	if o.OnRepeat != agent.RepeatStop {
		t.Errorf("--on-repeat given: %q, want stop", o.OnRepeat)
	}
	if o.Results != agent.ResultsCompact || o.Answer != agent.AnswerSeparate || !o.AnswerAfterChange || o.ToolExamples || !o.Remind || !o.LookFirst || !o.ReadFirst || !o.UnknownAsText || !o.ToolsByTopic || !o.Rewrite || !o.Locate {
		t.Errorf("profile settings not taken: %+v", o)
	}
	mode, results := cs[0].labels(o)
	if want := "auto+tools-by-topic+locate+read-first+look-first+rewrite+unknown-as-text+remind+answer-after-change"; mode != want || results != "compact" {
		t.Errorf("labels %q %q, want %q compact", mode, results, want)
	}
	// Given flags win over the profile: the mode, --after-change, the
	// old assist flags and --assist.
	f.set = map[string]bool{"after-change": true, "mode": true}
	f.modes = []string{"required"}
	f.assistAliases = "-look-first,-read-first"
	f.assists = []string{"-unknown-as-text,-tools-by-topic", "none"}
	cs = f.configs([]string{"on"})
	if len(cs) != 2 {
		t.Fatalf("%d configs, want 2 (one per --assist)", len(cs))
	}
	for i, want := range [][]string{{"rewrite", "locate", "remind"}, nil} {
		var q agent.Options
		cs[i].apply(&q)
		if q, err = applyLoop(f.loop(cs[i]), q, p); err != nil {
			t.Fatal(err)
		}
		if q.AnswerAfterChange || q.ToolChoice != grammar.Required || q.LookFirst || q.ReadFirst || q.UnknownAsText || q.ToolsByTopic {
			t.Errorf("config %d: given settings overridden: %+v", i, q)
		}
		if got := q.AssistNames(); !slices.Equal(got, agent.Options{Rewrite: slices.Contains(want, "rewrite"), Locate: slices.Contains(want, "locate"), Remind: slices.Contains(want, "remind")}.AssistNames()) {
			t.Errorf("config %d: assists %q, want %q", i, got, want)
		}
	}
	f.assists = []string{"+read-frist"}
	if _, err := applyLoop(f.loop(f.configs([]string{"on"})[0]), agent.Options{}, p); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "read-frist") {
		t.Errorf("an unknown assist: %v", err)
	}
}

// TestBenchAgentCompare: bench --agent --compare alone reports earlier
// runs side by side, each paired with the first over the same tasks, in
// the table and in report.md.
func TestBenchAgentCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, mode string, pass ...bool) string {
		run := bench.AgentRun{Model: "m", Profile: "plain", Mode: mode, Grammar: "on", Results: "compact"}
		for i, p := range pass {
			run.Tasks = append(run.Tasks, bench.TaskResult{ID: fmt.Sprintf("t%d", i), Category: "reading", Pass: p})
		}
		path := filepath.Join(dir, name)
		res := bench.AgentResults{Version: bench.ResultsVersion, Suite: "general", Runs: []bench.AgentRun{run}}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a.json", "auto", false, false, false, false, false, false, false, true)
	b := write("b.json", "auto+find-first", true, true, true, true, true, true, true, true)
	out := filepath.Join(dir, "out")
	csvPath := filepath.Join(dir, "tasks.csv")
	code, stdout, stderr := runBench(t, "--agent", "--compare", a, "--compare", b, "--out", out, "--csv", csvPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if b, err := os.ReadFile(csvPath); err != nil || strings.Count(string(b), "\n") != 17 || !strings.Contains(string(b), "m,plain,auto+find-first,on,compact,0,t7,reading,") {
		t.Errorf("tasks.csv (%v):\n%s", err, b)
	}
	if want := "m auto+find-first grammar on results compact: +7 (7 gained, 0 lost of 8 tasks), p = 0.016"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "| m auto+find-first grammar on results compact | 8 | +7 | 7 | 0 | 0.016 |"; !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks %q:\n%s", want, md)
	}
	if code, _, stderr := runBench(t, "--agent", "--compare", filepath.Join(dir, "none.json")); code != 1 || !strings.Contains(stderr, "none.json") {
		t.Errorf("a missing file: exit %d\n%s", code, stderr)
	}
}
