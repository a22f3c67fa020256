package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/pflag"
)

// command is one offgrid subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv carries what a command needs from the process, so tests can run
// commands in-process with their own streams and environment.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// flagsOnly, when set, is handed the flag set of run or bench, the
	// config's defaults applied, instead of the command running (see
	// offgrid config).
	flagsOnly func(*pflag.FlagSet, *config)
}

// errUsage marks an error caused by bad command-line input (exit code 2).
var errUsage = errors.New("usage")

func commands() []command {
	return []command{
		{"run", "chat with a model that can call tools", cmdRun},
		{"bench", "measure tool-call reliability on BFCL data", cmdBench},
		{"models", "manage models: ls, pull, show, verify, rm, synth", cmdModels},
		{"bundle", "write one executable that carries a model", cmdBundle},
		{"grammar", "print the GBNF grammar for a tool set", cmdGrammar},
		{"tools", "list the built-in tools or call one", cmdTools},
		{"config", "show the settings of run or bench and where each comes from", cmdConfig},
		{"completion", "print a completion script for bash, zsh or fish", cmdCompletion},
		{"version", "print the version and the engine's system info", cmdVersion},
	}
}

func main() {
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	ctx, stop := signal.NotifyContext(context.Background(), exitSignals(os.Args[1:])...)
	defer stop()
	os.Exit(runMain(ctx, env, os.Args[1:]))
}

// exitSignals are the signals that end a command by cancelling its
// context, so that it returns through its deferred clean-ups (the MCP
// servers closed, their process groups killed) instead of dying at once:
// Ctrl-C and SIGTERM for every command, and a hang-up (the terminal
// closed) too for tools, whose list and call start MCP servers. run and
// bench --agent handle a hang-up themselves (see runCommand, runREPL and
// benchAgent).
func exitSignals(args []string) []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if len(args) > 0 && args[0] == "tools" {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// runMain dispatches to a command and maps its error to an exit code.
func runMain(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) == 3 && args[0] == "help" && args[1] == "--markdown" {
		// The README's flag table of run or bench.
		t, err := flagTable(args[2])
		if err != nil {
			fmt.Fprintf(env.stderr, "offgrid help: %v\n", err)
			return 2
		}
		fmt.Fprint(env.stdout, t)
		return 0
	}
	if len(args) > 1 && args[0] == "help" {
		// offgrid help CMD [SUB] is offgrid CMD [SUB] --help.
		return runMain(ctx, env, append(slices.Clone(args[1:]), "--help"))
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, pflag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(env.stderr, "offgrid %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(env.stderr, "offgrid %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(env.stderr, "offgrid: unknown command %q\n\n", args[0])
	usage(env.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "offgrid runs a GGUF model in-process and lets it call tools, offline.")
	fmt.Fprintln(w, "\nUsage: offgrid <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'offgrid <command> -h' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(env *cliEnv, name, synopsis string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: offgrid %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and wraps a parse error as a usage error.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
