package main

import (
	"context"
	"fmt"
	"io"
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
	suite                  string
	modes, results, roles  []string
	toolPrompts            []string
	remind                 bool
	system                 string
	afterChange            []string
	examples               []string
	parallel               []string
	lookFirst, readFirst   bool
	unknownAsText, byTopic bool
	rewrite, readAnswer    bool
	locate                 bool
	onRepeat, answers      []string
	tasks                  []string
	split                  string
	ctxSize                int
	mcp                    []string      // --mcp: servers attached to every task
	mcpConnect             time.Duration // --mcp-connect-timeout
	noPromptCache          bool
	// set names the flags given on the command line; the others take the
	// model's catalog setting where it has one (see withCatalog).
	set map[string]bool
}

// given reports whether the setting named by `offgrid run`'s flag (see
// withCatalog) was given on the command line, where bench --agent names
// some of them otherwise.
func (f agentBenchFlags) given(flag string) bool {
	switch flag {
	case "tool-choice":
		flag = "mode"
	case "answer-after-change":
		flag = "after-change"
	case "tool-examples":
		flag = "examples"
	}
	return f.set[flag]
}

// settingFlags are the flags of bench --agent that a catalog model's
// settings stand in for when they are not given.
var settingFlags = []string{"mode", "results", "on-repeat", "answer", "after-change", "examples", "remind", "look-first", "read-first", "unknown-as-text", "tools-by-topic", "rewrite", "read-answer", "locate", "temp"}

// benchAgent runs the agent task suite for each model × mode × grammar ×
// result style × result role.
func benchAgent(ctx context.Context, env *cliEnv, refs []string, f agentBenchFlags, grammars []string, threads int,
	sampling inference.Sampling, maxTokens int, out string, asJSON bool, args []string) error {
	// A hang-up (the terminal closed) ends the run as SIGTERM does, the
	// task's MCP servers closed, rather than by the signal's default action.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	suite, err := bench.LoadSuite(f.suite)
	if err != nil {
		return err
	}
	suite.Tools = confinement() // bash runs as in offgrid run
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
	res := &bench.AgentResults{Version: bench.ResultsVersion, Created: time.Now().UTC(), Suite: suite.Name}
	for _, ref := range refs {
		mr, err := lookupModel(ctx, env, ref)
		if err != nil {
			return err
		}
		path := mr.path
		m, err := inference.Load(path, inference.ModelOptions{})
		if err != nil {
			return err
		}
		lctx, err := m.NewContext(inference.ContextOptions{ContextSize: f.ctxSize, Threads: threads})
		if err != nil {
			m.Close()
			return err
		}
		if !f.noPromptCache {
			usePromptCache(env, lctx, path, mr.sha256)
		}
		cp := agent.NewCompleter(lctx, agent.InfoFromModel(m))
		name := strings.TrimSuffix(filepath.Base(path), ".gguf")
		d, catalog := catalogDefaults(env, path)
		for _, c := range f.configs(grammars) {
			o := agent.Options{Sampling: sampling, MaxTokens: maxTokens}
			c.apply(&o)
			if catalog {
				o = withCatalog(o, d, f.given)
			}
			mode, results := c.labels(o)
			tmpl := bench.AgentRun{Model: name, Mode: mode, Grammar: c.grammar, Results: results, Seed: sampling.Seed}
			bar := newProgressBar(env.stderr, fmt.Sprintf("%s %s grammar %s %s", name, tmpl.Mode, c.grammar, tmpl.Results), caseCounts)
			run, err := bench.RunSuite(ctx, cp, suite, o, tmpl, bar.cases)
			bar.done()
			res.Runs = append(res.Runs, run)
			if err != nil {
				lctx.Close()
				m.Close()
				return err
			}
		}
		lctx.Close()
		m.Close()
	}
	rows := bench.SummarizeAgent(res.Runs)
	return benchOutput(env, rows, asJSON, func(w io.Writer) error { return bench.WriteAgentTable(w, rows) },
		out, args, func(dir, cmd string) error { return bench.WriteAgentReports(dir, res, cmd) })
}

// agentConfig is one way of driving the agent that bench --agent measures.
type agentConfig struct {
	mode, grammar, results, role, toolPrompt, onRepeat, answer string
	afterChange, examples, parallel                            string
	remind, lookFirst, readFirst, unknownAsText, byTopic       bool
	rewrite, readAnswer, locate                                bool
	system                                                     string
}

// configs returns every combination of the flags' lists.
func (f agentBenchFlags) configs(grammars []string) []agentConfig {
	out := []agentConfig{{remind: f.remind, lookFirst: f.lookFirst, readFirst: f.readFirst, unknownAsText: f.unknownAsText, byTopic: f.byTopic, rewrite: f.rewrite, readAnswer: f.readAnswer, locate: f.locate, system: f.system}}
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
	return out
}

func (c agentConfig) apply(o *agent.Options) {
	agentModes[c.mode](o)
	o.NoGrammar = c.grammar == "off"
	o.Results = agent.ResultStyle(c.results)
	o.ResultsAsUser = c.role == "user"
	o.CompactTools = c.toolPrompt == "compact"
	o.OnRepeat = agent.RepeatPolicy(c.onRepeat)
	o.Remind = c.remind
	o.AnswerAfterChange = c.afterChange == "answer"
	o.ToolExamples = c.examples == "on"
	o.Parallel = c.parallel == "on"
	o.System = c.system
	o.Answer = agent.AnswerStyle(c.answer)
	o.LookFirst = c.lookFirst
	o.ReadFirst = c.readFirst
	o.UnknownAsText = c.unknownAsText
	o.ToolsByTopic = c.byTopic
	o.Rewrite = c.rewrite
	o.ReadAnswer = c.readAnswer
	o.Locate = c.locate
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
		{o.Remind, "+remind"},
		{o.System != "", "+system"},
		{o.ToolExamples, "+examples"},
		{o.Parallel, "+parallel"},
		{o.AnswerAfterChange, "+answer after change"},
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
	if o.ReadFirst {
		l += "+read first"
	}
	if o.LookFirst && !o.NoGrammar {
		l += "+look first"
	}
	if o.UnknownAsText && !o.NoGrammar {
		l += "+unknown as text"
	}
	if o.ToolsByTopic {
		l += "+tools by topic"
	}
	if o.Rewrite && o.ReadFirst {
		l += "+rewrite"
	}
	if o.ReadAnswer && o.ReadFirst {
		l += "+read answer"
	}
	if o.Locate && o.ReadFirst {
		l += "+locate"
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
