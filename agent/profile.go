package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// An Assist is one named way offgrid helps a small model through a turn,
// beyond the loop itself: reading the files a request names first, having
// the model rewrite a file whole, and so on. Each is an Options field,
// documented there; a Profile names the assists a model runs with.
type Assist struct {
	// Name is how profiles and the --assist flag name it, e.g. "read-first".
	Name string
	// Doc says in one line what it does.
	Doc string
	// field is the Options field it sets.
	field func(*Options) *bool
}

// Assists returns every assist, in the order they act in a turn.
func Assists() []Assist {
	return []Assist{
		{"tools-by-topic", "offer the file, clock, task and command tools only to requests the model chooses need them", func(o *Options) *bool { return &o.ToolsByTopic }},
		{"sure-change", "a change to the files the model chose less than 0.7 sure, for a request that names no file, is chosen again among the other needs (with tools-by-topic, rewrite, read-answer, locate or search-first)", func(o *Options) *bool { return &o.SureChange }},
		{"locate", "for a request about the files that names none, the model chooses the file and offgrid reads it (with read-first)", func(o *Options) *bool { return &o.Locate }},
		{"search-first", "for a request about the files that names none, offgrid searches for the words the model gives and reads the best file (with read-first); so too for a request whose answer, written without a look, gives a contact or a date nothing returned", func(o *Options) *bool { return &o.SearchFirst }},
		{"files-language", "a folder whose files the model names in a language other than English is searched for the request's own words too (with search-first)", func(o *Options) *bool { return &o.FilesLanguage }},
		{"table-first", "a question the model chooses is answered from a table's rows is searched for in the folder's tables first (with search-first)", func(o *Options) *bool { return &o.TableFirst }},
		{"read-first", "offgrid reads the files a request names before the model's first reply, and lists the folders a listing names (the working directory when it names none)", func(o *Options) *bool { return &o.ReadFirst }},
		{"find-first", "the first reply to a request about the files that names none must search (grep_search), not read a guessed path", func(o *Options) *bool { return &o.FindFirst }},
		{"look-first", "the first reply to a request about the files must be a call", func(o *Options) *bool { return &o.LookFirst }},
		{"rewrite", "a change to the one file read first, or a new file, is written whole by the model; offgrid edits the lines that differ", func(o *Options) *bool { return &o.Rewrite }},
		{"edit-line", "a change the rewrite left undone is made at a line that holds a name the request holds: the model chooses the line, then to delete it, change it or add lines after it (with rewrite)", func(o *Options) *bool { return &o.EditLine }},
		{"value-edit", "a change the rewrite left undone that writes a number is made at one line: the model chooses the line with one of its numbers set to the request's (with rewrite)", func(o *Options) *bool { return &o.ValueEdit }},
		{"diverge", "lines of a file to change that the model wrote back as they were are written again from the token where the model most nearly wrote another (with rewrite)", func(o *Options) *bool { return &o.Diverge }},
		{"read-answer", "a question about the files read first is answered from them without tools (with read-first)", func(o *Options) *bool { return &o.ReadAnswer }},
		{"table-query", "a question answered from a table read first has the model choose a query of its rows and a column; offgrid computes the figure (with read-answer)", func(o *Options) *bool { return &o.TableQuery }},
		{"read-cited", "an answer that names one file the turn did not read, after one file read, has offgrid read that file and the model answer again", func(o *Options) *bool { return &o.ReadCited }},
		{"clock-answer", "the answer of a turn that read the clock begins with its date, written in the request's language; the model continues", func(o *Options) *bool { return &o.ClockAnswer }},
		{"plain-answer", "an answer after a search of the files sees the lines found and the files read plain: no line numbers, no search words, the request as written", func(o *Options) *bool { return &o.PlainAnswer }},
		{"tool-examples", "show the tools' examples (a request and the first call) beside their definitions", func(o *Options) *bool { return &o.ToolExamples }},
		{"unknown-as-text", "a call of a tool unlike every offered one is continued as text", func(o *Options) *bool { return &o.UnknownAsText }},
		{"remind", "repeat the user's request after each round of tool results", func(o *Options) *bool { return &o.Remind }},
		{"answer-after-change", "once a change succeeded, the model answers instead of calling again", func(o *Options) *bool { return &o.AnswerAfterChange }},
	}
}

// ErrUnknownAssist is returned for an assist name that Assists does not list.
var ErrUnknownAssist = errors.New("agent: unknown assist")

func lookupAssist(name string) (Assist, error) {
	for _, a := range Assists() {
		if a.Name == name {
			return a, nil
		}
	}
	var names []string
	for _, a := range Assists() {
		names = append(names, a.Name)
	}
	return Assist{}, fmt.Errorf("%w %q (want one of %s)", ErrUnknownAssist, name, strings.Join(names, ", "))
}

// AssistNames returns the names of the assists o turns on, in the order
// of Assists.
func (o Options) AssistNames() []string {
	var on []string
	for _, a := range Assists() {
		if *a.field(&o) {
			on = append(on, a.Name)
		}
	}
	return on
}

// SetAssists turns on the assists named and every other one off.
func (o *Options) SetAssists(names []string) error {
	for _, n := range names {
		if _, err := lookupAssist(n); err != nil {
			return err
		}
	}
	for _, a := range Assists() {
		*a.field(o) = slices.Contains(names, a.Name)
	}
	return nil
}

// EditAssists applies spec, a comma-separated list as the --assist flag
// takes it, to the assists of base: bare names replace the set ("none"
// empties it), "+NAME" adds one and "-NAME" removes one, in that order.
// "" leaves base as it is. The result is in the order of Assists.
func EditAssists(base []string, spec string) ([]string, error) {
	set := slices.Clone(base)
	var add, remove []string
	replaced := false
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		var list *[]string
		switch {
		case f == "":
			continue
		case f == "none":
			if !replaced {
				set, replaced = nil, true
			}
			continue
		case strings.HasPrefix(f, "+"):
			f, list = f[1:], &add
		case strings.HasPrefix(f, "-"):
			f, list = f[1:], &remove
		default:
			if !replaced {
				set, replaced = nil, true
			}
			list = &set
		}
		if _, err := lookupAssist(f); err != nil {
			return nil, err
		}
		*list = append(*list, f)
	}
	var out []string
	for _, a := range Assists() {
		if (slices.Contains(set, a.Name) || slices.Contains(add, a.Name)) && !slices.Contains(remove, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out, nil
}

// A Profile is how the agent drives a model: the loop's settings and the
// assists it runs, measured with `offgrid bench --agent`. A catalog model
// names its profile; another model gets its template family's
// (FamilyProfile); a user may give one of their own (ReadProfile).
// Settings left empty are the loop's defaults.
type Profile struct {
	// Name names the profile, e.g. "qwen2.5-coder-0.5b".
	Name string `json:"name"`
	// ToolChoice, Results, OnRepeat and Answer are the Options fields of
	// those names.
	ToolChoice grammar.ToolChoice `json:"tool_choice,omitempty"`
	Results    ResultStyle        `json:"results,omitempty"`
	OnRepeat   RepeatPolicy       `json:"on_repeat,omitempty"`
	Answer     AnswerStyle        `json:"answer,omitempty"`
	// Assists names the assists on (see Assists); the others are off.
	Assists []string `json:"assists,omitempty"`
	// Temperature, when set, is the sampling temperature.
	Temperature *float32 `json:"temperature,omitempty"`
}

// Check reports a setting or an assist the profile names that offgrid
// does not know.
func (p Profile) Check() error {
	_, err := p.Apply(Options{})
	return err
}

// Apply returns o with the profile's settings and assists.
func (p Profile) Apply(o Options) (Options, error) {
	if p.ToolChoice != "" {
		if _, err := grammar.ParseToolChoice(string(p.ToolChoice)); err != nil {
			return o, fmt.Errorf("profile %s: %w", p.Name, err)
		}
		o.ToolChoice = p.ToolChoice
	}
	var err error
	if o.Results, err = ParseResultStyle(string(p.Results)); err != nil {
		return o, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if o.OnRepeat, err = ParseRepeatPolicy(string(p.OnRepeat)); err != nil {
		return o, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if o.Answer, err = ParseAnswerStyle(string(p.Answer)); err != nil {
		return o, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if err := o.SetAssists(p.Assists); err != nil {
		return o, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if p.Temperature != nil {
		o.Sampling.Temperature = *p.Temperature
	}
	return o, nil
}

// Profiles returns offgrid's profiles: one per catalog model, each
// measured on the agent suites (see docs/benchmarks.md), then the
// families' (FamilyProfile).
func Profiles() []Profile {
	greedy := func() *float32 { t := float32(0); return &t }
	return []Profile{
		// search-first: +16 tasks of the general suite's test split (16
		// gained, 0 lost, p < 0.001; docs/benchmarks.md, 2026-11-26).
		// clock-answer: the 8 dev time tasks 3 -> 5 (stop 56).
		// table-query: +9 -1 on the test split (127 tasks, p = 0.02;
		// every change on a question it answered; stop 69).
		// files-language and table-first together: +8 -1 on the test
		// split's 86 searched questions in folders with tables (p = 0.04;
		// alone, each was within noise; stop 73).
		{Name: "qwen2.5-coder-0.5b", ToolChoice: grammar.Auto, Results: ResultsCompact, OnRepeat: RepeatAnswer, Answer: AnswerSeparate,
			Assists:     []string{"tools-by-topic", "search-first", "files-language", "table-first", "read-first", "look-first", "rewrite", "read-answer", "table-query", "clock-answer", "plain-answer", "answer-after-change"},
			Temperature: greedy()},
		// --on-repeat another: 36/47 tasks against 34 with answer (bench --agent, 2c60b51).
		// clock-answer: the general suite's 8 dev time tasks 3 -> 5 (stop 56).
		// The 0.5B's search-first, files-language, table-first,
		// look-first, table-query and plain-answer: 25 -> 35 of 54 tasks
		// of the general suite's dev split (+12 -2, p = 0.013; stop 82).
		{Name: "qwen2.5-coder-1.5b", ToolChoice: grammar.Auto, Results: ResultsCompact, OnRepeat: RepeatAnother, Answer: AnswerSeparate,
			Assists:     qwenAssists(),
			Temperature: greedy()},
		{Name: "gemma3-270m", ToolChoice: grammar.Auto, Results: ResultsCompact, OnRepeat: RepeatAnswer,
			Assists: []string{"remind"}, Temperature: greedy()},
		// Any Qwen2 or Qwen2.5 model outside the catalog: the 1.5B's.
		{Name: "qwen2.5", ToolChoice: grammar.Auto, Results: ResultsCompact, OnRepeat: RepeatAnother, Answer: AnswerSeparate,
			Assists: qwenAssists()},
		// Any other model: the loop alone.
		{Name: "plain"},
	}
}

// qwenAssists returns the assists of the 1.5B's profile, which any
// other Qwen2.5 model gets too.
func qwenAssists() []string {
	return []string{"tools-by-topic", "sure-change", "search-first", "files-language", "table-first", "read-first", "look-first", "rewrite", "read-answer", "table-query", "clock-answer", "plain-answer", "unknown-as-text", "answer-after-change"}
}

// ErrUnknownProfile is returned for a profile name Profiles does not list.
var ErrUnknownProfile = errors.New("agent: unknown profile")

// LookupProfile returns offgrid's profile named name.
func LookupProfile(name string) (Profile, error) {
	var names []string
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("%w %q (want one of %s, or a profile file)", ErrUnknownProfile, name, strings.Join(names, ", "))
}

// FamilyProfile returns the profile of a model outside the catalog, by
// its template family: the Qwen2 architecture (every Qwen2 and Qwen2.5
// model) gets "qwen2.5", any other model "plain".
func FamilyProfile(info ModelInfo) Profile {
	name := "plain"
	if strings.HasPrefix(info.Architecture, "qwen2") && !strings.HasPrefix(info.Architecture, "qwen2vl") {
		name = "qwen2.5"
	}
	p, _ := LookupProfile(name)
	return p
}

// ReadProfile reads a profile from a JSON file, e.g.
//
//	{"name": "mine", "on_repeat": "answer", "answer": "separate",
//	 "assists": ["read-first", "rewrite"]}
//
// A profile without a name is named for the file.
func ReadProfile(path string) (Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("agent: profile: %w", err)
	}
	var p Profile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Profile{}, fmt.Errorf("agent: profile %s: %w", path, err)
	}
	if p.Name == "" {
		p.Name = path
	}
	if err := p.Check(); err != nil {
		return Profile{}, err
	}
	return p, nil
}
