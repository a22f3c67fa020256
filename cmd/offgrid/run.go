package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/tools"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

const runSynopsis = `run [-m MODEL] [-p PROMPT] [--root DIR] [flags]

Chat with a model that can call tools in DIR (default: the current
directory). Without -p it is interactive: Ctrl-C stops the current reply,
Ctrl-D exits. With -p it answers once and exits.`

// runFlags are the flags of offgrid run.
type runFlags struct {
	model, prompt, root, system string
	chatTemplate                string // --chat-template-file's text
	maxTokens                   int
	toolChoice, toolFormat      string
	parallel, noGrammar, asJSON bool
	verbosePrompt               bool
	compactTools                bool
	curator                     string
	noPromptCache               bool
	resultRole                  string
	loop                        loopSettings // the loop's settings over the model's profile
	maxIterations, maxToolCalls int
	engine                      *engineFlags
	perm                        *permFlags
	mcp                         *mcpFlags
}

// llamaAliases rewrites llama.cpp's multi-letter single-dash flags, which
// pflag cannot express, to their long names.
func llamaAliases(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "-ngl":
			a = "--gpu-layers"
		case strings.HasPrefix(a, "-ngl="):
			a = "--gpu-layers=" + strings.TrimPrefix(a, "-ngl=")
		}
		out[i] = a
	}
	return out
}

func cmdRun(ctx context.Context, env *cliEnv, args []string) error {
	return runCommand(ctx, env, args, nil)
}

// runCommand is cmdRun with the source of Ctrl-C (interrupts) injectable
// for tests; nil means the process's SIGINT.
func runCommand(ctx context.Context, env *cliEnv, args []string, interrupts <-chan os.Signal) error {
	fs := newFlagSet(env, "run", runSynopsis+"\n\n"+assistList())
	var f runFlags
	fs.StringVarP(&f.model, "model", "m", "", "model: a store or catalog name, a GGUF path or URL (http, https, hf://OWNER/REPO/FILE.gguf); default: the default model")
	fs.StringVarP(&f.prompt, "prompt", "p", "", "answer this prompt and exit (default: interactive)")
	fs.StringVar(&f.root, "root", "", "the directory the tools work in (default: the current directory)")
	fs.StringVar(&f.system, "system", "", "system prompt")
	promptFile := fs.StringP("file", "f", "", "answer the prompt in FILE and exit, as -p does (llama.cpp's -f)")
	systemFile := fs.String("system-prompt-file", "", "the system prompt, from FILE")
	templateFile := fs.String("chat-template-file", "", "a Jinja chat template from FILE, in place of the model's own")
	f.engine = addEngineFlags(fs, launch.DefaultContextSize, "context window in tokens (0: the model's trained context, if memory allows); raised when the tool definitions need it", inference.DefaultSampling())
	fs.IntVarP(&f.maxTokens, "max-tokens", "n", launch.DefaultMaxTokens, "cap on the tokens of each reply (0: no cap)")
	fs.IntVar(&f.maxTokens, "n-predict", launch.DefaultMaxTokens, "llama.cpp's name of --max-tokens")
	fs.MarkHidden("n-predict")
	fs.StringVar(&f.toolChoice, "tool-choice", "auto", "auto (text or calls), required (call a tool first) or none (no tools)")
	fs.StringVar(&f.toolFormat, "tool-format", "auto", "tool-call format: auto (from the chat template), generic, hermes, llama3, mistral or pythonic")
	fs.BoolVar(&f.parallel, "parallel", false, "allow several tool calls in one reply")
	fs.IntVar(&f.maxIterations, "max-iterations", launch.DefaultMaxIterations, "rounds of tool calls per message")
	fs.IntVar(&f.maxToolCalls, "max-tool-calls", launch.DefaultMaxToolCalls, "tool calls per reply")
	grammarMode := fs.String("grammar", "on", "constrain tool calls with the tool grammar: on, or off (for comparison), as bench's --grammar")
	fs.BoolVar(&f.noGrammar, "no-grammar", false, "--grammar off")
	fs.MarkHidden("no-grammar")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per event on stdout, nothing else")
	fs.BoolVar(&f.noPromptCache, "no-prompt-cache", false, "neither load nor save the prompt cache (the system prompt and tools' decoded state in $XDG_CACHE_HOME/offgrid/prompts)")
	toolsPrompt := fs.String("tools-prompt", "template", "how the tools are described: template (the chat template's JSON schemas) or compact (name(args): description), as bench's --tools-prompt")
	fs.BoolVar(&f.compactTools, "compact-tools", false, "--tools-prompt compact")
	fs.MarkHidden("compact-tools")
	fs.StringVar(&f.curator, "curator", "ranked", "what read_file shows of a long file read whole: ranked (the parts that share the request's words), model (the model picks among those; slower) or off (the file from its top)")
	fs.StringVar(&f.loop.Profile, "profile", "", profileHelp())
	fs.StringVar(&f.loop.Assist, "assist", "", assistHelp())
	fs.BoolVar(&f.verbosePrompt, "verbose-prompt", false, "print each rendered prompt and the model's raw reply to stderr")
	fs.StringVar(&f.resultRole, "result-role", "tool", "show tool results in the template's tool role or a user message: tool or user")
	// Loop settings a profile holds, for experiments.
	fs.StringVar(&f.loop.OnRepeat, "on-repeat", "", "a repeated identical call in a turn: stop, answer or another (default: the profile's)")
	fs.StringVar(&f.loop.Answer, "answer", "", "where the model answers after a repeat or a change: inline or separate (default: the profile's)")
	fs.StringVar(&f.loop.Results, "results", "", "how tool results are shown to the model: compact or full (default: the profile's)")
	for _, name := range []string{"on-repeat", "answer", "results"} {
		fs.MarkHidden(name)
	}
	assistAliases := assistFlags(fs)
	f.perm = addPermFlags(fs)
	f.mcp = addMCPFlags(fs)
	if err := parseWithConfig(env, fs, "run", nil, llamaAliases(args)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (quote the prompt and pass it with -p)", errUsage, fs.Arg(0))
	}
	// One name per idea in run and bench; the old spellings stay hidden.
	for _, c := range []struct {
		flag, value, on, off string
		to                   *bool
	}{{"grammar", *grammarMode, "off", "on", &f.noGrammar}, {"tools-prompt", *toolsPrompt, "compact", "template", &f.compactTools}} {
		switch {
		case !fs.Changed(c.flag):
		case c.value == c.on:
			*c.to = true
		case c.value == c.off:
			*c.to = false
		default:
			return fmt.Errorf("%w: --%s: want %s or %s, not %q", errUsage, c.flag, c.off, c.on, c.value)
		}
	}
	for _, in := range []struct {
		flag, path string
		to         *string
	}{{"file", *promptFile, &f.prompt}, {"system-prompt-file", *systemFile, &f.system}, {"chat-template-file", *templateFile, &f.chatTemplate}} {
		if in.path == "" {
			continue
		}
		if *in.to != "" {
			return fmt.Errorf("%w: --%s and the text it stands for were both given", errUsage, in.flag)
		}
		b, err := os.ReadFile(in.path)
		if err != nil {
			return fmt.Errorf("%w: --%s: %v", errUsage, in.flag, err)
		}
		if *in.to = strings.TrimRight(string(b), "\n"); *in.to == "" {
			return fmt.Errorf("%w: --%s: %s is empty", errUsage, in.flag, in.path)
		}
	}
	opts, err := f.agentOptions()
	if err != nil {
		return err
	}
	if fs.Changed("tool-choice") {
		f.loop.ToolChoice = f.toolChoice
	}
	f.loop.KeepTemp = fs.Changed("temp")
	f.loop.Assist = joinSpecs(f.loop.Assist, assistAliases())
	if err := checkLoop(f.loop); err != nil {
		return err
	}

	// A hang-up (the terminal closed) ends the run as SIGTERM does, the
	// MCP servers closed, rather than by the signal's default action.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()

	journal := &tools.Journal{} // for /undo
	topts := append(f.perm.toolOptions(), tools.WithJournal(journal))
	var cur *sessionCurator
	switch f.curator {
	case "ranked", "model":
		cur = newSessionCurator(env, f.engine.threads, f.curator == "model")
		topts = append(topts, tools.WithCurator(cur))
	case "off":
	default:
		return fmt.Errorf("%w: --curator: want ranked, model or off, not %q", errUsage, f.curator)
	}
	reg, servers, err := sessionTools(ctx, env, f.root, f.mcp, topts...)
	if err != nil {
		return err
	}
	// Deferred calls run as a panic unwinds this goroutine, the one the
	// agent and the REPL run on, so a panic here kills the servers'
	// process groups before offgrid dies of it (TestPanicClosesMCP).
	defer servers.Close()
	pol, prompter, err := f.perm.policy(env, reg, f.root)
	if err != nil {
		return err
	}
	if f.verbosePrompt {
		opts.Trace = func(c agent.Completion) {
			fmt.Fprintf(env.stderr, "\n──── prompt (%s, %d tokens, %d reused) ────\n%s\n──── reply (%s) ────\n%s\n────\n",
				c.Format, c.Stats.PromptTokens, c.Stats.PromptReused, c.Prompt, c.StopReason, c.Raw)
		}
	}
	ld := &loader{env: env, flags: &f, opts: opts, reg: reg, servers: servers, policy: pol, prompter: prompter, curator: cur}
	lm, err := ld.load(ctx, f.model)
	if err != nil {
		return err
	}
	if f.prompt != "" {
		defer lm.Close()
		out := newEventPrinter(env, f.asJSON)
		if beforeSend != nil {
			beforeSend()
		}
		_, err := lm.ag.Send(ctx, f.prompt, out.event)
		out.endLine()
		if errors.Is(err, agent.ErrInterrupted) {
			return ctx.Err()
		}
		return err
	}
	return runREPL(ctx, env, ld, lm, journal, interrupts)
}

// beforeSend, when set, is called before each message is sent to the
// model. Only the tests set it, to panic there and check that a panic
// still closes the MCP servers (see TestPanicClosesMCP).
var beforeSend func()

// loader opens models for offgrid run: the model's catalog settings where
// the flags do not say otherwise, a context, and an agent over the
// session's tools. The REPL's /model opens another one with it.
type loader struct {
	env      *cliEnv
	flags    *runFlags
	opts     agent.Options // from the flags, before the model's profile
	reg      *tools.Registry
	servers  *mcp.Servers // the MCP servers behind reg's tools; nil when none
	policy   agent.Policy
	prompter permission.Prompter
	curator  *sessionCurator // nil with --curator off
}

// loaded is a model ready to chat.
type loaded struct {
	m    *launch.Model
	sess *launch.Session
	ag   *agent.Agent
	cur  *curatorModel // nil without a curator
	path string
	name string
}

// Close frees the contexts and the model.
func (l *loaded) Close() {
	l.sess.Close()
	l.cur.Close()
	l.m.Close()
}

// load opens the model ref names ("" is the default) and starts an agent
// on it, as the offgrid library does (package launch).
func (ld *loader) load(ctx context.Context, ref string) (*loaded, error) {
	f := ld.flags
	m, err := launch.Open(ctx, ld.env.launch(), ref, f.engine.model())
	if err != nil {
		return nil, err
	}
	sess, err := m.Start(launch.Config{
		Options: ld.opts, Settings: f.loop,
		ContextSize: f.engine.ctxSize, Threads: f.engine.threads, BatchSize: f.engine.batch, NoPromptCache: f.noPromptCache,
		ChatTemplate: f.chatTemplate,
		Tools:        ld.reg, Policy: ld.policy, Prompter: ld.prompter,
	})
	if err != nil {
		m.Close()
		return nil, usageSetting(err)
	}
	l := &loaded{m: m, sess: sess, ag: sess.Agent, path: m.Ref.Path, name: modelName(m.Model, m.Ref.Path)}
	if ld.curator != nil {
		l.cur = ld.curator.use(m.Model, m.Ref.Path, sess.SHA256)
	}
	return l, nil
}

func modelName(m *inference.Model, path string) string {
	if n, ok := m.Meta("general.name"); ok && n != "" {
		return n
	}
	return path
}

// rootDir is the directory the tools work in.
func (f *runFlags) rootDir() string {
	if f.root == "" {
		return "."
	}
	return f.root
}

// agentOptions turns the flags into agent options.
func (f *runFlags) agentOptions() (agent.Options, error) {
	var o agent.Options
	choice, err := grammar.ParseToolChoice(f.toolChoice)
	if err != nil {
		return o, fmt.Errorf("%w: --tool-choice: %v", errUsage, err)
	}
	format, err := agent.ParseFormat(f.toolFormat)
	if err != nil {
		return o, fmt.Errorf("%w: --tool-format: %v", errUsage, err)
	}
	if f.maxIterations < 1 || f.maxToolCalls < 1 {
		return o, fmt.Errorf("%w: --max-iterations and --max-tool-calls must be at least 1", errUsage)
	}
	if f.resultRole != "tool" && f.resultRole != "user" {
		return o, fmt.Errorf("%w: --result-role: want tool or user", errUsage)
	}
	sampling, err := f.engine.sampling()
	if err != nil {
		return o, err
	}
	o = launch.Options(f.rootDir())
	o.System, o.Format, o.ToolChoice, o.Parallel, o.NoGrammar = f.system, format, choice, f.parallel, f.noGrammar
	o.Sampling = sampling
	o.MaxTokens = f.maxTokens
	o.Limits = agent.Limits{MaxIterations: f.maxIterations, MaxToolCalls: f.maxToolCalls}
	o.ResultsAsUser = f.resultRole == "user"
	o.CompactTools = f.compactTools
	return o, nil
}

// eventPrinter shows a turn's events: streamed text, each call and its
// result; or, with json, one JSON object per event.
type eventPrinter struct {
	out, errw io.Writer
	json      bool
	midLine   bool // the last text written did not end a line
	streamed  bool // text was streamed since the last tool result
	// md, if set, renders the final answer in place of the raw text
	// streamed since the last tool event (shown).
	md    *markdown
	shown strings.Builder
	// hold leaves the replies' streamed text unwritten, when the output
	// is not a terminal: a terminal's streamed reply can be replaced by
	// the checked answer, a pipe's cannot, so a pipe gets the final
	// answers only (the calls and results go to stderr), never a line
	// an answer drops (one no tool returned), nor a reply no answer
	// follows (one before a call, an interrupted one).
	hold bool
	// last holds the counters of the last reply.
	last *agent.Stats
}

// newEventPrinter returns the printer of offgrid run's output: raw text,
// answers rendered as Markdown at a terminal, or JSON events.
func newEventPrinter(env *cliEnv, asJSON bool) *eventPrinter {
	p := &eventPrinter{out: env.stdout, errw: env.stderr, json: asJSON}
	if !asJSON {
		p.md = newMarkdown(env.stdout, env.getenv)
		p.hold = p.md == nil
	}
	return p
}

// writeChecked writes what the final answer has that the text streamed
// before it (shown) has not, where the two cannot be swapped (an answer
// taller than the terminal): what offgrid added after the reply (a
// listing's names, a line of its own) follows it; an answer offgrid
// changed is written whole after it, below a line that says it takes the
// reply's place, since the reply may hold what the answer dropped.
func (p *eventPrinter) writeChecked(shown, final string) {
	s, f := strings.TrimSpace(shown), strings.TrimSpace(final)
	switch {
	case f == s || f == "":
	case strings.HasPrefix(f, s):
		p.write(strings.TrimRight(f[len(s):], "\n"))
	default:
		p.endLine()
		p.write("\n" + withdrawn + "\n\n" + f)
	}
}

// withdrawn heads an answer written below the reply it replaces.
const withdrawn = "── offgrid: the checked answer, in place of the reply above ──"

// calls is where the calls and their results are written: among the
// replies at a terminal; on stderr otherwise, so that a pipe or a file
// gets the answers alone.
func (p *eventPrinter) calls() io.Writer {
	if p.hold {
		return p.errw
	}
	return p.out
}

func (p *eventPrinter) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

func (p *eventPrinter) write(s string) {
	if s == "" {
		return
	}
	fmt.Fprint(p.out, s)
	p.midLine = !strings.HasSuffix(s, "\n")
}

func (p *eventPrinter) event(e agent.Event) {
	if p.json {
		b, err := json.Marshal(e)
		if err != nil {
			b, _ = json.Marshal(agent.Event{Type: agent.EventError, Text: err.Error()})
		}
		p.out.Write(append(b, '\n'))
		return
	}
	switch e.Type {
	case agent.EventToken:
		if p.hold {
			return
		}
		p.write(e.Text)
		p.shown.WriteString(e.Text)
		p.streamed = true
	case agent.EventToolCall:
		p.shown.Reset()
		p.endLine()
		by := ""
		if e.ByAgent {
			by = " (read for the model)"
		}
		fmt.Fprintf(p.calls(), "→ %s %s%s\n", e.Tool, e.Arguments, by)
	case agent.EventToolResult:
		r := e.Record
		fmt.Fprintf(p.calls(), "%s %s (%d ms): %s\n", r.Status(), r.Name, r.Duration.Milliseconds(), r.Summary())
		if r.Cut != nil {
			fmt.Fprintf(p.calls(), "  (cut to fit the context: the model sees %s)\n", r.Cut)
		}
		p.shown.Reset()
		p.streamed = false
	case agent.EventFinal:
		shown := p.shown.String()
		p.shown.Reset()
		if !p.streamed {
			p.endLine()
			shown = ""
		}
		switch {
		case p.md != nil && strings.TrimSpace(e.Text) != "" && p.md.replace(p.out, shown, e.Text):
			p.midLine = false
		case !p.streamed:
			p.write(e.Text)
		default:
			p.writeChecked(shown, e.Text)
		}
		p.endLine()
		p.streamed = false
	case agent.EventError:
		p.shown.Reset() // lines on stderr come between
		p.endLine()
		switch {
		case e.Code == agent.ToolRetriesExhausted || e.Code == agent.ToolLoopLimitReached:
			// The final message says it.
		case e.Code != 0:
			fmt.Fprintf(p.errw, "offgrid: %s (%d): %s\n", e.Code, int(e.Code), e.Text)
		case e.Text == "interrupted":
			fmt.Fprintln(p.errw, "(interrupted)")
		}
	case agent.EventStats:
		p.last = e.Stats
	case agent.EventWarning:
		p.shown.Reset()
		p.endLine()
		fmt.Fprintf(p.errw, "warning: %s\n", e.Text)
	case agent.EventCompact:
		p.endLine()
		fmt.Fprintf(p.errw, "offgrid: %s\n", e.Text)
	}
}
