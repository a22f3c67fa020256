package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/spf13/pflag"
)

// loopSettings are what the command line says of the agent's loop over a
// model's profile (see launch.Settings, the one mapping to options).
type loopSettings = launch.Settings

// usageSetting turns a setting that cannot apply into a usage error
// naming its flag.
func usageSetting(err error) error {
	var se *launch.SettingError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: --%s: %v", errUsage, se.Setting, se.Err)
	}
	return err
}

// checkLoop reports a setting that cannot apply to any model, before one
// is loaded.
func checkLoop(s loopSettings) error { return usageSetting(s.Check()) }

// profileFor returns the profile that drives the model at path (see
// launch.ProfileFor).
func profileFor(env *cliEnv, s loopSettings, path string, info agent.ModelInfo) (agent.Profile, error) {
	p, err := launch.ProfileFor(env.launch(), s, path, info)
	return p, usageSetting(err)
}

// applyLoop returns o driven by profile p with s over it.
func applyLoop(s loopSettings, o agent.Options, p agent.Profile) (agent.Options, error) {
	o, err := s.Apply(o, p)
	return o, usageSetting(err)
}

// assistHelp is the help of --assist.
func assistHelp() string {
	var names []string
	for _, a := range agent.Assists() {
		names = append(names, a.Name)
	}
	return "assists over the model's profile: NAME,… replaces them, +NAME adds one, -NAME removes one, none removes all (" + strings.Join(names, ", ") + "; 'offgrid help run' describes each)"
}

// assistList describes each assist, one per line, for run's help.
func assistList() string {
	var b strings.Builder
	b.WriteString("Assists (the model's profile picks them; --assist edits the choice):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, a := range agent.Assists() {
		fmt.Fprintf(tw, "  %s\t%s\n", a.Name, a.Doc)
	}
	tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// profileHelp is the help of --profile.
func profileHelp() string {
	var names []string
	for _, p := range agent.Profiles() {
		names = append(names, p.Name)
	}
	return "the agent profile: a name (" + strings.Join(names, ", ") + ") or a JSON file; default: the catalog model's, else its template family's"
}

// assistFlags adds a hidden boolean flag per assist, by its name
// (--read-first, --rewrite, …): the tuning flags --assist replaced, kept
// as aliases. The returned function gives those given as an --assist
// list ("+read-first,-rewrite").
func assistFlags(fs *pflag.FlagSet) func() string {
	for _, a := range agent.Assists() {
		if fs.Lookup(a.Name) == nil {
			fs.Bool(a.Name, false, a.Doc)
			fs.MarkHidden(a.Name)
		}
	}
	return func() string {
		var spec []string
		for _, a := range agent.Assists() {
			f := fs.Lookup(a.Name)
			if f == nil || !f.Changed {
				continue
			}
			if on, _ := strconv.ParseBool(f.Value.String()); on {
				spec = append(spec, "+"+a.Name)
			} else {
				spec = append(spec, "-"+a.Name)
			}
		}
		return strings.Join(spec, ",")
	}
}

// joinSpecs joins --assist lists.
func joinSpecs(specs ...string) string {
	var out []string
	for _, s := range specs {
		if s = strings.Trim(s, ", "); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, ",")
}
