package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/tools/mcp"
	"github.com/spf13/pflag"
)

const benchSynopsis = "bench bfcl -m MODEL [-m MODEL …] --data DIR|FILE… [--category …] [--grammar on,off] [--tool-format F] [--limit N] [--shard I/N] [--out DIR] [--compare RESULTS.json]\n" +
	"       bench agent -m MODEL [-m MODEL …] [--suite FILE|builtin|general|mcp] [--split dev|test] [--profile P] [--assist LIST]… [--shard I/N] [--resume DIR] [--out DIR] [--compare RESULTS.json]\n" +
	"       bench speed -m MODEL [-m MODEL …] [-t THREADS] [-p 512] [-n 128] [-r 5] [--json] [--compare RESULT.json]\n" +
	"       bench curator -m MODEL [--picks N]\n" +
	"       bench merge DIR… --out DIR\n\n" +
	"bfcl (the default; bench -m … --data … is bench bfcl) measures single replies against the Berkeley Function\n" +
	"Calling Leaderboard's data; agent runs multi-step tasks with offgrid's own tools (each in a fresh directory) and\n" +
	"checks the files and answers; speed prints prefill and decode tokens/s and an agent turn's time to the first\n" +
	"token; curator measures the file curator; merge joins the results of shards. --agent, --speed and --curator\n" +
	"still name the sub-commands. 'offgrid help bench SUB' shows a sub-command's flags."

// benchModes are bench's sub-commands that measure, each with the flags
// it takes beside the shared ones (benchShared); `bench --agent …` is
// still `bench agent …`, and `bench` alone is `bench bfcl`.
var benchModes = map[string][]string{
	"bfcl":    {"data", "category", "tool-format", "limit", "max-string", "max-items", "max-tokens", "grammar", "compare", "shard", "csv", "repeat", "resume"},
	"agent":   {"suite", "mode", "results", "result-role", "tools-prompt", "on-repeat", "answer", "after-change", "examples", "parallel", "profile", "assist", "system", "task", "split", "mcp", "mcp-connect-timeout", "no-prompt-cache", "resume", "repeat", "max-tokens", "grammar", "compare", "shard", "csv"},
	"speed":   {"prompt-tokens", "gen-tokens", "reps", "grammar-out", "compare"},
	"curator": {"picks"},
}

// benchShared are the flags every mode takes: the model, the engine and
// sampling, and the output.
var benchShared = []string{"model", "ctx-size", "threads", "gpu-layers", "temp", "temperature", "top-k", "top-p", "min-p", "seed", "out", "json", "help"}

// benchSub returns the mode args name ("bfcl", "agent", "speed",
// "curator") and the args without it: a sub-command first, or one of
// the old mode flags (--agent, --speed, --curator) anywhere.
func benchSub(args []string) (string, []string) {
	if len(args) > 0 {
		if _, ok := benchModes[args[0]]; ok {
			return args[0], args[1:]
		}
	}
	for i, a := range args {
		switch a {
		case "--agent", "--speed", "--curator":
			return a[2:], append(slices.Clone(args[:i]), args[i+1:]...)
		}
	}
	return "bfcl", args
}

func cmdBench(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return benchMerge(env, args[1:])
	}
	sub, args := benchSub(llamaAliases(args))
	fs := newFlagSet(env, "bench "+sub, benchSynopsis)
	modelRefs := fs.StringArrayP("model", "m", nil, "model to measure: a store name, a GGUF path or default (repeatable)")
	data := fs.StringSlice("data", nil, "BFCL question files or directories of them, answers in possible_answer/ beside them")
	cats := fs.StringSlice("category", nil, "categories to run (default: all present): "+strings.Join(bench.Categories(), ","))
	modes := fs.StringSlice("grammar", []string{"on"}, "grammar modes to run: on, off or on,off")
	toolFormat := fs.String("tool-format", "auto", "tool-call format: auto (from the chat template), generic, hermes, llama3, mistral, pythonic, or bfcl-prompt (BFCL's prompt mode)")
	limit := fs.Int("limit", 0, "run at most N cases of each category (0: all)")
	defTokens := 256 // a BFCL reply is one call; an agent's replies are longer
	if sub == "agent" {
		defTokens = 512
	}
	maxTokens := fs.Int("max-tokens", defTokens, "the longest reply, in tokens")
	maxString := fs.Int("max-string", 0, "bound open-ended strings in tool schemas to N characters (0: off), so a looping model still finishes its call")
	maxItems := fs.Int("max-items", 0, "bound open-ended arrays in tool schemas to N items (0: off)")
	ef := addEngineFlags(fs, 8192, "context window in tokens for --agent and --speed; BFCL cases use the model's training context up to 4096 unless it is set", inference.Sampling{})
	out := fs.String("out", "", "write results.json, report.md and report.svg into DIR")
	csvPath := fs.String("csv", "", "also write one row per case or task into FILE (CSV)")
	asJSON := fs.Bool("json", false, "print the summary as JSON instead of a table")
	compare := fs.StringArray("compare", nil, "a results.json (e.g. from bench/peers) to score with the same checker and show side by side (repeatable); with --speed, a --speed --json result (or the peer speed script's) to show with ratios")
	agentMode, curatorMode, speedMode := sub == "agent", sub == "curator", sub == "speed"
	picks := fs.Int("picks", 3, "the most sections of 30 lines the curator returns")
	var sf speedFlags
	fs.IntVarP(&sf.promptTokens, "prompt-tokens", "p", 512, "prompt tokens of the prefill test")
	fs.IntVarP(&sf.genTokens, "gen-tokens", "n", 128, "generated tokens of the decode tests")
	fs.IntVarP(&sf.reps, "reps", "r", 5, "repetitions of each test (min, median and max are shown)")
	fs.StringVar(&sf.grammarOut, "grammar-out", "", "write the GBNF of the decode-with-grammar test to FILE (for the peer script)")
	var af agentBenchFlags
	fs.StringVar(&af.suite, "suite", "builtin", "the task suite, a JSON file, builtin, general (realistic projects in several languages, split into dev and test) or mcp (tasks through the reference MCP filesystem server, needs npx)")
	fs.StringSliceVar(&af.modes, "mode", []string{"auto"}, "loop policies: auto (lazy grammar at any call opening), required (first reply a call), envelope (generic JSON object)")
	fs.StringSliceVar(&af.results, "results", []string{"compact"}, "how tool results are shown to the model: compact, full (default: the model's catalog setting, else the value shown)")
	fs.StringSliceVar(&af.roles, "result-role", []string{"tool"}, "results in the template's tool role or a user message: tool, user")
	fs.StringSliceVar(&af.toolPrompts, "tools-prompt", []string{"template"}, "tools presented by the chat template (JSON schemas) or compact (name(args): description)")
	fs.StringSliceVar(&af.onRepeat, "on-repeat", []string{"stop"}, "a repeated call: stop (a note, then a third ends the turn), answer (not run; the model answers in text), another (not run; once a turn another tool or an answer, then as answer) (default: the model's catalog setting, else the value shown)")
	fs.StringSliceVar(&af.answers, "answer", []string{"inline"}, "with --on-repeat answer, where the model answers: inline (the same conversation) or separate (a prompt without tools, the results in its system message) (default: the model's catalog setting, else the value shown)")
	fs.StringSliceVar(&af.afterChange, "after-change", []string{"continue"}, "after a successful change (a file edit, a command): continue (the tools offered again) or answer (the model answers, as --answer says) (default: the model's catalog setting, else the value shown)")
	fs.StringSliceVar(&af.examples, "examples", []string{"off"}, "the tools' examples (a request and the first call) in the system message: off, on (default: the model's catalog setting, else the value shown)")
	fs.StringSliceVar(&af.parallel, "parallel", []string{"off"}, "several calls in one reply: off, on")
	fs.StringVar(&af.profile, "profile", "", ""+profileHelp())
	fs.StringArrayVar(&af.assists, "assist", []string{""}, "assists over the profile's, as for offgrid run (NAME,… replaces them, +NAME adds, -NAME removes); repeat it to compare configurations")
	assistAliases := assistFlags(fs)
	fs.StringVar(&af.system, "system", "", "the system prompt of every task (default: none, the chat template's own)")
	fs.StringSliceVar(&af.tasks, "task", nil, "run only these task ids")
	fs.StringVar(&af.split, "split", "", "run only the tasks of this split of the suite: dev (tuned on) or test (reported)")
	fs.StringArrayVar(&af.mcp, "mcp", nil, "attach an MCP server to every task: 'NAME=COMMAND ARGS…', {root} standing for the task's directory (repeatable)")
	fs.DurationVar(&af.mcpConnect, "mcp-connect-timeout", mcp.DefaultConnectTimeout, "cap on starting each task's MCP servers and listing their tools; a task whose server misses it fails")
	fs.BoolVar(&af.noPromptCache, "no-prompt-cache", false, "neither load nor save the prompt cache")
	fs.StringVar(&af.shard, "shard", "", "run only shard I/N of the cases or tasks (I from 0 to N-1, by a stable hash of their ids); 'offgrid bench merge' joins the shards' results")
	fs.IntVar(&af.repeat, "repeat", 1, "run each case or task K times, each with a seed of its own derived from the run's seed, its id and the repeat (with --temp above 0); the agent's report.md gives each repeat's pass rate and the tasks whose outcome varied")
	fs.StringVar(&af.resume, "resume", "", "go on with the run in DIR (its results.json, saved after each case or task): those it holds are not run again; the reports go to DIR unless --out says otherwise")
	own := append(slices.Clone(benchShared), benchModes[sub]...)
	fs.VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(own, f.Name) && !slices.ContainsFunc(agent.Assists(), func(a agent.Assist) bool { return a.Name == f.Name }) {
			fs.MarkHidden(f.Name)
		}
	})
	isOwn := func(name string) bool {
		return slices.Contains(own, name) || sub == "agent" && slices.ContainsFunc(agent.Assists(), func(a agent.Assist) bool { return a.Name == name })
	}
	// Spellings --assist replaced, kept for one release.
	fs.MarkHidden("after-change") // --assist ±answer-after-change
	fs.MarkHidden("examples")     // --assist ±tool-examples
	if err := parseWithConfig(env, fs, "bench", isOwn, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	var foreign error
	fs.Visit(func(f *pflag.Flag) {
		isAssist := slices.ContainsFunc(agent.Assists(), func(a agent.Assist) bool { return a.Name == f.Name })
		if foreign == nil && !slices.Contains(own, f.Name) && !(isAssist && sub == "agent") {
			foreign = fmt.Errorf("%w: --%s is not a flag of bench %s", errUsage, f.Name, sub)
		}
	})
	if foreign != nil {
		return foreign
	}
	for _, m := range *modes {
		if m != "on" && m != "off" {
			return fmt.Errorf("%w: --grammar: want on, off or on,off, not %q", errUsage, m)
		}
	}
	sampling, err := ef.sampling()
	if err != nil {
		return err
	}
	if curatorMode {
		if len(*modelRefs) != 1 {
			return fmt.Errorf("%w: --curator wants one -m MODEL", errUsage)
		}
		if *picks < 1 {
			return fmt.Errorf("%w: --picks must be at least 1", errUsage)
		}
		return benchCurator(ctx, env, (*modelRefs)[0], ef.model(), ef.threads, *picks, *asJSON)
	}
	if speedMode {
		if len(*modelRefs) == 0 && len(*compare) == 0 {
			return fmt.Errorf("%w: --speed wants -m MODEL or --compare RESULT.json", errUsage)
		}
		sf.ctxSize, sf.model, sf.batch = ef.ctxSize, ef.model(), ef.batch
		return benchSpeed(ctx, env, *modelRefs, sf, ef.threads, *asJSON, *compare)
	}
	if agentMode {
		if len(*modelRefs) == 0 && len(*compare) == 0 {
			return fmt.Errorf("%w: --agent wants -m MODEL or --compare RESULTS.json", errUsage)
		}
		af.compare = *compare
		af.ctxSize, af.model, af.csv, af.batch = ef.ctxSize, ef.model(), *csvPath, ef.batch
		af.assistAliases = assistAliases()
		af.set = map[string]bool{}
		for _, name := range settingFlags {
			af.set[name] = fs.Changed(name)
		}
		return benchAgent(ctx, env, *modelRefs, af, *modes, ef.threads, sampling,
			*maxTokens, *out, *asJSON, args)
	}
	if len(*data) == 0 {
		return fmt.Errorf("%w: want --data DIR|FILE (BFCL question files; `make bench-data` fetches them)", errUsage)
	}
	if len(*modelRefs) == 0 && len(*compare) == 0 {
		return fmt.Errorf("%w: want -m MODEL or --compare RESULTS.json", errUsage)
	}
	switch *toolFormat {
	case "auto", bench.FormatBFCLPrompt:
	default:
		if _, err := grammar.ParseFormat(*toolFormat); err != nil {
			return fmt.Errorf("%w: --tool-format: %v", errUsage, err)
		}
	}
	cases, skipped, err := bench.Load(*data, bench.LoadOptions{Categories: *cats, Limit: *limit})
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(skipped)) {
		fmt.Fprintf(env.stderr, "skipping %s: %d (not a category bench scores)\n", name, skipped[name])
	}
	if len(cases) == 0 {
		return fmt.Errorf("%w: no cases in %s for the chosen categories", errUsage, strings.Join(*data, ", "))
	}
	sh, err := bench.ParseShard(af.shard)
	if err != nil {
		return fmt.Errorf("%w: --shard: %v", errUsage, err)
	}
	cases = bench.ShardCases(cases, sh)
	if af.repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1", errUsage)
	}

	copts := ef.context(0)
	if fs.Changed("ctx-size") {
		copts.ContextSize = ef.ctxSize
	}
	res := &bench.Results{Version: bench.ResultsVersion, Created: time.Now().UTC()}
	var prev *bench.Results // the run --resume goes on with
	if af.resume != "" {
		path := filepath.Join(af.resume, "results.json")
		if _, err := os.Stat(path); err == nil {
			if prev, err = bench.ReadResults(path); err != nil {
				return err
			}
			res.Created = prev.Created
		}
		if *out == "" {
			*out = af.resume
		}
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	for _, ref := range *modelRefs {
		err := benchModel(ctx, env, ref, ef.model(), copts, cases, *modes, af.repeat, bench.AgentOptions{
			Format:    *toolFormat,
			Sampling:  sampling,
			MaxTokens: *maxTokens,
			MaxString: *maxString,
			MaxItems:  *maxItems,
		}, res, prev, *out)
		if err != nil {
			return err
		}
	}
	for _, path := range *compare {
		peer, err := bench.ReadResults(path)
		if err != nil {
			return err
		}
		runs, missing, err := bench.Rescore(peer.Runs, cases)
		if err != nil {
			return err
		}
		if missing > 0 {
			fmt.Fprintf(env.stderr, "%s: %d cases not among the loaded cases were left out\n", path, missing)
		}
		res.Runs = append(res.Runs, runs...)
	}

	if err := writeCSV(*csvPath, func(w io.Writer) error { return bench.WriteCSV(w, res.Runs) }); err != nil {
		return err
	}
	rows := bench.Summarize(res.Runs)
	table := func(w io.Writer) error {
		if err := bench.WriteTable(w, rows); err != nil {
			return err
		}
		return bench.WritePaired(w, bench.PairBFCL(res.Runs))
	}
	return benchOutput(env, rows, *asJSON, table,
		*out, args, func(dir, cmd string) error { return bench.WriteReports(dir, res, cmd) })
}

// writeCSV writes a CSV report to path through write; nothing when path
// is "".
func writeCSV(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// benchOutput prints a bench summary (rows as JSON, or table) and, with
// out set, writes the reports there.
func benchOutput(env *cliEnv, rows any, asJSON bool, table func(io.Writer) error, out string, args []string, reports func(dir, cmd string) error) error {
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return err
		}
	} else if err := table(env.stdout); err != nil {
		return err
	}
	if out != "" {
		if err := reports(out, "offgrid "+strings.Join(append([]string{"bench"}, args...), " ")); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "wrote %s\n", filepath.Join(out, "{results.json,report.md,report.svg}"))
	}
	return nil
}

// benchModel loads one model and runs the cases in each grammar mode,
// adding a run per mode to res; with out, res is saved into
// out/results.json after each case. A run of prev (--resume) with the
// same settings is gone on with.
func benchModel(ctx context.Context, env *cliEnv, ref string, mopts inference.ModelOptions, copts inference.ContextOptions, cases []bench.Case, modes []string, repeats int, opts bench.AgentOptions,
	res, prev *bench.Results, out string) error {
	path, err := resolveModel(ctx, env, ref)
	if err != nil {
		return err
	}
	m, err := inference.Load(path, mopts)
	if err != nil {
		return err
	}
	defer m.Close()
	lctx, err := m.NewContext(copts)
	if err != nil {
		return err
	}
	defer lctx.Close()
	cp := agent.NewCompleter(lctx, agent.InfoFromModel(m))
	name := strings.TrimSuffix(filepath.Base(path), ".gguf")
	for _, mode := range modes {
		o := opts
		o.NoGrammar = mode == "off"
		tmpl := bench.Run{Runner: "offgrid", Model: name, Grammar: mode, ToolFormat: opts.Format, Seed: opts.Sampling.Seed, Temp: opts.Sampling.Temperature}
		if repeats > 1 {
			tmpl.Repeats = repeats
		}
		tmpl.Cases = bench.ResumeCases(prev, tmpl, cases)
		bar := newProgressBar(env.stderr, fmt.Sprintf("%s grammar %s", name, mode), caseCounts)
		res.Runs = append(res.Runs, tmpl)
		i := len(res.Runs) - 1
		// Each case's result is saved as it ends (--resume).
		var saveErr error
		run, err := bench.RunCases(ctx, tmpl, cases, bench.AgentComplete(cp, o), func(run bench.Run, total int) {
			bar.cases(len(run.Cases), total)
			res.Runs[i] = run
			if out != "" && saveErr == nil {
				saveErr = bench.WriteResults(filepath.Join(out, "results.json"), res)
			}
		})
		bar.done()
		res.Runs[i] = run
		if err == nil {
			err = saveErr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
