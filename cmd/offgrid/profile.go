package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/spf13/pflag"
)

// loopSettings are what the command line says of the agent's loop over
// a model's profile; "" leaves the profile's setting. `offgrid run` has
// one; `bench --agent` one per configuration it compares.
type loopSettings struct {
	profile    string // --profile: a profile's name or a file; "" is the model's own
	toolChoice string
	results    string
	onRepeat   string
	answer     string
	assist     string // --assist's list, then the hidden assist flags' (see assistFlags)
	keepTemp   bool   // --temp was given: the profile's temperature does not apply
}

// check reports a setting that cannot apply to any model: an unknown
// assist or setting, a profile that cannot be read. It is apply's check,
// made before a model is loaded.
func (s loopSettings) check() error {
	p := agent.Profile{Name: "plain"}
	if s.profile != "" {
		var err error
		if p, err = profileFor(nil, s, "", agent.ModelInfo{}); err != nil {
			return err
		}
	}
	_, err := s.apply(agent.Options{}, p)
	return err
}

// profileFor returns the profile that drives the model at path: the one
// --profile names, else the catalog model's, else its template family's.
func profileFor(env *cliEnv, s loopSettings, path string, info agent.ModelInfo) (agent.Profile, error) {
	if s.profile != "" {
		p, err := agent.LookupProfile(s.profile)
		if _, serr := os.Stat(s.profile); err != nil && (serr == nil || strings.HasSuffix(s.profile, ".json") || strings.ContainsRune(s.profile, os.PathSeparator)) {
			p, err = agent.ReadProfile(s.profile) // a file
		}
		if err != nil {
			return p, fmt.Errorf("%w: --profile: %v", errUsage, err)
		}
		return p, nil
	}
	if name, ok := catalogProfile(env, path); ok {
		if p, err := agent.LookupProfile(name); err == nil {
			return p, nil
		}
	}
	return agent.FamilyProfile(info), nil
}

// apply returns o driven by profile p with the settings given over it:
// the one mapping from a profile and flags to agent options.
func (s loopSettings) apply(o agent.Options, p agent.Profile) (agent.Options, error) {
	temp := o.Sampling.Temperature
	o, err := p.Apply(o)
	if err != nil {
		return o, err
	}
	if s.keepTemp {
		o.Sampling.Temperature = temp
	}
	if s.toolChoice != "" {
		if o.ToolChoice, err = grammar.ParseToolChoice(s.toolChoice); err != nil {
			return o, fmt.Errorf("%w: --tool-choice: %v", errUsage, err)
		}
	}
	if s.results != "" {
		if o.Results, err = agent.ParseResultStyle(s.results); err != nil {
			return o, fmt.Errorf("%w: --results: %v", errUsage, err)
		}
	}
	if s.onRepeat != "" {
		if o.OnRepeat, err = agent.ParseRepeatPolicy(s.onRepeat); err != nil {
			return o, fmt.Errorf("%w: --on-repeat: %v", errUsage, err)
		}
	}
	if s.answer != "" {
		if o.Answer, err = agent.ParseAnswerStyle(s.answer); err != nil {
			return o, fmt.Errorf("%w: --answer: %v", errUsage, err)
		}
	}
	names, err := agent.EditAssists(o.AssistNames(), s.assist)
	if err != nil {
		return o, fmt.Errorf("%w: --assist: %v", errUsage, err)
	}
	return o, o.SetAssists(names)
}

// assistHelp is the help of --assist.
func assistHelp() string {
	var names []string
	for _, a := range agent.Assists() {
		names = append(names, a.Name)
	}
	return "assists over the model's profile: NAME,… replaces them, +NAME adds one, -NAME removes one, none removes all (" + strings.Join(names, ", ") + "; see the README)"
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
