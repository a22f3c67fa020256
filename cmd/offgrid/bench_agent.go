package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

// agentModes are the loop policies `bench --agent --mode` compares.
var agentModes = map[string]func(*agent.Options){
	// auto: text or calls; the lazy grammar starts at any call opening.
	"auto": func(o *agent.Options) { o.ToolChoice = grammar.Auto },
	// required: the first reply of a turn must be a call.
	"required": func(o *agent.Options) { o.ToolChoice = grammar.Required },
	// envelope: offgrid's {"tool_calls":…}|{"response":…} object from the
	// first token.
	"envelope": func(o *agent.Options) { o.ToolChoice, o.Format = grammar.Auto, grammar.Generic },
}

// agentBenchFlags are the flags of bench --agent.
type agentBenchFlags struct {
	batch                 int // -b: tokens decoded at once
	suite                 string
	modes, results, roles []string
	toolPrompts           []string
	system                string
	afterChange           []string
	examples              []string
	parallel              []string
	profile               string   // --profile
	assists               []string // --assist: one list per configuration
	assistAliases         string   // the hidden assist flags given, as a list
	onRepeat, answers     []string
	tasks                 []string
	split                 string
	ctxSize               int
	csv                   string                 // --csv FILE
	repeat                int                    // --repeat K
	model                 inference.ModelOptions // -ngl
	mcp                   []string               // --mcp: servers attached to every task
	mcpConnect            time.Duration          // --mcp-connect-timeout
	noPromptCache         bool
	compare               []string // --compare: earlier results.json whose runs come first
	shard                 string   // --shard I/N
	resume                string   // --resume DIR
	// set names the flags given on the command line; the others take the
	// model's profile's setting (see loopSettings).
	set map[string]bool
}

// settingFlags are the flags of bench --agent that a model's profile
// stands in for when they are not given.
var settingFlags = []string{"mode", "results", "on-repeat", "answer", "after-change", "examples", "temp"}

// benchAgent runs the agent task suite for each model × mode × grammar ×
// result style × result role.
func benchAgent(ctx context.Context, env *cliEnv, refs []string, f agentBenchFlags, grammars []string, threads int,
	sampling inference.Sampling, maxTokens int, out string, asJSON bool, args []string) error {
	// A hang-up (the terminal closed) ends the run as SIGTERM does, the
	// task's MCP servers closed, rather than by the signal's default action.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	if len(refs) == 0 { // --compare alone: the earlier runs' report
		res := &bench.AgentResults{Version: bench.ResultsVersion, Created: time.Now().UTC()}
		if err := f.compared(res); err != nil {
			return err
		}
		return agentOutput(env, res, asJSON, out, f.csv, args)
	}
	suite, err := bench.LoadSuite(f.suite)
	if err != nil {
		return err
	}
	suite.Tools = launch.Confinement() // bash runs as in offgrid run
	if f.mcpConnect <= 0 {
		return fmt.Errorf("%w: --mcp-connect-timeout must be positive", errUsage)
	}
	suite.MCPConnectTimeout = f.mcpConnect
	for _, v := range f.mcp {
		s, err := mcp.ParseFlag(v)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		suite.AddMCP(s.Name, bench.MCPServer{Command: s.Command, Args: s.Args})
	}
	switch f.split {
	case "", "dev", "test":
		suite = suite.Only(f.split)
		if len(suite.Tasks) == 0 {
			return fmt.Errorf("%w: --split %s: suite %s has no task in that split", errUsage, f.split, suite.Name)
		}
	default:
		return fmt.Errorf("%w: --split: want dev or test, not %q", errUsage, f.split)
	}
	if len(f.tasks) > 0 {
		suite.Tasks = slices.DeleteFunc(suite.Tasks, func(t bench.Task) bool { return !slices.Contains(f.tasks, t.ID) })
		if len(suite.Tasks) == 0 {
			return fmt.Errorf("%w: --task: no task of suite %s has those ids", errUsage, suite.Name)
		}
	}
	for _, m := range f.modes {
		if agentModes[m] == nil {
			return fmt.Errorf("%w: --mode: want auto, required or envelope, not %q", errUsage, m)
		}
	}
	for _, r := range f.results {
		if _, err := agent.ParseResultStyle(r); err != nil {
			return fmt.Errorf("%w: --results: %v", errUsage, err)
		}
	}
	for _, r := range f.onRepeat {
		if _, err := agent.ParseRepeatPolicy(r); err != nil {
			return fmt.Errorf("%w: --on-repeat: %v", errUsage, err)
		}
	}
	for _, a := range f.answers {
		if _, err := agent.ParseAnswerStyle(a); err != nil {
			return fmt.Errorf("%w: --answer: %v", errUsage, err)
		}
	}
	for _, c := range []struct {
		flag string
		vals []string
		a, b string // the two values the flag takes
	}{
		{"--after-change", f.afterChange, "continue", "answer"},
		{"--examples", f.examples, "off", "on"},
		{"--parallel", f.parallel, "off", "on"},
		{"--tools-prompt", f.toolPrompts, "template", "compact"},
		{"--result-role", f.roles, "tool", "user"},
	} {
		for _, v := range c.vals {
			if v != c.a && v != c.b {
				return fmt.Errorf("%w: %s: want %s or %s, not %q", errUsage, c.flag, c.a, c.b, v)
			}
		}
	}
	for _, c := range f.configs(grammars) {
		if err := checkLoop(f.loop(c)); err != nil {
			return err
		}
	}
	if f.repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1", errUsage)
	}
	sh, err := bench.ParseShard(f.shard)
	if err != nil {
		return fmt.Errorf("%w: --shard: %v", errUsage, err)
	}
	suite = suite.Shard(sh)
	var prev *bench.AgentResults // the run --resume goes on with
	if f.resume != "" {
		if prev, err = bench.ResumeFrom(f.resume); err != nil {
			return err
		}
		if out == "" {
			out = f.resume
		}
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
	}
	res := &bench.AgentResults{Version: bench.ResultsVersion, Created: time.Now().UTC(), Suite: suite.Name}
	if err := f.compared(res); err != nil {
		return err
	}
	if prev != nil {
		res.Created = prev.Created
	}
	for _, ref := range refs {
		mr, err := lookupModel(ctx, env, ref)
		if err != nil {
			return err
		}
		path := mr.Path
		m, err := inference.Load(path, f.model)
		if err != nil {
			return err
		}
		lctx, err := m.NewContext(inference.ContextOptions{ContextSize: f.ctxSize, BatchSize: f.batch, Threads: threads})
		if err != nil {
			m.Close()
			return err
		}
		if !f.noPromptCache {
			launch.UsePromptCache(env.launch(), lctx, path, mr.SHA256)
		}
		info := agent.InfoFromModel(m)
		cp := agent.NewCompleter(lctx, info)
		name := strings.TrimSuffix(filepath.Base(path), ".gguf")
		profile, err := profileFor(env, loopSettings{Profile: f.profile}, path, info)
		if err != nil {
			lctx.Close()
			m.Close()
			return err
		}
		for _, c := range f.configs(grammars) {
			o := agent.Options{Sampling: sampling, MaxTokens: maxTokens}
			c.apply(&o)
			if o, err = applyLoop(f.loop(c), o, profile); err != nil {
				lctx.Close()
				m.Close()
				return err
			}
			mode, results := c.labels(o)
			tmpl := bench.AgentRun{Model: name, Profile: profile.Name, Mode: mode, Grammar: c.grammar, Results: results, Seed: sampling.Seed}
			if f.repeat > 1 {
				tmpl.Repeats = f.repeat
			}
			tmpl.Tasks = slices.DeleteFunc(bench.Resume(prev, tmpl), func(t bench.TaskResult) bool {
				return !slices.ContainsFunc(suite.Tasks, func(st bench.Task) bool { return st.ID == t.ID })
			})
			bar := newProgressBar(env.stderr, fmt.Sprintf("%s %s grammar %s %s", name, tmpl.Mode, c.grammar, tmpl.Results), caseCounts)
			res.Runs = append(res.Runs, tmpl)
			i := len(res.Runs) - 1
			// Each task's result is saved as it ends, so that a run
			// killed loses at most the task it was on (--resume).
			var saveErr error
			run, err := bench.RunSuite(ctx, cp, suite, o, tmpl, func(run bench.AgentRun, total int) {
				bar.cases(len(run.Tasks), total)
				res.Runs[i] = run
				if out != "" && saveErr == nil {
					saveErr = bench.WriteAgentResults(filepath.Join(out, "results.json"), res)
				}
			})
			bar.done()
			res.Runs[i] = run
			if err == nil {
				err = saveErr
			}
			if err != nil {
				lctx.Close()
				m.Close()
				return err
			}
		}
		lctx.Close()
		m.Close()
	}
	return agentOutput(env, res, asJSON, out, f.csv, args)
}

// compared adds the runs of the --compare results to res, first; res
// takes the first one's suite name when it has none.
func (f agentBenchFlags) compared(res *bench.AgentResults) error {
	for _, path := range f.compare {
		old, err := bench.ReadAgentResults(path)
		if err != nil {
			return err
		}
		if res.Suite == "" {
			res.Suite = old.Suite
		}
		res.Runs = append(res.Runs, old.Runs...)
	}
	return nil
}

// agentOutput prints the runs' table and their paired comparison, and
// writes the reports into out.
func agentOutput(env *cliEnv, res *bench.AgentResults, asJSON bool, out, csvPath string, args []string) error {
	if err := writeCSV(csvPath, func(w io.Writer) error { return bench.WriteAgentCSV(w, res.Runs) }); err != nil {
		return err
	}
	rows := bench.SummarizeAgent(res.Runs)
	table := func(w io.Writer) error {
		if err := bench.WriteAgentTable(w, rows); err != nil {
			return err
		}
		return bench.WritePaired(w, bench.PairAgent(res.Runs))
	}
	return benchOutput(env, rows, asJSON, table,
		out, args, func(dir, cmd string) error { return bench.WriteAgentReports(dir, res, cmd) })
}

// agentConfig is one way of driving the agent that bench --agent measures.
type agentConfig struct {
	mode, grammar, results, role, toolPrompt, onRepeat, answer string
	afterChange, examples, parallel                            string
	assist                                                     string
	system                                                     string
}

// configs returns every combination of the flags' lists.
func (f agentBenchFlags) configs(grammars []string) []agentConfig {
	out := []agentConfig{{system: f.system}}
	each := func(vals []string, set func(*agentConfig, string)) {
		var next []agentConfig
		for _, c := range out {
			for _, v := range vals {
				set(&c, v)
				next = append(next, c)
			}
		}
		out = next
	}
	each(f.modes, func(c *agentConfig, v string) { c.mode = v })
	each(grammars, func(c *agentConfig, v string) { c.grammar = v })
	each(f.results, func(c *agentConfig, v string) { c.results = v })
	each(f.roles, func(c *agentConfig, v string) { c.role = v })
	each(f.toolPrompts, func(c *agentConfig, v string) { c.toolPrompt = v })
	each(f.onRepeat, func(c *agentConfig, v string) { c.onRepeat = v })
	each(f.answers, func(c *agentConfig, v string) { c.answer = v })
	each(f.afterChange, func(c *agentConfig, v string) { c.afterChange = v })
	each(f.examples, func(c *agentConfig, v string) { c.examples = v })
	each(f.parallel, func(c *agentConfig, v string) { c.parallel = v })
	each(f.assists, func(c *agentConfig, v string) { c.assist = v })
	return out
}

// loop returns configuration c's settings over the model's profile: those
// of its flags that were given.
func (f agentBenchFlags) loop(c agentConfig) loopSettings {
	s := loopSettings{Profile: f.profile, KeepTemp: f.set["temp"]}
	if f.set["mode"] {
		s.ToolChoice = string(grammar.Auto)
		if c.mode == "required" {
			s.ToolChoice = string(grammar.Required)
		}
	}
	if f.set["results"] {
		s.Results = c.results
	}
	if f.set["on-repeat"] {
		s.OnRepeat = c.onRepeat
	}
	if f.set["answer"] {
		s.Answer = c.answer
	}
	var old []string // --after-change and --examples, as assists
	if f.set["after-change"] {
		old = append(old, map[string]string{"answer": "+", "continue": "-"}[c.afterChange]+"answer-after-change")
	}
	if f.set["examples"] {
		old = append(old, map[string]string{"on": "+", "off": "-"}[c.examples]+"tool-examples")
	}
	s.Assist = joinSpecs(c.assist, f.assistAliases, strings.Join(old, ","))
	return s
}

func (c agentConfig) apply(o *agent.Options) {
	agentModes[c.mode](o)
	o.NoGrammar = c.grammar == "off"
	o.ResultsAsUser = c.role == "user"
	o.CompactTools = c.toolPrompt == "compact"
	o.Parallel = c.parallel == "on"
	o.System = c.system
}

// labels name the loop policy o follows (the mode and what was added to
// it) and how it shows results, as the report shows them.
func (c agentConfig) labels(o agent.Options) (mode, results string) {
	l := c.mode
	if l != "envelope" && o.ToolChoice != "" {
		l = string(o.ToolChoice)
	}
	for _, a := range []struct {
		on    bool
		label string
	}{
		{o.CompactTools, "+compact tools"},
		{o.System != "", "+system"},
		{o.Parallel, "+parallel"},
	} {
		if a.on {
			l += a.label
		}
	}
	if o.OnRepeat == agent.RepeatAnswer || o.OnRepeat == agent.RepeatAnother {
		l += "+" + string(o.OnRepeat) + " on repeat"
		if o.Answer == agent.AnswerSeparate {
			l += " (separate)"
		}
	}
	for _, name := range o.AssistNames() {
		l += "+" + name
	}
	results = string(o.Results)
	if results == "" {
		results = string(agent.ResultsCompact)
	}
	if o.ResultsAsUser {
		results += " as user"
	}
	return l, results
}

// benchMerge joins the results of shards (bench --shard I/N), BFCL or
// agent, into one report: offgrid bench merge DIR|FILE… --out DIR.
func benchMerge(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bench merge", "bench merge DIR|RESULTS.json… [--out DIR] [--json]\n\nJoin the results of the shards of a run (bench --shard I/N), BFCL or\nagent, into one: each case or task once, in the order of one run.")
	out := fs.String("out", "", "write the merged results.json, report.md and report.svg into DIR")
	asJSON := fs.Bool("json", false, "print the summary as JSON instead of a table")
	csvPath := fs.String("csv", "", "also write one row per case or task into FILE (CSV)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: want the shards' result directories or files", errUsage)
	}
	var paths []string
	for _, p := range fs.Args() {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, "results.json")
		}
		paths = append(paths, p)
	}
	cmd := append([]string{"merge"}, args...)
	if agentResults(paths[0]) {
		var parts []*bench.AgentResults
		for _, p := range paths {
			r, err := bench.ReadAgentResults(p)
			if err != nil {
				return err
			}
			parts = append(parts, r)
		}
		var suite *bench.Suite // the built-in suites give the tasks' order
		switch parts[0].Suite {
		case "builtin", "general", "mcp":
			suite, _ = bench.LoadSuite(parts[0].Suite)
		}
		res, err := bench.MergeAgent(parts, suite)
		if err != nil {
			return err
		}
		return agentOutput(env, res, *asJSON, *out, *csvPath, cmd)
	}
	var parts []*bench.Results
	for _, p := range paths {
		r, err := bench.ReadResults(p)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	res, err := bench.MergeResults(parts)
	if err != nil {
		return err
	}
	if err := writeCSV(*csvPath, func(w io.Writer) error { return bench.WriteCSV(w, res.Runs) }); err != nil {
		return err
	}
	rows := bench.Summarize(res.Runs)
	return benchOutput(env, rows, *asJSON, func(w io.Writer) error { return bench.WriteTable(w, rows) },
		*out, cmd, func(dir, cmd string) error { return bench.WriteReports(dir, res, cmd) })
}

// agentResults reports whether the results.json at path is an agent
// run's (its runs hold tasks), not BFCL's (cases).
func agentResults(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var probe struct {
		Runs []struct {
			Tasks json.RawMessage `json:"tasks"`
		} `json:"runs"`
	}
	return json.Unmarshal(b, &probe) == nil && len(probe.Runs) > 0 && probe.Runs[0].Tasks != nil
}
