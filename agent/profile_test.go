package agent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar"
)

func TestEditAssists(t *testing.T) {
	base := []string{"read-first", "rewrite"}
	for _, tc := range []struct {
		spec string
		want []string
		err  error
	}{
		{"", base, nil},
		{"+look-first", []string{"read-first", "look-first", "rewrite"}, nil},
		{"-rewrite", []string{"read-first"}, nil},
		{"+locate,-rewrite", []string{"locate", "read-first"}, nil},
		{"remind", []string{"remind"}, nil},
		{"remind, read-first", []string{"read-first", "remind"}, nil},
		{"none", nil, nil},
		{"none,+remind", []string{"remind"}, nil},
		{"remind,+rewrite,-remind", []string{"rewrite"}, nil},
		{"+read-frist", nil, ErrUnknownAssist},
		{"grounded", nil, ErrUnknownAssist},
	} {
		got, err := EditAssists(base, tc.spec)
		if !errors.Is(err, tc.err) {
			t.Errorf("EditAssists(%q): error %v, want %v", tc.spec, err, tc.err)
			continue
		}
		if err == nil && !slices.Equal(got, tc.want) {
			t.Errorf("EditAssists(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// TestAssistsFields: each assist sets its own Options field, and
// AssistNames reads back what SetAssists set.
func TestAssistsFields(t *testing.T) {
	for _, a := range Assists() {
		var o Options
		if err := o.SetAssists([]string{a.Name}); err != nil {
			t.Fatal(err)
		}
		if got := o.AssistNames(); !slices.Equal(got, []string{a.Name}) {
			t.Errorf("SetAssists(%s): AssistNames %q", a.Name, got)
		}
		if a.Doc == "" {
			t.Errorf("%s has no doc", a.Name)
		}
	}
	var o Options
	o.ReadFirst, o.Rewrite = true, true
	if err := o.SetAssists([]string{"remind"}); err != nil || o.ReadFirst || o.Rewrite || !o.Remind {
		t.Errorf("SetAssists(remind) left %+v (%v)", o.AssistNames(), err)
	}
}

func TestProfiles(t *testing.T) {
	for _, p := range Profiles() {
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
	p, err := LookupProfile("qwen2.5-coder-0.5b")
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Apply(Options{Remind: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.Remind || !o.ReadFirst || o.OnRepeat != RepeatAnswer || o.Answer != AnswerSeparate || o.ToolChoice != grammar.Auto || o.Sampling.Temperature != 0 {
		t.Errorf("the 0.5B's profile gave %+v", o)
	}
	if _, err := LookupProfile("qwen9"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("LookupProfile(qwen9): %v", err)
	}
	for arch, want := range map[string]string{"qwen2": "qwen2.5", "qwen2moe": "qwen2.5", "llama": "plain", "gemma3": "plain", "qwen2vl": "plain"} {
		if got := FamilyProfile(ModelInfo{Architecture: arch}).Name; got != want {
			t.Errorf("FamilyProfile(%s) = %s, want %s", arch, got, want)
		}
	}
}

func TestReadProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := ReadProfile(write("mine.json", `{"on_repeat": "answer", "assists": ["read-first", "rewrite"], "temperature": 0.2}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Apply(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.Name, "mine.json") || o.OnRepeat != RepeatAnswer || !o.ReadFirst || !o.Rewrite || o.Sampling.Temperature != 0.2 {
		t.Errorf("profile %+v gave %+v", p, o)
	}
	for name, body := range map[string]string{
		"unknown assist":  `{"assists": ["read-frist"]}`,
		"unknown field":   `{"asists": ["read-first"]}`,
		"bad on_repeat":   `{"on_repeat": "again"}`,
		"bad tool_choice": `{"tool_choice": "sometimes"}`,
		"not JSON":        `read-first`,
	} {
		if _, err := ReadProfile(write("bad.json", body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ReadProfile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseNames(t *testing.T) {
	repeat := func(s string) (string, error) { r, err := ParseRepeatPolicy(s); return string(r), err }
	answer := func(s string) (string, error) { r, err := ParseAnswerStyle(s); return string(r), err }
	results := func(s string) (string, error) { r, err := ParseResultStyle(s); return string(r), err }
	for _, tc := range []struct {
		parse         func(string) (string, error)
		in, want, err string
	}{
		{repeat, "", "stop", ""},
		{repeat, "another", "another", ""},
		{repeat, "loop", "", `agent: unknown repeat policy "loop" (want stop, answer or another)`},
		{answer, "", "inline", ""},
		{answer, "Inline", "", `agent: unknown answer style "Inline" (want inline or separate)`},
		{results, "", "compact", ""},
		{results, "full", "full", ""},
	} {
		got, err := tc.parse(tc.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tc.want || msg != tc.err {
			t.Errorf("parse(%q) = %q, %q; want %q, %q", tc.in, got, msg, tc.want, tc.err)
		}
	}
}
