package bench

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestBuiltinSuite(t *testing.T) {
	s, err := BuiltinSuite()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) < 40 {
		t.Fatalf("%d tasks, want at least 40", len(s.Tasks))
	}
	cats := map[string]int{}
	for _, task := range s.Tasks {
		cats[task.Category]++
	}
	for _, c := range []string{"listing", "reading", "counting", "searching", "writing", "replacing", "inserting", "tasks", "time", "cwd", "multi-step", "no-tool", "denied"} {
		if cats[c] == 0 {
			t.Errorf("no task of category %s", c)
		}
	}
	// Every task fails when the agent does nothing: no check is vacuous.
	notVacuous(t, s)
}

// TestMCPSuite: the MCP suite parses, its checks are not vacuous, and a
// task's server starts over the task's directory with its tools before
// the built-in ones.
func TestMCPSuite(t *testing.T) {
	s, err := LoadSuite("mcp")
	if err != nil {
		t.Fatal(err)
	}
	notVacuous(t, s)
	// --mcp's servers join every task (of another copy of the suite: this
	// one's first task is started below).
	extra, err := LoadSuite("mcp")
	if err != nil {
		t.Fatal(err)
	}
	extra.AddMCP("git", MCPServer{Command: "git-server"})
	for _, task := range extra.Tasks {
		if strings.Join(task.MCP, ",") != "fs,git" {
			t.Errorf("%s: servers %v after AddMCP", task.ID, task.MCP)
		}
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed (install Node.js to run the reference MCP filesystem server)")
	}
	dir := t.TempDir()
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.MCPConnectTimeout = 3 * time.Minute // npx fetches the server on its first run
	servers, err := s.startMCP(t.Context(), s.Tasks[0], dir, reg)
	if err != nil {
		testenv.Missing(t, "the filesystem server did not start (npx needs the npm registry once): %v", err)
		return
	}
	defer servers.Close()
	list := reg.Tools()
	if list[0].Name != "fs_read_file" || list[len(list)-1].Name != "bash" {
		t.Errorf("tools from %s to %s; want the server's first", list[0].Name, list[len(list)-1].Name)
	}
	if res := reg.Execute(t.Context(), "fs_list_allowed_directories", nil); !strings.Contains(res.Text(), dir) {
		t.Errorf("the server's directory is not the task's: %s", res)
	}
}

func TestParseSuiteErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"unknown field", `{"name":"x","tasks":[{"id":"a","prompt":"p","checks":{"answr":["x"]}}]}`, "unknown field"},
		{"no id", `{"name":"x","tasks":[{"prompt":"p","checks":{"answer":["x"]}}]}`, "no id"},
		{"duplicate", `{"name":"x","tasks":[{"id":"a","prompt":"p","checks":{"answer":["x"]}},{"id":"a","prompt":"p","checks":{"answer":["x"]}}]}`, "twice"},
		{"no checks", `{"name":"x","tasks":[{"id":"a","prompt":"p","checks":{}}]}`, "checks nothing"},
		{"no fixture", `{"name":"x","tasks":[{"id":"a","fixture":"f","prompt":"p","checks":{"answer":["x"]}}]}`, "no fixture"},
		{"escape", `{"name":"x","tasks":[{"id":"a","files":{"../x":"y"},"prompt":"p","checks":{"answer":["x"]}}]}`, "outside"},
		{"bad line", `{"name":"x","tasks":[{"id":"a","prompt":"p","checks":{"lines":{"f":{"x":"y"}}}}]}`, "line number"},
		{"not json", `{`, "invalid task suite"},
		{"unknown MCP server", `{"name":"x","mcp_servers":{"fs":{"command":"npx"}},"tasks":[{"id":"a","mcp":["git"],"prompt":"p","checks":{"answer":["x"]}}]}`, `no MCP server "git"`},
	} {
		_, err := ParseSuite([]byte(tc.json))
		if !errors.Is(err, ErrSuite) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSetUpTimes: a task's files and folders are modified at the same
// time in every run, so that a listing reads the same.
func TestSetUpTimes(t *testing.T) {
	s := &Suite{Fixtures: map[string]map[string]string{"f": {"a.txt": "one\n", "data/b.csv": "x\n"}}}
	dir := t.TempDir()
	if err := s.setUp(Task{ID: "t", Fixture: "f"}, dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".", "a.txt", "data", "data/b.csv"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(fixtureTime()) {
			t.Errorf("%s modified at %v, want %v", name, fi.ModTime(), fixtureTime())
		}
	}
}

// TestCheck runs each kind of check against a directory the test changes
// as an agent would.
func TestCheck(t *testing.T) {
	s := &Suite{Fixtures: map[string]map[string]string{"f": {"a.txt": "one\ntwo\nthree\n", "b.txt": "keep\n"}}}
	task := Task{ID: "t", Fixture: "f", Checks: Checks{
		Called:     []CallCheck{{Tool: "read_file", Args: []string{"a.txt"}}},
		NotCalled:  []string{"bash"},
		Contains:   map[string][]string{"a.txt": {"TWO"}},
		Absent:     map[string][]string{"a.txt": {"two"}},
		Lines:      map[string]map[string]string{"a.txt": {"1": "one", "-1": "three"}},
		Missing:    []string{"c.txt"},
		Unchanged:  []string{"*"},
		Answer:     []string{"{root}", "{year}"},
		AnswerAny:  []string{"yes", "sure"},
		AnswerNone: []string{"b.txt"},
	}}
	dir := t.TempDir()
	if err := s.setUp(task, dir); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC)
	good := func() outcome {
		return outcome{dir: dir, finished: true, now: now, answer: "Sure: " + dir + " in 2031",
			calls: []CallRecord{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nTWO\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := s.check(task, good()); len(why) != 0 {
		t.Fatalf("a good outcome fails: %q", why)
	}
	for _, tc := range []struct {
		name   string
		change func(o *outcome)
		want   string
	}{
		{"unfinished", func(o *outcome) { o.finished = false }, "did not end"},
		{"no call", func(o *outcome) { o.calls = nil }, "no call read_file"},
		{"wrong args", func(o *outcome) { o.calls[0].Arguments = json.RawMessage(`{"path":"b.txt"}`) }, "no call read_file"},
		{"forbidden call", func(o *outcome) { o.calls = append(o.calls, CallRecord{Name: "bash"}) }, "called bash"},
		{"answer", func(o *outcome) { o.answer = "sure, 2031" }, "does not contain all"},
		{"answer any", func(o *outcome) { o.answer = dir + " 2031" }, "none of"},
		{"answer none", func(o *outcome) { o.answer += ", and B.TXT" }, `the answer contains "b.txt"`},
		{"b changed", func(o *outcome) { os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x"), 0o644) }, "b.txt changed"},
		{"c created", func(o *outcome) { os.WriteFile(filepath.Join(dir, "c.txt"), []byte("x"), 0o644) }, "c.txt exists"},
		{"line", func(o *outcome) { os.WriteFile(filepath.Join(dir, "a.txt"), []byte("zero\nTWO\nthree\n"), 0o644) }, "line 1"},
	} {
		o := good()
		tc.change(&o)
		why := strings.Join(s.check(task, o), "; ")
		if !strings.Contains(why, tc.want) {
			t.Errorf("%s: reasons %q, want %q", tc.name, why, tc.want)
		}
		// Restore the files.
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nTWO\nthree\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "b.txt"), []byte("keep\n"), 0o644)
		os.Remove(filepath.Join(dir, "c.txt"))
	}
}

func TestAgentReports(t *testing.T) {
	res := &AgentResults{Version: ResultsVersion, Suite: "builtin", Runs: []AgentRun{{Model: "m", Mode: "auto", Grammar: "on", Results: "compact", Tasks: []TaskResult{
		{ID: "a", Category: "reading", Pass: true, Rounds: 2, Calls: []CallRecord{{Name: "read_file"}}, PromptTokens: 100, Generated: 20, Seconds: 2},
		{ID: "b", Category: "writing", Reasons: []string{"x.txt: no such file"}, Rounds: 1, Invalid: 1, Seconds: 4, Copied: true},
	}}}}
	rows := SummarizeAgent(res.Runs)
	if r := rows[0]; r.Passed != 1 || r.PassRate != 50 || r.MeanRounds != 1.5 || r.InvalidCalls != 1 || r.Copied != 1 || r.MeanTokens != 60 || r.SecondsPerTask != 3 {
		t.Fatalf("row %+v", r)
	}
	dir := t.TempDir()
	if err := WriteAgentReports(dir, res, "offgrid bench --agent -m m"); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"offgrid bench --agent -m m", "| m |  | auto | on | compact | 2 | 1 | 50.0% |", "**b**: x.txt: no such file", "| m auto grammar on results compact | 1/1 | 0/1 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "report.svg"))
	if !strings.Contains(string(svg), "tasks passed: 50.0%") || !strings.Contains(string(svg), "95% CI 9–91% (n = 2)") {
		t.Errorf("report.svg:\n%s", svg)
	}
	var back AgentResults
	if b, _ := os.ReadFile(filepath.Join(dir, "results.json")); json.Unmarshal(b, &back) != nil || len(back.Runs[0].Tasks) != 2 {
		t.Error("results.json does not round-trip")
	}
}

// notVacuous checks that every task of s fails when the agent does
// nothing.
func notVacuous(t *testing.T, s *Suite) {
	t.Helper()
	for _, task := range s.Tasks {
		dir := t.TempDir()
		if err := s.setUp(task, dir); err != nil {
			t.Fatal(err)
		}
		if why := s.check(task, outcome{dir: dir, answer: "", finished: true, now: time.Now()}); len(why) == 0 {
			t.Errorf("%s passes without the agent doing anything", task.ID)
		}
	}
}

func TestAnswerShown(t *testing.T) {
	o := outcome{dir: "/r", now: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name        string
		checks      Checks
		shown       []string
		held, asked bool
	}{
		{"no answer checked", Checks{Contains: map[string][]string{"a": {"x"}}}, []string{"x"}, false, false},
		{"all held", Checks{Answer: []string{"8042", "Port"}}, []string{"README.md:12: port 8042"}, true, true},
		{"one of all missing", Checks{Answer: []string{"8042", "5432"}}, []string{"8042"}, false, true},
		{"across results", Checks{Answer: []string{"8042", "5432"}}, []string{"8042", "db 5432"}, true, true},
		{"any held", Checks{AnswerAny: []string{"4812", "4 812"}}, []string{"18: - Electricity: 04812 kWh"}, true, true},
		{"any missing", Checks{AnswerAny: []string{"151.2", "151,2"}}, []string{"€142.60"}, false, true},
		{"all and any", Checks{Answer: []string{"Malik"}, AnswerAny: []string{"grill", "barbecue"}}, []string{"Grill: Malik"}, true, true},
		{"placeholder", Checks{Answer: []string{"{year}"}}, []string{"it is 2026"}, true, true},
		{"nothing shown", Checks{Answer: []string{"x"}}, nil, false, true},
	} {
		held, asked := answerShown(tc.checks, o, tc.shown)
		if held != tc.held || asked != tc.asked {
			t.Errorf("%s: held %v asked %v, want %v %v", tc.name, held, asked, tc.held, tc.asked)
		}
	}
}

// TestAgentReportFailures: the per-language table tells failures in the
// answer from failures in finding it; each failure names the model's
// choice of what the request needed, when it made one.
func TestAgentReportFailures(t *testing.T) {
	yes, no := true, false
	res := &AgentResults{Version: ResultsVersion, Suite: "general", Runs: []AgentRun{{Model: "m", Mode: "auto", Grammar: "on", Results: "compact", Tasks: []TaskResult{
		{ID: "a", Split: "dev", Lang: "en", Pass: true, AnswerShown: &yes},
		{ID: "b", Split: "dev", Lang: "en", AnswerShown: &yes, Need: "list", Reasons: []string{"answer lacks x"}},
		{ID: "c", Split: "dev", Lang: "fr", AnswerShown: &yes},
		{ID: "d", Split: "dev", Lang: "fr", AnswerShown: &no},
		{ID: "e", Split: "dev", Lang: "fr"},
	}}}}
	dir := t.TempDir()
	if err := WriteAgentReports(dir, res, "offgrid bench agent -m m"); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"| failed in the answer | failed in finding |", "| dev | all | 1/5 | 20.0% | 4–62% | 0 | 0 | 2 | 1 |", "| dev | fr | 0/3 | 0.0% | 0–56% | 0 | 0 | 1 | 1 |",
		"- **b**: answer lacks x (need: list; calls: )", "- **c**:  (calls: )"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// TestCheckWeekday: {weekday} is today's weekday in English or in the
// task's language, and no other day in either.
func TestCheckWeekday(t *testing.T) {
	s := &Suite{Fixtures: map[string]map[string]string{"f": {"a.txt": "x\n"}}}
	saturday := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		lang, answer string
		pass         bool
	}{
		{"", "Today is Saturday.", true},
		{"", "Today is Friday.", false},
		{"de", "Heute ist Samstag.", true},
		{"de", "Today is Saturday.", true},
		{"de", "Heute ist Montag.", false},
		{"zh", "今天是星期六。", true},
		{"zh", "今天是星期五。", false},
		{"ja", "今日は土曜日です。", true},
		{"es", "Hoy es sábado.", true},
		{"es", "Hoy es Samstag.", false}, // another language's name
		{"fr", "Nous sommes SAMEDI.", true},
	} {
		task := Task{ID: "t", Fixture: "f", Lang: tc.lang, Checks: Checks{Answer: []string{"{weekday}"}, Absent: map[string][]string{"a.txt": {"{weekday}"}}}}
		dir := t.TempDir()
		if err := s.setUp(task, dir); err != nil {
			t.Fatal(err)
		}
		why := s.check(task, outcome{dir: dir, finished: true, now: saturday, lang: tc.lang, answer: tc.answer})
		if pass := len(why) == 0; pass != tc.pass {
			t.Errorf("%s %q: pass %v, want %v (%q)", tc.lang, tc.answer, pass, tc.pass, why)
		}
	}
}
