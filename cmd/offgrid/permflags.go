package main

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/cmd/offgrid/internal/ui"
	"github.com/offgrid-ai/offgrid/tools"
)

// permFlags are the permission flags shared by the commands that run
// tools (tools call, run).
type permFlags struct {
	yes     bool
	allow   []string
	deny    []string
	maxRisk string
	// bashUnconfined lets bash run where the kernel cannot confine it.
	bashUnconfined bool
	// hardlinks lets the file tools open files with several hard links.
	hardlinks bool
}

func addPermFlags(fs *pflag.FlagSet) *permFlags {
	f := &permFlags{}
	fs.BoolVarP(&f.yes, "yes", "y", false, "allow every tool call without asking (--deny still wins)")
	fs.StringArrayVar(&f.allow, "allow", nil, "allow this tool without asking (repeatable)")
	fs.StringArrayVar(&f.deny, "deny", nil, "never allow this tool (repeatable)")
	fs.StringVar(&f.maxRisk, "max-risk", "safe", "allow tools up to this risk without asking: safe, medium or high")
	fs.BoolVar(&f.bashUnconfined, "bash-unconfined", false, "let bash run commands without a sandbox where the kernel cannot confine them (they can then do anything you can)")
	fs.BoolVar(&f.hardlinks, "allow-hardlinks", false, "let the file tools read and edit files with more than one hard link (such a file may be one from outside the directory, linked in)")
	return f
}

// toolOptions are the built-in tools' options the flags set.
func (f *permFlags) toolOptions() []tools.BuiltinOption {
	var opts []tools.BuiltinOption
	if f.bashUnconfined {
		opts = append(opts, tools.WithUnconfinedBash())
	}
	if f.hardlinks {
		opts = append(opts, tools.WithHardLinks())
	}
	return opts
}

// policy builds the permission policy and the prompter from the flags. The
// user is asked on the terminal when stdin is one, with previews of file
// changes against root (the tools' directory, "" for the current one);
// otherwise calls that would ask are denied. A policies-file problem is a
// warning on stderr, not an error: those tools ask instead.
func (f *permFlags) policy(env *cliEnv, reg *tools.Registry, root string) (*permission.Policy, permission.Prompter, error) {
	risk, err := tools.ParseRisk(f.maxRisk)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --max-risk: %v", errUsage, err)
	}
	for _, list := range []struct {
		flag  string
		names []string
	}{{"--allow", f.allow}, {"--deny", f.deny}} {
		for _, n := range list.names {
			if _, ok := reg.Lookup(n); !ok {
				return nil, nil, fmt.Errorf("%w: %s %s: no such tool (see offgrid tools list)", errUsage, list.flag, n)
			}
		}
	}
	file, err := permission.DefaultFile(env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "warning: %v; \"Always allow\" answers will not be remembered\n", err)
		file = ""
	}
	in, interactive := env.stdin.(*os.File)
	interactive = interactive && term.IsTerminal(int(in.Fd()))
	pol, err := permission.New(permission.Config{
		AllowAll: f.yes, Allow: slices.Clone(f.allow), Deny: slices.Clone(f.deny), MaxRisk: risk,
		Interactive: interactive, File: file,
	})
	if err != nil {
		fmt.Fprintf(env.stderr, "warning: %v\n", err)
	}
	var prompter permission.Prompter
	if interactive {
		prompter = &ui.Prompter{In: env.stdin, Out: env.stderr, Files: rootFS(cmp.Or(root, ".")),
			Accessible: env.getenv("ACCESSIBLE") != ""}
	}
	return pol, prompter, nil
}

// rootFS reads the files below a directory through an os.Root opened for
// each file, so no path leaves the directory and nothing stays open.
type rootFS string

func (d rootFS) Open(name string) (fs.File, error) {
	r, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	defer r.Close() // the file opened stays valid
	return r.FS().Open(name)
}
