package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models"
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
	suite                 string
	modes, results, roles []string
	toolPrompts           []string
	remind                bool
	system                string
	afterChange           []string
	examples              []string
	parallel              []string
	lookFirst             bool
	onRepeat, answers     []string
	tasks                 []string
	ctxSize               int
	mcp                   []string // --mcp: servers attached to every task
	noPromptCache         bool
	// set names the flags given on the command line; the others take the
	// model's catalog setting where it has one (see withCatalog).
	set map[string]bool
}

// withCatalog returns f with the settings of catalog model d for the
// flags not given, so that a run measures each model as offgrid run
// drives it.
func (f agentBenchFlags) withCatalog(d models.AgentDefaults) agentBenchFlags {
	one := func(flag, v string, dst *[]string) {
		if !f.set[flag] && v != "" {
			*dst = []string{v}
		}
	}
	one("results", d.Results, &f.results)
	one("on-repeat", d.OnRepeat, &f.onRepeat)
	one("answer", d.Answer, &f.answers)
	if !f.set["after-change"] && d.AnswerAfterChange {
		f.afterChange = []string{"answer"}
	}
	if !f.set["examples"] && d.ToolExamples {
		f.examples = []string{"on"}
	}
	if !f.set["remind"] {
		f.remind = d.Remind
	}
	return f
}

// benchAgent runs the agent task suite for each model × mode × grammar ×
// result style × result role.
func benchAgent(ctx context.Context, env *cliEnv, refs []string, f agentBenchFlags, grammars []string, threads int,
	sampling inference.Sampling, maxTokens int, out string, asJSON bool, args []string) error {
	suite, err := bench.LoadSuite(f.suite)
	if err != nil {
		return err
	}
	suite.Tools = confinement() // bash runs as in offgrid run
	suite.LookFirst = f.lookFirst
	for _, v := range f.mcp {
		s, err := mcp.ParseFlag(v)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		suite.AddMCP(s.Name, bench.MCPServer{Command: s.Command, Args: s.Args})
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
		fl := f
		if d, ok := catalogDefaults(env, path); ok {
			fl = f.withCatalog(d)
		}
		for _, c := range fl.configs(grammars) {
			o := agent.Options{Sampling: sampling, MaxTokens: maxTokens}
			c.apply(&o)
			mode := c.label()
			if f.lookFirst {
				mode += "+look first"
			}
			tmpl := bench.AgentRun{Model: name, Mode: mode, Grammar: c.grammar, Results: c.resultsLabel(), Seed: sampling.Seed}
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
	remind                                                     bool
	system                                                     string
}

// configs returns every combination of the flags' lists.
func (f agentBenchFlags) configs(grammars []string) []agentConfig {
	out := []agentConfig{{remind: f.remind, system: f.system}}
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
}

// label names the loop policy: the mode and what was added to it.
func (c agentConfig) label() string {
	l := c.mode
	if c.toolPrompt == "compact" {
		l += "+compact tools"
	}
	if c.remind {
		l += "+remind"
	}
	if c.system != "" {
		l += "+system"
	}
	if c.examples == "on" {
		l += "+examples"
	}
	if c.parallel == "on" {
		l += "+parallel"
	}
	if c.afterChange == "answer" {
		l += "+answer after change"
	}
	if c.onRepeat == string(agent.RepeatAnswer) || c.onRepeat == string(agent.RepeatAnother) {
		l += "+" + c.onRepeat + " on repeat"
		if c.answer == string(agent.AnswerSeparate) {
			l += " (separate)"
		}
	}
	return l
}

func (c agentConfig) resultsLabel() string {
	if c.role == "user" {
		return c.results + " as user"
	}
	return c.results
}
