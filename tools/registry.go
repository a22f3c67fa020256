package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultMaxOutput is the default cap on a result's data, in bytes.
const DefaultMaxOutput = 64 << 10

// Registry holds tools in registration order and runs calls to them. It is
// safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	tools     []*Tool
	byName    map[string]*Tool
	maxOutput int
	gen       uint64   // bumped by every change to the tool set
	forget    []func() // what Forget tells the tools
}

// Option configures a Registry.
type Option func(*Registry)

// WithMaxOutput caps a result's data at n bytes (default
// [DefaultMaxOutput]); longer output is cut with a marker that says so.
// n <= 0 means no cap.
func WithMaxOutput(n int) Option { return func(r *Registry) { r.maxOutput = n } }

// NewRegistry returns an empty registry.
func NewRegistry(opts ...Option) *Registry {
	r := &Registry{byName: map[string]*Tool{}, maxOutput: DefaultMaxOutput}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Forget tells r's tools that the model's conversation was replaced: what
// it was shown is no longer in its context. The built-in file tools then
// forget which files the model has read, so write_file again refuses to
// replace one until it is read anew.
func (r *Registry) Forget() {
	r.mu.RLock()
	fns := r.forget
	r.mu.RUnlock()
	for _, f := range fns {
		f()
	}
}

// onForget adds f to what Forget calls.
func (r *Registry) onForget(f func()) {
	r.mu.Lock()
	r.forget = append(r.forget, f)
	r.mu.Unlock()
}

// Register adds a typed tool to r: the schema is derived from Args (see
// [SchemaFor]) and each call is decoded into an Args for fn. Registering a
// duplicate name or an Args with an unsupported field type is an error.
func Register[Args any](r *Registry, name, description string, risk Risk, fn func(ctx context.Context, args Args) (string, error)) error {
	t, err := New(name, description, risk, fn)
	if err != nil {
		return err
	}
	return r.Add(t)
}

// Add registers a tool with a hand-written schema (Parameters, which must
// describe an object; empty means no arguments). It fails for a duplicate
// name, a name a model cannot call, a nil Run or a schema that does not
// compile.
func (r *Registry) Add(t *Tool) error {
	if t.schema == nil {
		if err := t.compile(); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[t.Name]; dup {
		return fmt.Errorf("%w %q: already registered", ErrInvalidTool, t.Name)
	}
	r.tools = append(r.tools, t)
	r.byName[t.Name] = t
	r.gen++
	return nil
}

// Replace removes the tools named in remove (names not registered are
// ignored) and adds the tools in add, as one change: if any tool in add
// is invalid or its name is taken by a tool that stays, nothing changes.
// It is how a tool source whose set changes (an MCP server) updates its
// tools.
func (r *Registry) Replace(remove []string, add []*Tool) error {
	for _, t := range add {
		if t.schema == nil {
			if err := t.compile(); err != nil {
				return err
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := map[string]bool{}
	for _, n := range remove {
		if _, ok := r.byName[n]; ok {
			gone[n] = true
		}
	}
	seen := map[string]bool{}
	for _, t := range add {
		if _, taken := r.byName[t.Name]; (taken && !gone[t.Name]) || seen[t.Name] {
			return fmt.Errorf("%w %q: already registered", ErrInvalidTool, t.Name)
		}
		seen[t.Name] = true
	}
	if len(gone) == 0 && len(add) == 0 {
		return nil
	}
	kept := r.tools[:0:0]
	for _, t := range r.tools {
		if gone[t.Name] {
			delete(r.byName, t.Name)
			continue
		}
		kept = append(kept, t)
	}
	for _, t := range add {
		kept = append(kept, t)
		r.byName[t.Name] = t
	}
	r.tools = kept
	r.gen++
	return nil
}

// Generation counts the changes to the tool set (Add, Replace), so a
// holder of a copy of the tool list (the agent's tool definitions) knows
// when to take a new one.
func (r *Registry) Generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gen
}

// Tools returns the tools in registration order.
func (r *Registry) Tools() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*Tool(nil), r.tools...)
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// OpenAI returns all tools as an OpenAI tools array.
func (r *Registry) OpenAI() json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range r.Tools() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t.OpenAI())
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}

// Execute runs one call: it looks the tool up, decodes the arguments (an
// object or a JSON string holding one), validates them against the schema,
// runs the tool (recovering a panic as internal_error), caps the output and
// times the whole. It never asks for permission; see package
// agent/permission.
func (r *Registry) Execute(ctx context.Context, name string, args json.RawMessage) Result {
	start := time.Now()
	res := r.execute(ctx, name, args)
	res.Metadata.ExecutionTimeMS = time.Since(start).Milliseconds()
	res.Metadata.Timestamp = time.Now().UnixMilli()
	if res.Data != nil {
		res.Metadata.DataSizeBytes = len(*res.Data)
	}
	return res
}

func (r *Registry) execute(ctx context.Context, name string, args json.RawMessage) Result {
	t, ok := r.Lookup(name)
	if !ok {
		return Fail(TypeNotFound, r.unknown(name))
	}
	norm, err := NormalizeArgs(args)
	if err != nil {
		return Fail(TypeOf(err), err.Error())
	}
	prepared, err := t.prepare(norm)
	if err != nil {
		return Fail(TypeOf(err), err.Error())
	}
	if err := ctx.Err(); err != nil {
		return Fail(TypeInternal, fmt.Sprintf("%s was not run: %v", name, err))
	}
	out, err := run(ctx, t, prepared)
	if err != nil {
		res := Fail(TypeOf(err), err.Error())
		if out != "" { // partial output, e.g. of a command that timed out
			out = r.truncate(out)
			res.Data = &out
		}
		return res
	}
	return OK(r.truncate(out))
}

func run(ctx context.Context, t *Tool, args json.RawMessage) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", &Error{Type: TypeInternal, Err: fmt.Errorf("tool %s panicked: %v\n%s", t.Name, p, firstLines(debug.Stack(), 12))}
		}
	}()
	return t.Run(ctx, args)
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(string(b), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func (r *Registry) unknown(name string) string {
	names := make([]string, 0, len(r.Tools()))
	for _, t := range r.Tools() {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q: no tools are available", name)
	}
	return fmt.Sprintf("unknown tool %q; the tools are %s", name, strings.Join(names, ", "))
}

// truncate cuts s to the output cap at a UTF-8 boundary and says so.
func (r *Registry) truncate(s string) string {
	if r.maxOutput <= 0 || len(s) <= r.maxOutput {
		return s
	}
	cut := r.maxOutput
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[output truncated: showing the first %d of %d bytes]", s[:cut], cut, len(s))
}
