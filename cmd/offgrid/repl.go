package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/tools"
)

// chat is an interactive session of offgrid run.
type chat struct {
	env     *cliEnv
	ld      *loader
	lm      *loaded // the model in use; /model replaces it
	journal *tools.Journal
	out     *eventPrinter
	root    string // where the tools work, absolute
	faint   bool   // the stats line may be dimmed (stderr is a terminal)
	// notes tell the model, with the user's next message, what the user
	// did to its work between turns (/undo), so it does not go on from
	// files that are no longer there.
	notes []string
}

// errExit ends the session.
var errExit = errors.New("exit")

// runREPL reads messages and slash commands until Ctrl-D, /exit or the
// end of input. Ctrl-C cancels the reply in progress (the history keeps
// what happened) and, at the prompt, clears the line. It closes lm, or the
// model /model switched to.
func runREPL(ctx context.Context, env *cliEnv, ld *loader, lm *loaded, journal *tools.Journal, interrupts <-chan os.Signal) error {
	c := &chat{env: env, ld: ld, lm: lm, journal: journal, out: newEventPrinter(env, ld.flags.asJSON)}
	defer func() { c.lm.Close() }()
	c.root, _ = filepath.Abs(cmp.Or(ld.flags.root, "."))
	_, c.faint = terminalOut(env.stderr)
	var prompts io.Writer
	if !c.out.json {
		prompts = env.stdout
		fmt.Fprintf(env.stderr, "offgrid: %s; tools work in %s; %s tool calls. /help lists commands; Ctrl-C stops a reply, Ctrl-D exits.\n",
			lm.name, c.root, lm.ag.Format())
	}
	in := openInput(env, prompts, completer(commandNames(), c.root))
	defer in.Close()

	if interrupts == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		defer signal.Stop(ch)
		interrupts = ch
	}
	// SIGTERM or a hang-up ends the session: the reply is stopped, the
	// terminal and the history are left as they should be, the MCP servers
	// are closed (their process groups killed: os.Exit runs no deferred
	// Close), and offgrid dies of the signal.
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(terms)
	// The process-wide context ends at the first Ctrl-C; here Ctrl-C only
	// ends a reply.
	base := context.WithoutCancel(ctx)
	var mu sync.Mutex
	var cancel context.CancelFunc
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-terms:
				mu.Lock()
				if cancel != nil {
					cancel()
				}
				mu.Unlock()
				in.Close()
				ld.servers.Close()
				dieOf(sig.(syscall.Signal))
			case <-interrupts:
				mu.Lock()
				if cancel != nil {
					cancel()
				} else if !c.out.json {
					fmt.Fprint(env.stderr, "\n(Ctrl-D exits)\n> ")
				}
				mu.Unlock()
			}
		}
	}()
	for {
		text, multi, err := readMessage(in, "> ")
		switch {
		case errors.Is(err, errAborted):
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if !multi {
			in.addHistory(text)
		}
		if name, arg, ok := parseSlash(text); ok && !multi {
			err := c.command(base, name, arg)
			if errors.Is(err, errExit) {
				return nil
			}
			if err != nil {
				fmt.Fprintf(env.stderr, "offgrid: %v\n", err)
			}
			continue
		}
		tctx, cf := context.WithCancel(base)
		mu.Lock()
		cancel = cf
		mu.Unlock()
		if beforeSend != nil {
			beforeSend()
		}
		turn, err := c.lm.ag.Send(tctx, c.message(text), c.out.event)
		mu.Lock()
		cancel = nil
		mu.Unlock()
		cf()
		c.out.endLine()
		if err != nil && !errors.Is(err, agent.ErrInterrupted) && !c.out.json {
			fmt.Fprintf(env.stderr, "offgrid: %v\n", err)
		}
		if !c.out.json && turn.Replies > 0 {
			c.statsLine(turn)
		}
	}
}

// message is the text sent to the model for what the user typed: the
// notes of what happened since the last turn, in brackets, then the text.
func (c *chat) message(text string) string {
	text = strings.TrimSpace(text)
	if len(c.notes) == 0 {
		return text
	}
	note := "[" + strings.Join(c.notes, " ") + "]"
	c.notes = nil
	return note + "\n\n" + text
}

// statsLine shows the speed of the turn's replies and how full the
// context window is.
func (c *chat) statsLine(turn agent.Turn) {
	s := turn.Stats
	line := fmt.Sprintf("%d tokens, %.1f tokens/s", s.Generated, s.GenerateTokensPerSecond())
	if l := c.out.last; l != nil {
		used, size := l.PromptTokens+l.Generated, c.lm.sess.Context.Size()
		line += fmt.Sprintf(" · context %d/%d tokens (%d%%)", used, size, percent(used, size))
	}
	if c.faint {
		line = "\x1b[2m" + line + "\x1b[0m"
	}
	fmt.Fprintln(c.env.stderr, line)
}

func percent(n, of int) int {
	if of <= 0 {
		return 0
	}
	return (100*n + of/2) / of
}

// slashCommand is one of the REPL's commands.
type slashCommand struct {
	name, args, help string
	run              func(c *chat, ctx context.Context, arg string) error
}

func slashCommands() []slashCommand {
	return []slashCommand{
		{"/help", "", "show this help", (*chat).help},
		{"/tools", "", "list the tools: name, risk, what each does", (*chat).listTools},
		{"/tasks", "", "show the task list", (*chat).tasks},
		{"/context", "", "show how full the context window is", (*chat).contextUse},
		{"/clear", "", "start a new conversation (empties the KV cache)", (*chat).clear},
		{"/model", "[NAME]", "switch to another model, keeping the conversation", (*chat).model},
		{"/save", "FILE", "save the conversation as JSON", (*chat).save},
		{"/load", "FILE", "replace the conversation with one saved", (*chat).load},
		{"/undo", "[force]", "revert the last file change a tool made", (*chat).undo},
		{"/exit", "", "leave (also /quit, Ctrl-D)", func(*chat, context.Context, string) error { return errExit }},
	}
}

func commandNames() []string {
	var names []string
	for _, sc := range slashCommands() {
		names = append(names, sc.name)
	}
	return names
}

// parseSlash splits a line that starts with a slash command into the
// command and its argument. A line that starts with a slash not followed
// by a letter (or with a space) is a message.
func parseSlash(line string) (name, arg string, ok bool) {
	if len(line) < 2 || line[0] != '/' || !(line[1] >= 'a' && line[1] <= 'z' || line[1] >= 'A' && line[1] <= 'Z') {
		return "", "", false
	}
	name, arg, _ = strings.Cut(line, " ")
	return strings.ToLower(name), strings.TrimSpace(arg), true
}

// command runs one slash command.
func (c *chat) command(ctx context.Context, name, arg string) error {
	if name == "/quit" {
		name = "/exit"
	}
	for _, sc := range slashCommands() {
		if sc.name == name {
			if sc.args == "" && arg != "" {
				return fmt.Errorf("%s takes no argument", name)
			}
			if strings.HasPrefix(sc.args, "FILE") && arg == "" {
				return fmt.Errorf("usage: %s %s", name, sc.args)
			}
			return sc.run(c, ctx, arg)
		}
	}
	return fmt.Errorf("unknown command %s; /help lists the commands (start a message with a space to send it as it is)", name)
}

func (c *chat) help(context.Context, string) error {
	w := tabwriter.NewWriter(c.env.stdout, 0, 0, 2, ' ', 0)
	for _, sc := range slashCommands() {
		fmt.Fprintf(w, "  %s %s\t%s\n", sc.name, sc.args, sc.help)
	}
	w.Flush()
	fmt.Fprintf(c.env.stdout, "\n"+`Start with """ and end with """ to send several lines. Tab completes commands and file names;`+
		"\nthe arrows edit the line and walk the history. Ctrl-C stops a reply or clears the line; Ctrl-D exits.\n"+
		"/undo reverts changes of write_file, replace_lines and insert_lines, not of bash commands;\n"+
		"the model is told of it with your next message.\n")
	return nil
}

func (c *chat) listTools(context.Context, string) error {
	w := tabwriter.NewWriter(c.env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tRISK\tDESCRIPTION")
	for _, t := range c.ld.reg.Tools() {
		fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name, t.Risk, firstSentence(t.Description, 80))
	}
	return w.Flush()
}

// firstSentence is the first sentence of s, cut to n runes.
func firstSentence(s string, n int) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func (c *chat) tasks(ctx context.Context, _ string) error {
	res := c.ld.reg.Execute(ctx, "list_tasks", json.RawMessage(`{}`))
	if !res.Success {
		return errors.New(res.Message())
	}
	fmt.Fprint(c.env.stdout, strings.TrimRight(res.Text(), "\n")+"\n")
	return nil
}

func (c *chat) contextUse(context.Context, string) error {
	size := c.lm.sess.Context.Size()
	u, err := c.lm.ag.Usage()
	if err != nil {
		return fmt.Errorf("counting the context: %w", err)
	}
	used := u.Fixed + u.History
	w := c.env.stdout
	fmt.Fprintf(w, "context window  %6d tokens\n", size)
	fmt.Fprintf(w, "system + tools  %6d tokens (%d%%)\n", u.Fixed, percent(u.Fixed, size))
	fmt.Fprintf(w, "conversation    %6d tokens (%d%%, %d messages)\n", u.History, percent(u.History, size), len(c.lm.ag.History()))
	fmt.Fprintf(w, "free            %6d tokens (%d%%)\n", size-used, percent(size-used, size))
	if l := c.out.last; l != nil && l.PromptTokens > 0 {
		fmt.Fprintf(w, "prompt cache    %6d of the last prompt's %d tokens were reused from the KV cache (%d%%)\n",
			l.PromptReused, l.PromptTokens, percent(l.PromptReused, l.PromptTokens))
	}
	if cs := c.lm.ag.Compactions(); len(cs) > 0 {
		results, turns := 0, 0
		for _, x := range cs {
			results, turns = results+x.Results, turns+x.Turns
		}
		fmt.Fprintf(w, "compactions     %6d (%d tool results summarised, %d earlier turns removed); the last: %s\n",
			len(cs), results, turns, cs[len(cs)-1])
	}
	return nil
}

func (c *chat) clear(context.Context, string) error {
	c.notes = nil
	c.lm.ag.Reset()
	c.lm.sess.Context.Reset()
	c.out.last = nil
	fmt.Fprintln(c.env.stderr, "(new conversation)")
	return nil
}

func (c *chat) model(ctx context.Context, ref string) error {
	if ref == "" {
		fmt.Fprintf(c.env.stdout, "%s (%s)\n", c.lm.name, c.lm.path)
		return nil
	}
	lm, err := c.ld.load(ctx, ref)
	if err != nil {
		return err
	}
	// The replies as generated are in the old model's format; the new
	// one is shown the calls in its own.
	hist := c.lm.ag.History()
	for i := range hist {
		hist[i].Raw = ""
	}
	if err := lm.ag.SetHistory(hist); err != nil {
		lm.Close()
		return err
	}
	c.lm.Close()
	c.lm, c.out.last = lm, nil
	fmt.Fprintf(c.env.stderr, "offgrid: now %s; %s tool calls\n", lm.name, lm.ag.Format())
	return nil
}

func (c *chat) save(_ context.Context, file string) error {
	data, err := marshalConversation(c.lm.name, c.lm.ag.History())
	if err != nil {
		return err
	}
	path := expandHome(file, c.env.getenv)
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	fmt.Fprintf(c.env.stderr, "saved %d messages to %s\n", len(c.lm.ag.History()), path)
	return nil
}

func (c *chat) load(_ context.Context, file string) error {
	path := expandHome(file, c.env.getenv)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	model, msgs, err := unmarshalConversation(data)
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	if model != c.lm.name {
		for i := range msgs {
			msgs[i].Raw = ""
		}
	}
	if err := c.lm.ag.SetHistory(msgs); err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	c.ld.reg.Forget() // the files read in this session are not in the loaded one
	c.out.last, c.notes = nil, nil
	fmt.Fprintf(c.env.stderr, "loaded %d messages from %s\n", len(msgs), path)
	return nil
}

func (c *chat) undo(_ context.Context, arg string) error {
	if arg != "" && arg != "force" {
		return fmt.Errorf("usage: /undo [force]")
	}
	ch, err := c.journal.Undo(arg == "force")
	switch {
	case errors.Is(err, tools.ErrNothingToUndo):
		return errors.New("nothing to undo: no tool has changed a file in this session")
	case errors.Is(err, tools.ErrChangedSince):
		return fmt.Errorf("%w; '/undo force' reverts it anyway (the newer content is lost)", err)
	case err != nil:
		return err
	}
	if ch.Existed {
		fmt.Fprintf(c.env.stdout, "restored %s (%d bytes, as before the tool wrote it)", ch.Path, ch.Size)
		c.notes = append(c.notes, fmt.Sprintf("The user undid the last change a tool made to %s: it holds its earlier content again.", ch.Path))
	} else {
		fmt.Fprintf(c.env.stdout, "removed %s (a tool had created it)", ch.Path)
		c.notes = append(c.notes, fmt.Sprintf("The user undid the creation of %s: it no longer exists.", ch.Path))
	}
	if n := c.journal.Len(); n > 0 {
		fmt.Fprintf(c.env.stdout, "; %d more to undo", n)
	}
	fmt.Fprintln(c.env.stdout)
	return nil
}

// expandHome expands a leading ~/ to the home directory.
func expandHome(path string, getenv func(string) string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok && getenv("HOME") != "" {
		return filepath.Join(getenv("HOME"), rest)
	}
	return path
}
