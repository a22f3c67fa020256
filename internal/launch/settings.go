//go:build cgo

package launch

import (
	"errors"
	"os"
	"strings"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
)

// Settings are what a user says of the agent's loop over a model's
// profile; "" leaves the profile's setting. `offgrid run` has one,
// `offgrid bench agent` one per configuration it compares, a library
// agent one from its options.
type Settings struct {
	Profile    string // a profile's name or a JSON file; "" is the model's own
	ToolChoice string // auto, required or none
	Results    string // compact or full
	OnRepeat   string // stop, answer or another
	Answer     string // inline or separate
	Assist     string // an --assist list: NAME,… replaces, +NAME adds, -NAME removes, none
	KeepTemp   bool   // a temperature was given: the profile's does not apply
}

// SettingError is a setting that cannot apply: Setting names it as the
// command line does ("assist", "profile", …).
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

func settingErr(name string, err error) error {
	var se *SettingError
	if errors.As(err, &se) {
		return err
	}
	return &SettingError{Setting: name, Err: err}
}

// Check reports a setting that cannot apply to any model: an unknown
// assist or setting, a profile that cannot be read. It is Apply's check,
// made before a model is loaded.
func (s Settings) Check() error {
	p := agent.Profile{Name: "plain"}
	if s.Profile != "" {
		var err error
		if p, err = ProfileFor(Env{}, s, "", agent.ModelInfo{}); err != nil {
			return err
		}
	}
	_, err := s.Apply(agent.Options{}, p)
	return err
}

// ProfileFor returns the profile that drives the model at path: the one
// s names, else the catalog model's, else its template family's.
func ProfileFor(env Env, s Settings, path string, info agent.ModelInfo) (agent.Profile, error) {
	if s.Profile != "" {
		p, err := agent.LookupProfile(s.Profile)
		if _, serr := os.Stat(s.Profile); err != nil && (serr == nil || strings.HasSuffix(s.Profile, ".json") || strings.ContainsRune(s.Profile, os.PathSeparator)) {
			p, err = agent.ReadProfile(s.Profile) // a file
		}
		if err != nil {
			return p, settingErr("profile", err)
		}
		return p, nil
	}
	if path != "" {
		if name, ok := CatalogProfile(env, path); ok {
			if p, err := agent.LookupProfile(name); err == nil {
				return p, nil
			}
		}
	}
	return agent.FamilyProfile(info), nil
}

// Apply returns o driven by profile p with the settings given over it:
// the one mapping from a profile and settings to agent options.
func (s Settings) Apply(o agent.Options, p agent.Profile) (agent.Options, error) {
	temp := o.Sampling.Temperature
	o, err := p.Apply(o)
	if err != nil {
		return o, settingErr("profile", err)
	}
	if s.KeepTemp {
		o.Sampling.Temperature = temp
	}
	if s.ToolChoice != "" {
		if o.ToolChoice, err = grammar.ParseToolChoice(s.ToolChoice); err != nil {
			return o, settingErr("tool-choice", err)
		}
	}
	if s.Results != "" {
		if o.Results, err = agent.ParseResultStyle(s.Results); err != nil {
			return o, settingErr("results", err)
		}
	}
	if s.OnRepeat != "" {
		if o.OnRepeat, err = agent.ParseRepeatPolicy(s.OnRepeat); err != nil {
			return o, settingErr("on-repeat", err)
		}
	}
	if s.Answer != "" {
		if o.Answer, err = agent.ParseAnswerStyle(s.Answer); err != nil {
			return o, settingErr("answer", err)
		}
	}
	names, err := agent.EditAssists(o.AssistNames(), s.Assist)
	if err != nil {
		return o, settingErr("assist", err)
	}
	if err := o.SetAssists(names); err != nil {
		return o, settingErr("assist", err)
	}
	return o, nil
}
