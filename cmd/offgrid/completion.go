package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

const completionSynopsis = `completion bash|zsh|fish

Print a shell completion script for offgrid's commands, sub-commands and
flags; -m completes with the store's model names, path flags with files.

  bash:  source <(offgrid completion bash)      (or save it in ~/.local/share/bash-completion/completions/offgrid)
  zsh:   source <(offgrid completion zsh)
  fish:  offgrid completion fish > ~/.config/fish/completions/offgrid.fish`

// completionWords is what completion offers: each command's sub-commands
// and flags.
type completionWords struct {
	commands []string            // the top-level commands, sorted as help shows them
	summary  map[string]string   // command → its summary
	subs     map[string][]string // command → its sub-commands
	flags    map[string][]string // command → its flags (--name and -x)
}

// fileFlags take a path; modelFlags a model.
var (
	fileFlags  = []string{"-f", "--file", "--system-prompt-file", "--chat-template-file", "--root", "--out", "--csv", "--data", "--resume", "--profile", "--mcp-config", "-o", "--output", "--exe", "--inspect"}
	modelFlags = []string{"-m", "--model"}
)

func gatherCompletion(env *cliEnv) completionWords {
	w := completionWords{summary: map[string]string{}, subs: map[string][]string{}, flags: map[string][]string{}}
	for _, c := range commands() {
		w.commands = append(w.commands, c.name)
		w.summary[c.name] = c.summary
	}
	w.commands = append(w.commands, "help")
	w.summary["help"] = "show a command's help"
	w.subs["models"] = strings.Split(modelsSubcommands, ", ")
	w.subs["bench"] = []string{"bfcl", "agent", "speed", "curator", "merge"}
	w.subs["tools"] = []string{"list", "call"}
	w.subs["completion"] = []string{"bash", "zsh", "fish"}
	w.subs["help"] = w.commands[:len(w.commands)-1]
	w.subs["config"] = []string{"run", "bench"}
	quiet := *env
	quiet.stdout, quiet.stderr = io.Discard, io.Discard
	// Each command's flag set, as offgrid config sees it; bench's, of
	// each of its modes.
	sets := map[string][]func(*cliEnv) error{
		"run": {func(e *cliEnv) error { return runCommand(context.Background(), e, nil, nil) }},
	}
	for _, sub := range []string{"bfcl", "agent", "speed", "curator"} {
		sets["bench"] = append(sets["bench"], func(e *cliEnv) error { return cmdBench(context.Background(), e, []string{sub}) })
	}
	for c, runs := range sets {
		seen := map[string]bool{}
		for _, run := range runs {
			e := quiet
			e.flagsOnly = func(fs *pflag.FlagSet, _ *config) {
				fs.VisitAll(func(f *pflag.Flag) {
					if f.Hidden || f.Deprecated != "" {
						return
					}
					seen["--"+f.Name] = true
					if f.Shorthand != "" {
						seen["-"+f.Shorthand] = true
					}
				})
			}
			run(&e)
		}
		names := make([]string, 0, len(seen))
		for n := range seen {
			names = append(names, n)
		}
		sort.Strings(names)
		w.flags[c] = names
	}
	return w
}

func cmdCompletion(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "completion", completionSynopsis)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want bash, zsh or fish", errUsage)
	}
	w := gatherCompletion(env)
	switch fs.Arg(0) {
	case "bash":
		fmt.Fprint(env.stdout, bashCompletion(w))
	case "zsh":
		// zsh runs the bash function through bashcompinit: one script to keep right.
		fmt.Fprint(env.stdout, "#compdef offgrid\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion(w))
	case "fish":
		fmt.Fprint(env.stdout, fishCompletion(w))
	default:
		return fmt.Errorf("%w: want bash, zsh or fish, not %q", errUsage, fs.Arg(0))
	}
	return nil
}

func bashCompletion(w completionWords) string {
	var b strings.Builder
	b.WriteString(`# offgrid completion for bash (offgrid completion bash)
_offgrid_models() { offgrid models ls 2>/dev/null | awk 'NR > 1 && $1 != "*" { print $1 }'; }
_offgrid() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd="${COMP_WORDS[1]}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "` + strings.Join(w.commands, " ") + `" -- "$cur"))
        return
    fi
    case "$prev" in
        ` + strings.Join(modelFlags, "|") + `) COMPREPLY=($(compgen -W "default $(_offgrid_models)" -- "$cur")); return ;;
        ` + strings.Join(fileFlags, "|") + `) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    local subs="" flags=""
    case "$cmd" in
`)
	for _, c := range w.commands {
		if len(w.subs[c]) == 0 && len(w.flags[c]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "        %s) subs=%q; flags=%q ;;\n", c, strings.Join(w.subs[c], " "), strings.Join(w.flags[c], " "))
	}
	b.WriteString(`    esac
    if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ] && [[ "$cur" != -* ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
}
complete -o default -F _offgrid offgrid
`)
	return b.String()
}

func fishCompletion(w completionWords) string {
	var b strings.Builder
	b.WriteString("# offgrid completion for fish (offgrid completion fish)\n")
	b.WriteString("complete -c offgrid -f\n")
	for _, c := range w.commands {
		fmt.Fprintf(&b, "complete -c offgrid -n __fish_use_subcommand -a %s -d %s\n", c, fishQuote(w.summary[c]))
	}
	for _, c := range w.commands {
		for _, s := range w.subs[c] {
			fmt.Fprintf(&b, "complete -c offgrid -n '__fish_seen_subcommand_from %s' -a %s\n", c, s)
		}
		for _, f := range w.flags[c] {
			opt := "-l " + strings.TrimPrefix(f, "--")
			if !strings.HasPrefix(f, "--") {
				opt = "-s " + strings.TrimPrefix(f, "-")
			}
			extra := ""
			switch {
			case slices.Contains(modelFlags, f):
				extra = " -r -a '(offgrid models ls 2>/dev/null | awk \"NR > 1 && \\$1 != \\\"*\\\" { print \\$1 }\")'"
			case slices.Contains(fileFlags, f):
				extra = " -r -F"
			}
			fmt.Fprintf(&b, "complete -c offgrid -n '__fish_seen_subcommand_from %s' %s%s\n", c, opt, extra)
		}
	}
	return b.String()
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
