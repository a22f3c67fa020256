package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

// AgentResults is the results.json of `offgrid bench --agent`.
type AgentResults struct {
	Version int        `json:"version"`
	Created time.Time  `json:"created"`
	Suite   string     `json:"suite"`
	Runs    []AgentRun `json:"runs"`
}

// AgentRun is one model in one mode over a suite.
type AgentRun struct {
	Model string `json:"model"`
	// Profile names the agent profile the run started from
	// (agent.Profile); Mode says what it ran with.
	Profile string `json:"profile,omitempty"`
	// Mode names how the agent was driven, e.g. "auto", "required", and
	// the assists it ran ("auto+read-first+rewrite").
	Mode    string `json:"mode"`
	Grammar string `json:"grammar"`
	Results string `json:"results"`
	Seed    uint32 `json:"seed"`
	// Repeats is how many times each task ran (--repeat); 0 or 1 is
	// once, with Seed. Repeated, a task's run r samples with a seed of
	// its own (RepeatSeed).
	Repeats int          `json:"repeats,omitempty"`
	Seconds float64      `json:"seconds"`
	Tasks   []TaskResult `json:"tasks"`
}

// Label names the run in reports.
func (r AgentRun) Label() string {
	return fmt.Sprintf("%s %s grammar %s results %s", r.Model, r.Mode, r.Grammar, r.Results)
}

// TaskResult is one task's outcome.
type TaskResult struct {
	ID string `json:"id"`
	// Repeat is which of the run's repeats of the task this is, from 0.
	Repeat   int    `json:"repeat,omitempty"`
	Category string `json:"category"`
	Split    string `json:"split,omitempty"`
	Lang     string `json:"lang,omitempty"`
	Group    string `json:"group,omitempty"`
	// Need is the model's choice of what the request needs (agent.Turn.Need):
	// what the assists and the tools offered followed.
	Need string `json:"need,omitempty"`
	Pass bool   `json:"pass"`
	// Fabricated marks an answer that holds content no tool returned
	// (Checks.Invented).
	Fabricated bool `json:"fabricated,omitempty"`
	// Copied marks an answer that is mostly lines a read returned
	// (agent.Copied), such as a file written out for a question about it.
	Copied bool `json:"copied,omitempty"`
	// AnswerShown, for a task whose checks read the answer, reports
	// whether the tool results the model was shown held what they ask
	// for: a failure with it true is one of the answer, with it false one
	// of finding. Nil when the checks read no answer.
	AnswerShown *bool `json:"answer_shown,omitempty"`
	// Reasons say why the task failed.
	Reasons []string     `json:"reasons,omitempty"`
	Answer  string       `json:"answer"`
	Calls   []CallRecord `json:"calls"`
	// Rounds counts the model's replies; Invalid the calls that named an
	// unknown tool, failed their schema, or could not be parsed.
	Rounds       int     `json:"rounds"`
	Invalid      int     `json:"invalid_calls"`
	PromptTokens int     `json:"prompt_tokens_decoded"`
	Generated    int     `json:"generated_tokens"`
	Seconds      float64 `json:"seconds"`
	// Error is set when the task could not run.
	Error string `json:"error,omitempty"`
}

// CallRecord is a call the agent made during a task.
type CallRecord struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	OK        bool            `json:"ok"`
	Result    string          `json:"result"`
	// ByAgent marks a call offgrid made for the model (read-first).
	ByAgent bool `json:"by_agent,omitempty"`
}

// RunSuite runs every task of s with the agent over cp, each in a fresh
// temporary directory with the built-in tools and every tool allowed but
// the task's denied ones, the assists looking in the task's directory
// (agent.Options.LookIn).
// run is the template of the result (model, mode names); the tasks it
// holds already (an earlier run's, see Resume) are kept and not run
// again. progress, if set, is called after each task with the run so far.
func RunSuite(ctx context.Context, cp *agent.Completer, s *Suite, opts agent.Options, run AgentRun, progress func(run AgentRun, total int)) (AgentRun, error) {
	start := time.Now()
	parent, err := os.MkdirTemp("", "offgrid-bench-")
	if err != nil {
		return run, err
	}
	defer os.RemoveAll(parent)
	type key struct {
		id     string
		repeat int
	}
	done := map[key]bool{} // tasks run already (resumed)
	for _, t := range run.Tasks {
		done[key{t.ID, t.Repeat}] = true
	}
	repeats := max(run.Repeats, 1)
	seconds := run.Seconds
	for i, t := range s.Tasks {
		for r := range repeats {
			if err := ctx.Err(); err != nil {
				return run, err
			}
			if done[key{t.ID, r}] {
				continue
			}
			dir := filepath.Join(parent, fmt.Sprintf("%03d-%d-%s", i, r, t.ID))
			o := opts
			if repeats > 1 {
				o.Sampling.Seed = RepeatSeed(run.Seed, t.ID, r)
			}
			res := runTask(ctx, cp, s, t, dir, o)
			res.Repeat = r
			run.Tasks = append(run.Tasks, res)
			run.Seconds = seconds + time.Since(start).Seconds()
			if progress != nil {
				progress(run, len(s.Tasks)*repeats)
			}
		}
	}
	// In the suite's order, resumed tasks among them.
	order := map[string]int{}
	for i, t := range s.Tasks {
		order[t.ID] = i
	}
	slices.SortStableFunc(run.Tasks, func(a, b TaskResult) int {
		return cmp.Or(cmp.Compare(order[a.ID], order[b.ID]), cmp.Compare(a.Repeat, b.Repeat))
	})
	run.Seconds = seconds + time.Since(start).Seconds()
	return run, ctx.Err()
}

// runTask runs one task in dir.
func runTask(ctx context.Context, cp *agent.Completer, s *Suite, t Task, dir string, opts agent.Options) TaskResult {
	res := TaskResult{ID: t.ID, Category: t.Category, Split: t.Split, Lang: t.Language(), Group: t.Group, Calls: []CallRecord{}}
	fail := func(err error) TaskResult {
		res.Error = err.Error()
		res.Reasons = []string{"could not run: " + err.Error()}
		return res
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	if err := s.setUp(t, dir); err != nil {
		return fail(err)
	}
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fail(err)
	}
	reg, err := tools.Builtin(dir, s.Tools...)
	if err != nil {
		return fail(err)
	}
	servers, err := s.startMCP(ctx, t, dir, reg)
	if err != nil {
		return fail(err)
	}
	defer servers.Close()
	pol, err := permission.New(permission.Config{AllowAll: true, Deny: t.Deny})
	if err != nil {
		return fail(err)
	}
	opts.LookIn(dir)
	ag, err := agent.New(cp, reg, pol, nil, opts)
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	request := strings.ReplaceAll(t.Prompt, "{root}", dir)
	turn, err := ag.Send(ctx, request, func(e agent.Event) {
		if e.Type == agent.EventError && e.Code == agent.InvalidToolSignature {
			res.Invalid++ // a reply that could not be read as a call
		}
	})
	res.Seconds = time.Since(start).Seconds()
	res.Rounds = turn.Replies
	res.PromptTokens, res.Generated = turn.Stats.PromptDecoded, turn.Stats.Generated
	res.Answer, res.Need = turn.Content, turn.Need
	for _, r := range turn.Calls {
		if r.Code == agent.ToolNotFound || r.Code == agent.InvalidToolSignature {
			res.Invalid++
		}
		res.Calls = append(res.Calls, CallRecord{Name: r.Name, Arguments: r.Arguments, OK: r.OK(), Result: shorten(resultText(r), 200), ByAgent: r.ByAgent})
	}
	results := turnResults(turn.Calls)
	if err != nil {
		res.Error = err.Error()
	}
	o := outcome{dir: dir, request: request, calls: res.Calls, answer: turn.Content, results: results, finished: err == nil && turn.Stop == nil, now: time.Now(), lang: t.Lang}
	res.Reasons = s.check(t, o)
	res.Fabricated = len(invented(t.Checks, o)) > 0
	res.Copied = agent.Copied(reg, turn.Calls, turn.Content)
	if held, asked := answerShown(t.Checks, o, shownResults(turn.Calls)); asked {
		res.AnswerShown = &held
	}
	if err != nil {
		res.Reasons = append([]string{"error: " + err.Error()}, res.Reasons...)
	}
	res.Pass = len(res.Reasons) == 0
	return res
}

// startMCP starts the MCP servers task t names, over dir, adding their
// tools to reg before the built-in ones.
func (s *Suite) startMCP(ctx context.Context, t Task, dir string, reg *tools.Registry) (*mcp.Servers, error) {
	if len(t.MCP) == 0 {
		return nil, nil
	}
	var servers []mcp.Server
	for _, name := range t.MCP {
		spec := s.MCPServers[name]
		args := make([]string, len(spec.Args))
		for i, a := range spec.Args {
			args[i] = strings.ReplaceAll(a, "{root}", dir)
		}
		servers = append(servers, mcp.Server{Name: name, Command: spec.Command, Args: args, Origin: "suite " + s.Name})
	}
	return mcp.Start(ctx, reg, servers, mcp.Options{ConnectTimeout: s.MCPConnectTimeout})
}

// AgentRow summarizes one run.
type AgentRow struct {
	Model, Profile, Mode  string
	Grammar, Results      string
	Tasks, Passed         int
	PassRate              float64 // percent
	MeanRounds, MeanCalls float64
	InvalidCalls          int
	Fabricated            int     // answers holding content no tool returned
	Copied                int     // answers that are mostly a tool result copied
	MeanTokens            float64 // prompt tokens decoded + generated, per task
	SecondsPerTask        float64
}

// SummarizeAgent returns one row per run.
func SummarizeAgent(runs []AgentRun) []AgentRow {
	var rows []AgentRow
	for _, r := range runs {
		row := AgentRow{Model: r.Model, Profile: r.Profile, Mode: r.Mode, Grammar: r.Grammar, Results: r.Results, Tasks: len(r.Tasks)}
		var rounds, calls, tokens int
		var secs float64
		for _, t := range r.Tasks {
			row.Passed += b2i(t.Pass)
			rounds += t.Rounds
			calls += len(t.Calls)
			row.InvalidCalls += t.Invalid
			row.Fabricated += b2i(t.Fabricated)
			row.Copied += b2i(t.Copied)
			tokens += t.PromptTokens + t.Generated
			secs += t.Seconds
		}
		if n := float64(row.Tasks); n > 0 {
			row.PassRate = pct(row.Passed, row.Tasks)
			row.MeanRounds, row.MeanCalls = float64(rounds)/n, float64(calls)/n
			row.MeanTokens, row.SecondsPerTask = float64(tokens)/n, secs/n
		}
		rows = append(rows, row)
	}
	return rows
}

var agentHeader = []string{"model", "profile", "mode", "grammar", "results", "tasks", "passed", "pass %", "95% CI", "rounds", "calls", "invalid calls", "fabricated", "copied", "tokens/task", "s/task"}

func (r AgentRow) cells() []string {
	return []string{r.Model, r.Profile, r.Mode, r.Grammar, r.Results, fmt.Sprint(r.Tasks), fmt.Sprint(r.Passed), fmt.Sprintf("%.1f%%", r.PassRate),
		wilsonCell(r.Passed, r.Tasks), fmt.Sprintf("%.2f", r.MeanRounds), fmt.Sprintf("%.2f", r.MeanCalls), fmt.Sprint(r.InvalidCalls), fmt.Sprint(r.Fabricated), fmt.Sprint(r.Copied),
		fmt.Sprintf("%.0f", r.MeanTokens), fmt.Sprintf("%.1f", r.SecondsPerTask)}
}

// WriteAgentTable prints the rows as an aligned table.
func WriteAgentTable(w io.Writer, rows []AgentRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(agentHeader, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	return tw.Flush()
}

// WriteAgentMarkdown writes the summary table, the pass rate per category
// and every failure with its reasons.
func WriteAgentMarkdown(w io.Writer, res *AgentResults, command string) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# offgrid bench --agent (suite %s)\n\n", res.Suite)
	if command != "" {
		fmt.Fprintf(&sb, "```\n%s\n```\n\n", command)
	}
	mdTable(&sb, agentHeader, 5, func(row func([]string)) {
		for _, r := range SummarizeAgent(res.Runs) {
			row(r.cells())
		}
	})
	sb.WriteString("\ntokens/task: prompt tokens decoded plus tokens generated; a task passes when every check holds and the turn ends with an answer.\n")
	pairedMarkdown(&sb, PairAgent(res.Runs))
	// Pass rate per category.
	var cats []string
	for _, r := range res.Runs {
		for _, t := range r.Tasks {
			if !slices.Contains(cats, t.Category) {
				cats = append(cats, t.Category)
			}
		}
	}
	sb.WriteString("\n## By category\n\n")
	mdTable(&sb, append([]string{"run"}, cats...), 1, func(row func([]string)) {
		for _, r := range res.Runs {
			cells := []string{r.Label()}
			for _, c := range cats {
				n, p := 0, 0
				for _, t := range r.Tasks {
					if t.Category == c {
						n++
						p += b2i(t.Pass)
					}
				}
				cells = append(cells, fmt.Sprintf("%d/%d", p, n))
			}
			row(cells)
		}
	})
	writeSplitLanguages(&sb, res.Runs)
	writeRepeats(&sb, res.Runs)
	writeGroups(&sb, res.Runs)
	sb.WriteString("\n## Failures\n")
	for _, r := range res.Runs {
		fmt.Fprintf(&sb, "\n### %s\n\n", r.Label())
		for _, t := range r.Tasks {
			if t.Pass {
				continue
			}
			var calls []string
			for _, c := range t.Calls {
				calls = append(calls, fmt.Sprintf("%s %s", c.Name, c.Arguments))
			}
			need := ""
			if t.Need != "" {
				need = "need: " + t.Need + "; "
			}
			fmt.Fprintf(&sb, "- **%s**: %s (%scalls: %s)\n", t.ID, strings.Join(t.Reasons, "; "), need, strings.Join(calls, ", "))
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeSplitLanguages writes each run's pass rate per split and language,
// with its 95 % Wilson interval, when the suite has splits or languages
// other than English.
func writeSplitLanguages(sb *strings.Builder, runs []AgentRun) {
	type key struct{ split, lang string }
	var keys []key
	for _, r := range runs {
		for _, t := range r.Tasks {
			for _, k := range []key{{t.Split, "all"}, {t.Split, t.Lang}} {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	if len(keys) == 0 || len(keys) <= 2 && keys[0].split == "" {
		return
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.split, b.split); c != 0 {
			return c
		}
		if (a.lang == "all") != (b.lang == "all") {
			return b2i(a.lang != "all") - b2i(b.lang != "all")
		}
		return strings.Compare(a.lang, b.lang)
	})
	sb.WriteString("\n## By split and language\n\npassed/tasks, pass rate and its 95 % Wilson interval; answers holding content no tool returned (fabricated) and answers that are mostly a tool result copied out (copied, whether they passed or not); of the tasks whose checks read the answer and that failed, those whose tool results held what the checks ask for (failed in the answer) and those whose results did not (failed in finding it, or the answer is in no file as written, such as a sum).\n\n")
	mdTable(sb, []string{"run", "split", "language", "passed", "pass %", "95% CI", "fabricated", "copied", "failed in the answer", "failed in finding"}, 3, func(row func([]string)) {
		for _, r := range runs {
			for _, k := range keys {
				n, p, fab, cop, inAnswer, inFinding := 0, 0, 0, 0, 0, 0
				for _, t := range r.Tasks {
					if t.Split == k.split && (k.lang == "all" || t.Lang == k.lang) {
						n++
						p += b2i(t.Pass)
						fab += b2i(t.Fabricated)
						cop += b2i(t.Copied)
						if !t.Pass && t.AnswerShown != nil {
							inAnswer += b2i(*t.AnswerShown)
							inFinding += b2i(!*t.AnswerShown)
						}
					}
				}
				if n == 0 {
					continue
				}
				split := k.split
				if split == "" {
					split = "-"
				}
				row([]string{r.Label(), split, k.lang, fmt.Sprintf("%d/%d", p, n), fmt.Sprintf("%.1f%%", pct(p, n)), wilsonCell(p, n), fmt.Sprint(fab), fmt.Sprint(cop), fmt.Sprint(inAnswer), fmt.Sprint(inFinding)})
			}
		}
	})
}

// writeGroups writes, for each run, the paraphrase groups with the tasks
// of each that passed: a group half passed is a task the model does
// only when it is worded one way.
func writeGroups(sb *strings.Builder, runs []AgentRun) {
	var groups []string
	for _, r := range runs {
		for _, t := range r.Tasks {
			if t.Group != "" && !slices.Contains(groups, t.Group) {
				groups = append(groups, t.Group)
			}
		}
	}
	if len(groups) == 0 {
		return
	}
	slices.Sort(groups)
	sb.WriteString("\n## Paraphrase groups\n\nTasks passed of each group of the same request in other words or languages; all: groups passed whole, none: groups failed whole.\n\n")
	mdTable(sb, []string{"run", "all", "some", "none", "mixed groups"}, 1, func(row func([]string)) {
		for _, r := range runs {
			all, some, none := 0, 0, 0
			var mixed []string
			for _, g := range groups {
				n, p := 0, 0
				var passed []string
				for _, t := range r.Tasks {
					if t.Group == g {
						n++
						p += b2i(t.Pass)
						if t.Pass {
							passed = append(passed, t.Lang)
						}
					}
				}
				switch {
				case n == 0:
				case p == n:
					all++
				case p == 0:
					none++
				default:
					some++
					mixed = append(mixed, fmt.Sprintf("%s %d/%d (%s)", g, p, n, strings.Join(passed, ",")))
				}
			}
			row([]string{r.Label(), fmt.Sprint(all), fmt.Sprint(some), fmt.Sprint(none), strings.Join(mixed, "; ")})
		}
	})
}

// mdTable writes a Markdown table; the first left columns are left-aligned.
func mdTable(sb *strings.Builder, header []string, left int, rows func(row func([]string))) {
	sb.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < left {
			sb.WriteString("---|")
		} else {
			sb.WriteString("--:|")
		}
	}
	sb.WriteString("\n")
	rows(func(cells []string) { sb.WriteString("| " + strings.Join(cells, " | ") + " |\n") })
}

// WriteAgentSVG draws each run's pass rate, and the share of tasks that
// made no invalid call.
func WriteAgentSVG(w io.Writer, runs []AgentRun) error {
	var groups []barGroup
	for _, r := range runs {
		passed, clean, n := 0, 0, max(len(r.Tasks), 1)
		for _, t := range r.Tasks {
			passed += b2i(t.Pass)
			clean += b2i(t.Invalid == 0)
		}
		groups = append(groups, barGroup{label: r.Mode + " · grammar " + r.Grammar, sub: r.Model,
			values: []float64{pct(passed, n), pct(clean, n)}, n: len(r.Tasks)})
	}
	return writeBarChart(w, "Agent tasks passed (%, with 95 % intervals)", []barSeries{{"tasks passed", "#59a14f"}, {"tasks without an invalid call", "#4e79a7"}}, groups)
}

// WriteAgentReports writes results.json, report.md and report.svg into
// dir, each atomically.
func WriteAgentReports(dir string, res *AgentResults, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var md, svg bytes.Buffer
	if err := WriteAgentMarkdown(&md, res, command); err != nil {
		return err
	}
	if err := WriteAgentSVG(&svg, res.Runs); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"results.json": append(js, '\n'), "report.md": md.Bytes(), "report.svg": svg.Bytes()} {
		if err := writeFile(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// resultText is a call's result as offgrid shows it: its text, or a
// failure in its compact form.
func resultText(r agent.ToolRecord) string {
	if r.OK() {
		return r.Result.Text()
	}
	return r.Result.Compact()
}

// shownResults is the text of every result of a turn's calls.
func shownResults(calls []agent.ToolRecord) []string {
	var out []string
	for _, r := range calls {
		out = append(out, resultText(r))
	}
	return out
}

// turnResults is what a turn's calls told the model, against which an
// answer's content is checked (Checks.Invented): each result, and the
// arguments of each call that succeeded, since the path a read succeeded
// on names a file that exists.
func turnResults(calls []agent.ToolRecord) []string {
	var out []string
	for _, r := range calls {
		out = append(out, resultText(r), r.Result.String())
		if r.OK() {
			out = append(out, string(r.Arguments))
		}
	}
	return out
}
