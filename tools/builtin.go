package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/internal/calendar"
)

// BuiltinOption configures [Builtin].
type BuiltinOption func(*builtinConfig)

type builtinConfig struct {
	registry []Option
	now      func() time.Time
	shell    string
	helper   string // serves sandbox.Command; "" confines nothing
	loose    bool   // bash may run unconfined where nothing confines it
	links    bool   // the file tools open hard-linked files
	journal  *Journal
	curator  Curator
}

// WithRegistryOptions passes options to the registry Builtin creates.
func WithRegistryOptions(opts ...Option) BuiltinOption {
	return func(c *builtinConfig) { c.registry = append(c.registry, opts...) }
}

// WithClock sets the clock get_current_time reads (default time.Now).
func WithClock(now func() time.Time) BuiltinOption {
	return func(c *builtinConfig) { c.now = now }
}

// WithShell sets the shell the bash tool runs commands with (default: bash
// from PATH, else /bin/sh).
func WithShell(path string) BuiltinOption {
	return func(c *builtinConfig) { c.shell = path }
}

// WithConfinement has the bash tool run every command confined by the
// kernel (see package internal/sandbox): helper is an executable that
// calls sandbox.Serve first in main, offgrid itself. Without it, or where
// the kernel cannot confine commands, the bash tool is unconfined, and
// refuses to run unless [WithUnconfinedBash] is given too.
func WithConfinement(helper string) BuiltinOption {
	return func(c *builtinConfig) { c.helper = helper }
}

// WithUnconfinedBash lets the bash tool run commands without confinement
// where none is available (they can then do anything the user can); its
// description says so.
func WithUnconfinedBash() BuiltinOption {
	return func(c *builtinConfig) { c.loose = true }
}

// WithHardLinks lets the file tools open regular files with more than one
// hard link, which they refuse by default (see [ErrHardLinked]).
func WithHardLinks() BuiltinOption {
	return func(c *builtinConfig) { c.links = true }
}

// WithJournal records the previous state of every file the file tools
// write in j, so that the changes can be undone (see [Journal.Undo]).
func WithJournal(j *Journal) BuiltinOption {
	return func(c *builtinConfig) { c.journal = j }
}

// WithCurator has read_file answer a read of a whole long file with the
// parts of it that the request the call serves needs (see [WithRequest]),
// as c chooses them.
func WithCurator(c Curator) BuiltinOption {
	return func(cfg *builtinConfig) { cfg.curator = c }
}

// Builtin returns a registry holding the built-in tools, with every path
// confined to root: ls, read_file, write_file, replace_lines, insert_lines,
// grep_search, get_current_time, get_working_directory, add_task,
// list_tasks, update_task and bash. The task list lives in the registry.
func Builtin(root string, opts ...BuiltinOption) (*Registry, error) {
	c := builtinConfig{now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	sb, err := NewSandbox(root)
	if err != nil {
		return nil, err
	}
	sb.hardlinks = c.links
	if c.journal != nil {
		if err := c.journal.bind(sb); err != nil {
			return nil, fmt.Errorf("builtin tools: %w", err)
		}
		sb.journal = c.journal
	}
	r := NewRegistry(c.registry...)
	fs := &fileTools{sb: sb, curator: c.curator}
	r.onForget(fs.forget)
	tasks := &taskList{}
	sh := newShell(sb, c.shell, c.helper, c.loose)
	for _, add := range []func() error{
		func() error { return Register(r, "ls", lsDescription, Safe, confined(sb, fs.ls)) },
		func() error { return Register(r, "read_file", readDescription, Medium, confined(sb, fs.readFile)) },
		func() error { return Register(r, "write_file", writeDescription, High, confined(sb, fs.writeFile)) },
		func() error {
			return Register(r, "replace_lines", replaceDescription, High, confined(sb, fs.replaceLines))
		},
		func() error {
			return Register(r, "insert_lines", insertDescription, High, confined(sb, fs.insertLines))
		},
		func() error { return Register(r, "grep_search", grepDescription, Medium, confined(sb, fs.grep)) },
		func() error {
			return Register(r, "get_current_time", "Get the local date and time (ISO 8601, with the time zone offset).", Safe,
				func(ctx context.Context, _ struct{}) (string, error) { return clockText(c.now()), nil })
		},
		func() error {
			return Register(r, "get_working_directory", "Get the absolute path of the working directory.", Safe,
				func(ctx context.Context, _ struct{}) (string, error) { return sb.Root(), nil })
		},
		func() error { return Register(r, "add_task", addTaskDescription, Safe, tasks.add) },
		func() error { return Register(r, "list_tasks", listTasksDescription, Safe, tasks.list) },
		func() error { return Register(r, "update_task", updateTaskDescription, Safe, tasks.update) },
		func() error { return Register(r, "bash", sh.description(), High, confined(sb, sh.run)) },
	} {
		if err := add(); err != nil {
			return nil, fmt.Errorf("builtin tools: %w", err)
		}
	}
	for name, ex := range builtinExamples() {
		if t, ok := r.Lookup(name); ok {
			t.Examples = ex
		}
	}
	for name, topic := range builtinTopics() {
		if t, ok := r.Lookup(name); ok {
			t.Topic = topic
		}
	}
	return r, nil
}

// clockText is get_current_time's result: the time in words a small
// model can repeat without working out a weekday, then ISO 8601
// (ParseClock reads it back).
func clockText(t time.Time) string {
	zone, _ := t.Zone()
	date, _ := calendar.Date("en", t)
	return fmt.Sprintf("%s, %s %s (UTC%s)\n%s%s", date, t.Format("15:04:05"), zone, t.Format("-07:00"), isoMark, t.Format(time.RFC3339))
}

// isoMark begins the line of get_current_time's result that holds the
// time in ISO 8601.
const isoMark = "ISO 8601: "

// ParseClock returns the time a result of get_current_time holds, and
// false for a text that holds none.
func ParseClock(text string) (time.Time, bool) {
	for line := range strings.Lines(text) {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), isoMark); ok {
			t, err := time.Parse(time.RFC3339, s)
			return t, err == nil
		}
	}
	return time.Time{}, false
}

// builtinTopics returns the built-in tools' topics (see [Tool.Topic]).
func builtinTopics() map[string]string {
	return map[string]string{
		"ls": TopicFiles, "read_file": TopicFiles, "write_file": TopicFiles, "replace_lines": TopicFiles,
		"insert_lines": TopicFiles, "grep_search": TopicFiles, "get_working_directory": TopicFiles,
		"get_current_time": TopicClock,
		"add_task":         TopicTasks, "list_tasks": TopicTasks, "update_task": TopicTasks,
		"bash": TopicCommands,
	}
}

// builtinExamples returns the built-in tools' examples. Their files and
// words are not those of the agent suite (bench/agent), which measures
// them.
func builtinExamples() map[string][]Example {
	return map[string][]Example{
		"ls":          {{Request: "Which files are in src?", Arguments: json.RawMessage(`{"path": "src"}`)}},
		"read_file":   {{Request: "What is in plan.md?", Arguments: json.RawMessage(`{"path": "plan.md"}`)}},
		"grep_search": {{Request: "Which files mention http?", Arguments: json.RawMessage(`{"pattern": "http"}`)}},
		"replace_lines": {{Request: "Change line 3 of app.py to: x = 1",
			Arguments: json.RawMessage(`{"path": "app.py", "line_start": 3, "line_end": 3, "new_content": "x = 1"}`)}},
		"insert_lines": {{Request: "Add the line 'ship it' at the end of list.txt", Tool: "read_file",
			Arguments: json.RawMessage(`{"path": "list.txt"}`), Then: "then insert_lines at one past the last line"}},
		"write_file":       {{Request: "Make a file hi.txt saying hello", Arguments: json.RawMessage(`{"path": "hi.txt", "content": "hello"}`)}},
		"get_current_time": {{Request: "What is the date today?", Arguments: json.RawMessage(`{}`)}},
		"add_task":         {{Request: "Add a task: deploy", Arguments: json.RawMessage(`{"task": "deploy"}`)}},
	}
}

// confined wraps a tool function so that no error it returns names the
// root's absolute path (see [Sandbox.relative]): the model sees paths
// relative to the root only.
func confined[A any](sb *Sandbox, fn func(context.Context, A) (string, error)) func(context.Context, A) (string, error) {
	return func(ctx context.Context, a A) (string, error) {
		out, err := fn(ctx, a)
		if err != nil {
			if msg := sb.relative(err.Error()); msg != err.Error() {
				err = &toolPathError{msg: msg, err: err}
			}
		}
		return out, err
	}
}
