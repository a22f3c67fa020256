package bench

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/internal/calendar"
	"github.com/offgrid-ai/offgrid/internal/contact"
	"github.com/offgrid-ai/offgrid/tools"
)

// The built-in agent suites, one JSON file each.
//
//go:embed agent
var builtinSuites embed.FS

// Suite is a set of agent tasks: what `offgrid bench --agent` runs.
type Suite struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Fixtures are named sets of files (slash-separated path → content)
	// that tasks start from.
	Fixtures map[string]map[string]string `json:"fixtures,omitempty"`
	// MCPServers are the MCP servers tasks may name (see Task.MCP).
	MCPServers map[string]MCPServer `json:"mcp_servers,omitempty"`
	Tasks      []Task               `json:"tasks"`
	// Tools are options for every task's built-in tools, such as the bash
	// tool's confinement (tools.WithConfinement).
	Tools []tools.BuiltinOption `json:"-"`
	// MCPConnectTimeout caps starting each task's MCP servers and listing
	// their tools; 0 means mcp.DefaultConnectTimeout.
	MCPConnectTimeout time.Duration `json:"-"`
}

// MCPServer is how a task's MCP server is started: a command and its
// arguments, in which {root} stands for the task's directory.
type MCPServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// Task is one user request, run in a fresh directory, and how to tell
// whether the agent did it.
type Task struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	// Fixture names a suite fixture the directory starts with; Files adds
	// to or replaces its files.
	Fixture string            `json:"fixture,omitempty"`
	Files   map[string]string `json:"files,omitempty"`
	// Prompt is the user's request; {root} stands for the task's
	// directory.
	Prompt string `json:"prompt"`
	// Deny lists tools the user refuses (all others are allowed).
	Deny []string `json:"deny,omitempty"`
	// MCP names the suite's MCP servers the task needs, started in its
	// directory for the task; their tools (NAME_TOOL) are offered before
	// the built-in ones.
	MCP []string `json:"mcp,omitempty"`
	// Split is "dev" (tuned on) or "test" (run only to report); "" in
	// suites that are not split, such as the regression suite.
	Split string `json:"split,omitempty"`
	// Lang is the request's language, an ISO 639-1 code ("" is "en").
	Lang string `json:"lang,omitempty"`
	// Group names the paraphrase group: tasks that ask the same thing in
	// other words or languages, over the same fixture.
	Group  string `json:"group,omitempty"`
	Checks Checks `json:"checks"`
}

// Language returns the task's language, "en" when none is set.
func (t Task) Language() string {
	if t.Lang == "" {
		return "en"
	}
	return t.Lang
}

// Checks are a task's conditions; all must hold, and the turn must end
// with an answer (not a limit or an error). In texts, {root} stands for
// the task's directory, {year} for the current year, {date} for today
// as 2006-01-02 and {weekday} for today's weekday in English or in the
// task's language.
type Checks struct {
	// Called lists calls that must happen: the tool, and substrings its
	// arguments (as JSON) must contain (case-insensitive).
	Called []CallCheck `json:"called,omitempty"`
	// NotCalled lists tools that must not be called; NoTools forbids all.
	NotCalled []string `json:"not_called,omitempty"`
	NoTools   bool     `json:"no_tools,omitempty"`
	// Contains: file → substrings it must contain afterwards; Absent:
	// substrings it must not contain.
	Contains map[string][]string `json:"contains,omitempty"`
	Absent   map[string][]string `json:"absent,omitempty"`
	// Lines: file → line number (1-based; negative counts from the end)
	// → the exact text of that line afterwards.
	Lines map[string]map[string]string `json:"lines,omitempty"`
	// Missing lists files that must not exist afterwards.
	Missing []string `json:"missing,omitempty"`
	// Unchanged lists fixture files that must be byte for byte as they
	// were; "*" means every fixture file no other check names.
	Unchanged []string `json:"unchanged,omitempty"`
	// Answer lists texts the final answer must all contain; AnswerAny,
	// texts of which it must contain one; AnswerNone, texts it must not
	// contain: a list asked for must not be every name there is (all
	// case-insensitive).
	Answer     []string `json:"answer,omitempty"`
	AnswerAny  []string `json:"answer_any,omitempty"`
	AnswerNone []string `json:"answer_none,omitempty"`
	// Invented lists regular expressions for content the answer may hold
	// only if a tool result of the turn held it: the lines of a file the
	// agent could not read, a listing it never got. A match that no tool
	// result contains marks the answer fabricated (TaskResult.Fabricated).
	Invented []string `json:"invented,omitempty"`
}

// CallCheck is a call a task expects.
type CallCheck struct {
	Tool string   `json:"tool"`
	Args []string `json:"args,omitempty"`
}

// AddMCP defines the MCP server name (replacing the suite's own of that
// name) and has every task use it.
func (s *Suite) AddMCP(name string, server MCPServer) {
	if s.MCPServers == nil {
		s.MCPServers = map[string]MCPServer{}
	}
	s.MCPServers[name] = server
	for i := range s.Tasks {
		if !slices.Contains(s.Tasks[i].MCP, name) {
			s.Tasks[i].MCP = append(s.Tasks[i].MCP, name)
		}
	}
}

// BuiltinSuite returns the suite of tasks over offgrid's built-in tools.
func BuiltinSuite() (*Suite, error) {
	data, err := builtinSuites.ReadFile("agent/builtin.json")
	if err != nil {
		return nil, err
	}
	return ParseSuite(data)
}

// GeneralSuite returns the generalization suite: everyday requests over
// several realistic projects, in several languages, each task in the
// dev or the test split. Each project is a file of agent/general.
func GeneralSuite() (*Suite, error) {
	entries, err := builtinSuites.ReadDir("agent/general")
	if err != nil {
		return nil, err
	}
	var parts []*Suite
	for _, e := range entries {
		data, err := builtinSuites.ReadFile("agent/general/" + e.Name())
		if err != nil {
			return nil, err
		}
		s, err := ParseSuite(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		parts = append(parts, s)
	}
	return mergeSuites("general", "Everyday requests over realistic projects, in several languages; split into dev (tuned on) and test (reported).", parts)
}

// mergeSuites joins suites into one named name; fixture, server and
// task names must not clash.
func mergeSuites(name, description string, parts []*Suite) (*Suite, error) {
	out := &Suite{Name: name, Description: description, Fixtures: map[string]map[string]string{}, MCPServers: map[string]MCPServer{}}
	seen := map[string]bool{}
	for _, p := range parts {
		for k, v := range p.Fixtures {
			if out.Fixtures[k] != nil {
				return nil, fmt.Errorf("%w: fixture %q is defined twice", ErrSuite, k)
			}
			out.Fixtures[k] = v
		}
		for k, v := range p.MCPServers {
			if _, ok := out.MCPServers[k]; ok {
				return nil, fmt.Errorf("%w: MCP server %q is defined twice", ErrSuite, k)
			}
			out.MCPServers[k] = v
		}
		for _, t := range p.Tasks {
			if seen[t.ID] {
				return nil, fmt.Errorf("%w: task id %q is used twice", ErrSuite, t.ID)
			}
			seen[t.ID] = true
			out.Tasks = append(out.Tasks, t)
		}
	}
	return out, nil
}

// Only returns the suite's tasks of the split ("" keeps every task).
func (s *Suite) Only(split string) *Suite {
	if split == "" {
		return s
	}
	c := *s
	c.Tasks = slices.DeleteFunc(slices.Clone(s.Tasks), func(t Task) bool { return t.Split != split })
	return &c
}

// LoadSuite reads a suite file; "builtin" (or "") is the built-in suite,
// "general" the generalization suite, "mcp" the built-in suite over the
// reference MCP filesystem server.
func LoadSuite(path string) (*Suite, error) {
	if path == "" || path == "builtin" {
		return BuiltinSuite()
	}
	if path == "general" {
		return GeneralSuite()
	}
	if path == "mcp" {
		data, err := builtinSuites.ReadFile("agent/mcp.json")
		if err != nil {
			return nil, err
		}
		return ParseSuite(data)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s, err := ParseSuite(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// validLang matches a task's language code.
var validLang = regexp.MustCompile(`^[a-z]{2}$`)

// ErrSuite is wrapped by every problem ParseSuite finds.
var ErrSuite = errors.New("bench: invalid task suite")

// ParseSuite decodes and checks a suite: unknown fields, duplicate or
// empty ids, missing fixtures, paths that leave the task directory, and
// tasks without a check are errors.
func ParseSuite(data []byte) (*Suite, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Suite
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSuite, err)
	}
	seen := map[string]bool{}
	for i, t := range s.Tasks {
		switch {
		case t.ID == "":
			return nil, fmt.Errorf("%w: task %d has no id", ErrSuite, i+1)
		case seen[t.ID]:
			return nil, fmt.Errorf("%w: task id %q is used twice", ErrSuite, t.ID)
		case strings.TrimSpace(t.Prompt) == "":
			return nil, fmt.Errorf("%w: task %s has no prompt", ErrSuite, t.ID)
		case t.Fixture != "" && s.Fixtures[t.Fixture] == nil:
			return nil, fmt.Errorf("%w: task %s: no fixture %q", ErrSuite, t.ID, t.Fixture)
		}
		for _, name := range t.MCP {
			if s.MCPServers[name].Command == "" {
				return nil, fmt.Errorf("%w: task %s: no MCP server %q with a command in mcp_servers", ErrSuite, t.ID, name)
			}
		}
		switch {
		case t.Split != "" && t.Split != "dev" && t.Split != "test":
			return nil, fmt.Errorf("%w: task %s: split %q is neither dev nor test", ErrSuite, t.ID, t.Split)
		case t.Lang != "" && !validLang.MatchString(t.Lang):
			return nil, fmt.Errorf("%w: task %s: lang %q is not a two-letter language code", ErrSuite, t.ID, t.Lang)
		}
		seen[t.ID] = true
		c := t.Checks
		for _, re := range c.Invented {
			if _, err := regexp.Compile(re); err != nil {
				return nil, fmt.Errorf("%w: task %s: invented: %v", ErrSuite, t.ID, err)
			}
		}
		if len(c.Called)+len(c.NotCalled)+len(c.Contains)+len(c.Absent)+len(c.Lines)+len(c.Missing)+len(c.Answer)+len(c.AnswerAny)+len(c.AnswerNone)+len(c.Invented) == 0 && !c.NoTools {
			return nil, fmt.Errorf("%w: task %s checks nothing", ErrSuite, t.ID)
		}
		for name := range s.files(t) {
			if !filepath.IsLocal(filepath.FromSlash(name)) {
				return nil, fmt.Errorf("%w: task %s: file %q is outside the task directory", ErrSuite, t.ID, name)
			}
		}
		for name, lines := range c.Lines {
			for n := range lines {
				if k, err := strconv.Atoi(n); err != nil || k == 0 {
					return nil, fmt.Errorf("%w: task %s: %s: line %q is not a line number", ErrSuite, t.ID, name, n)
				}
			}
		}
	}
	return &s, nil
}

// files returns the files task t starts with.
func (s *Suite) files(t Task) map[string]string {
	out := map[string]string{}
	for k, v := range s.Fixtures[t.Fixture] {
		out[k] = v
	}
	for k, v := range t.Files {
		out[k] = v
	}
	return out
}

// setUp writes task t's files into dir, each file and folder modified
// at fixtureTime.
func (s *Suite) setUp(t Task, dir string) error {
	for name, content := range s.files(t) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, fixtureTime(), fixtureTime())
	})
}

// fixtureTime is when a task's files were modified, the same in every
// run: ls shows the time, and a French listing task passed or failed by
// the minute its files were written, the 0.5B copying the listing one
// line shorter (stop 68).
func fixtureTime() time.Time { return time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC) }

// outcome is what a task's run did, as the checks see it.
type outcome struct {
	dir      string
	request  string // the user's request, as sent
	calls    []CallRecord
	answer   string
	results  []string // every tool result of the turn, whole, as the model read it or the user saw it
	finished bool     // the turn ended with an answer, not a limit or an error
	now      time.Time
	lang     string // the task's language ("" for English)
}

// check returns why task t failed; none means it passed.
func (s *Suite) check(t Task, o outcome) []string {
	var why []string
	fail := func(format string, args ...any) { why = append(why, fmt.Sprintf(format, args...)) }
	expand := o.expander()
	c := t.Checks
	if !o.finished {
		fail("the turn did not end with an answer")
	}
	for _, want := range c.Called {
		if !slices.ContainsFunc(o.calls, func(r CallRecord) bool {
			return r.Name == want.Tool && containsAll(string(r.Arguments), want.Args, expand, true)
		}) {
			fail("no call %s with arguments containing %q", want.Tool, want.Args)
		}
	}
	for _, r := range o.calls {
		if c.NoTools || slices.Contains(c.NotCalled, r.Name) {
			fail("called %s, which the task does not need", r.Name)
		}
	}
	named := map[string]bool{}
	read := func(name string) (string, bool) {
		named[name] = true
		b, err := os.ReadFile(filepath.Join(o.dir, filepath.FromSlash(name)))
		if err != nil {
			fail("%s: %v", name, errors.Unwrap(err))
			return "", false
		}
		return string(b), true
	}
	for _, name := range sortedKeys(c.Contains) {
		if got, ok := read(name); ok && !containsAll(got, c.Contains[name], expand, false) {
			fail("%s does not contain all of %q; it holds %q", name, c.Contains[name], shorten(got, 120))
		}
	}
	for _, name := range sortedKeys(c.Absent) {
		if got, ok := read(name); ok {
			for _, bad := range c.Absent[name] {
				if slices.ContainsFunc(expand(bad), func(b string) bool { return strings.Contains(got, b) }) {
					fail("%s still contains %q", name, bad)
				}
			}
		}
	}
	for _, name := range sortedKeys(c.Lines) {
		got, ok := read(name)
		if !ok {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		for _, n := range sortedKeys(c.Lines[name]) {
			k, _ := strconv.Atoi(n)
			if k < 0 {
				k += len(lines) + 1
			}
			want := expand(c.Lines[name][n])[0]
			if k < 1 || k > len(lines) || lines[k-1] != want {
				fail("%s line %s is not %q (file: %q)", name, n, want, shorten(got, 120))
			}
		}
	}
	for _, name := range c.Missing {
		named[name] = true
		if _, err := os.Lstat(filepath.Join(o.dir, filepath.FromSlash(name))); err == nil {
			fail("%s exists but must not", name)
		}
	}
	files := s.files(t)
	var unchanged []string
	for _, name := range c.Unchanged {
		if name == "*" {
			for _, f := range sortedKeys(files) {
				if !named[f] {
					unchanged = append(unchanged, f)
				}
			}
			continue
		}
		unchanged = append(unchanged, name)
	}
	for _, name := range unchanged {
		b, err := os.ReadFile(filepath.Join(o.dir, filepath.FromSlash(name)))
		if err != nil || string(b) != files[name] {
			fail("%s changed", name)
		}
	}
	if !c.holdsAll(o.answer, expand) {
		fail("the answer does not contain all of %q: %q", c.Answer, shorten(o.answer, 160))
	}
	if !c.holdsAny(o.answer, expand) {
		fail("the answer contains none of %q: %q", c.AnswerAny, shorten(o.answer, 160))
	}
	if s, ok := c.holdsNone(o.answer, expand); !ok {
		fail("the answer contains %q: %q", s, shorten(o.answer, 160))
	}
	for _, s := range invented(c, o) {
		fail("fabricated: the answer holds %q, which no tool returned", shorten(s, 80))
	}
	return why
}

// expander returns a function that replaces the placeholders a task's
// checks may hold ({root}, {year}, {date}, {weekday}) with the outcome's
// values: the texts that a check's text stands for, any one of which
// holds. A text with {weekday} stands for it in English and, for a task
// in another language, in that language too (calendar.Weekday): "今天是星期六"
// answers "今天星期几？".
func (o outcome) expander() func(string) []string {
	base := strings.NewReplacer("{root}", o.dir, "{year}", strconv.Itoa(o.now.Year()), "{date}", o.now.Format(time.DateOnly))
	days := []string{o.now.Weekday().String()}
	if day, ok := calendar.Weekday(o.lang, o.now.Weekday()); ok && day != days[0] {
		days = append(days, day)
	}
	return func(s string) []string {
		s = base.Replace(s)
		if !strings.Contains(s, "{weekday}") {
			return []string{s}
		}
		out := make([]string, len(days))
		for i, d := range days {
			out[i] = strings.ReplaceAll(s, "{weekday}", d)
		}
		return out
	}
}

// holdsAll reports whether text holds every text of c.Answer (case folded).
func (c Checks) holdsAll(text string, expand func(string) []string) bool {
	return containsAll(text, c.Answer, expand, true)
}

// holdsAny reports whether text holds one of c.AnswerAny (case folded), or
// c.AnswerAny is empty.
func (c Checks) holdsAny(text string, expand func(string) []string) bool {
	return len(c.AnswerAny) == 0 || slices.ContainsFunc(c.AnswerAny, func(s string) bool {
		return containsAll(text, []string{s}, expand, true)
	})
}

// holdsNone reports whether text holds none of c.AnswerNone (case
// folded), or the first it holds.
func (c Checks) holdsNone(text string, expand func(string) []string) (string, bool) {
	for _, s := range c.AnswerNone {
		if containsAll(text, []string{s}, expand, true) {
			return s, false
		}
	}
	return "", true
}

// answerShown reports whether the tool results the model was shown held
// what c asks of the answer, and whether c asks anything of it at all. A
// task that failed with the answer shown failed in the answer; without
// it, in finding the answer (or the answer is not in any file as written,
// such as a sum).
func answerShown(c Checks, o outcome, shown []string) (held, asked bool) {
	if len(c.Answer) == 0 && len(c.AnswerAny) == 0 {
		return false, false
	}
	text, expand := strings.Join(shown, "\n"), o.expander()
	return c.holdsAll(text, expand) && c.holdsAny(text, expand), true
}

// invented returns the matches of c.Invented in the answer that no tool
// result of the turn holds, and the phone numbers, email addresses and
// dates with their year in it that neither a result nor the request
// holds (contact.Held, calendar.Held), for every task.
func invented(c Checks, o outcome) []string {
	var out []string
	heard := o.request + "\n" + strings.Join(o.results, "\n")
	for _, m := range contact.Find(o.answer) {
		if !contact.Held(m, heard) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, d := range calendar.Days(o.answer) {
		if m := fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Date); !calendar.Held(d, heard) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, pat := range c.Invented {
		re, err := regexp.Compile(pat)
		if err != nil {
			continue // ParseSuite checked it
		}
		for _, m := range re.FindAllString(o.answer, -1) {
			m = strings.TrimSpace(m)
			if m == "" || slices.ContainsFunc(o.results, func(r string) bool { return strings.Contains(r, m) }) {
				continue
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// containsAll reports whether s contains every text of subs, each as
// one of the texts it stands for (expand).
func containsAll(s string, subs []string, expand func(string) []string, fold bool) bool {
	if fold {
		s = strings.ToLower(s)
	}
	for _, sub := range subs {
		if !slices.ContainsFunc(expand(sub), func(v string) bool {
			if fold {
				v = strings.ToLower(v)
			}
			return strings.Contains(s, v)
		}) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
