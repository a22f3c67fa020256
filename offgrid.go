// Package offgrid runs a GGUF language model in-process and lets it call
// tools: Go functions of yours and offgrid's built-in file, search, task
// and shell tools. Every call the model makes is valid JSON for its tool's
// schema (grammar-constrained decoding); offgrid runs the tools and feeds
// the results back until the model answers. No server, no network.
//
// An agent from this package is the one `offgrid run` runs: the same model
// resolution, agent profile, context window and prompt cache.
//
//	m, err := offgrid.Open(ctx, "default") // a store name, a GGUF path or a URL
//	if err != nil { … }
//	defer m.Close()
//	a, err := m.Agent(offgrid.Tools(offgrid.Builtin("."), offgrid.Func("add", "Add two integers", add)))
//	if err != nil { … }
//	answer, err := a.Ask(ctx, "What is 2 + 3?")
//
// Building needs cgo and a C compiler. CGO_CPPFLAGS must name the engine
// module's two include folders, and CGO_CFLAGS and CGO_CXXFLAGS should be
// "-O3 -march=native" (or another -march), or the engine's CPU kernels run
// several times slower:
//
//	engine=$(go list -m -f '{{.Dir}}' github.com/ollama/ollama)
//	export CGO_CPPFLAGS="-I$engine/llama/llama.cpp/include -I$engine/ml/backend/ggml/ggml/include"
//	export CGO_CFLAGS="-O3 -march=native" CGO_CXXFLAGS="-O3 -march=native"
package offgrid

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/launch"
)

// DefaultModel is the reference Open takes for the store's default model,
// or the model bundled in the running executable if it carries one.
const DefaultModel = "default"

// ErrNotStored is wrapped by Open when the model is neither in the store
// nor a file and could not be fetched (as on a machine without network).
var ErrNotStored = launch.ErrNotStored

// Model is a loaded model. Agents started on it share its weights; each
// has its own context. Close it when done.
type Model struct {
	lm  *launch.Model
	cfg config

	mu     sync.Mutex
	agents map[*Agent]bool
	closed bool
}

// An Option configures Open.
type Option func(*config)

type config struct {
	env     launch.Env
	engine  inference.ModelOptions
	threads int
	ctxSize int
}

// WithGPULayers offloads n layers to a GPU backend (-1: all).
func WithGPULayers(n int) Option { return func(c *config) { c.engine.GPULayers = n } }

// WithThreads sets the threads that decode (default: the engine's choice
// for this machine).
func WithThreads(n int) Option { return func(c *config) { c.threads = n } }

// WithContextSize sets each agent's context window in tokens (default
// 8,192; 0: the model's trained context). It is raised when the tool
// definitions need it.
func WithContextSize(n int) Option { return func(c *config) { c.ctxSize = n } }

// WithLog sends progress (a download, a bundled model unpacked) and
// warnings (a raised context window) to w; by default they are dropped.
func WithLog(w io.Writer) Option { return func(c *config) { c.env.Log = w } }

// WithGetenv reads offgrid's environment (OFFGRID_MODELS, the XDG
// directories) through getenv instead of the process's.
func WithGetenv(getenv func(string) string) Option {
	return func(c *config) { c.env.Getenv = getenv }
}

// Open loads a model. ref is "default" (or ""), a name in offgrid's model
// store (`offgrid models ls`), a catalog name or a URL (http, https,
// hf://OWNER/REPO/FILE.gguf) that is pulled into the store once, or the
// path of a GGUF file. The model's agent profile is the catalog's, else
// its template family's.
func Open(ctx context.Context, ref string, opts ...Option) (*Model, error) {
	cfg := config{env: launch.Env{Getenv: os.Getenv}, ctxSize: launch.DefaultContextSize}
	for _, o := range opts {
		o(&cfg)
	}
	lm, err := launch.Open(ctx, cfg.env, ref, cfg.engine)
	if err != nil {
		return nil, err
	}
	return &Model{lm: lm, cfg: cfg, agents: map[*Agent]bool{}}, nil
}

// Name is the model's store or bundle name, or its file's name.
func (m *Model) Name() string { return m.lm.Ref.Name }

// Path is the GGUF file the model was loaded from.
func (m *Model) Path() string { return m.lm.Ref.Path }

// Close frees the model and the agents still open on it.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	for a := range m.agents {
		a.s.Close()
		a.s = nil
	}
	m.agents = nil
	m.lm.Close()
	return nil
}

// ErrClosed is returned for a model or an agent used after Close.
var ErrClosed = errors.New("offgrid: closed")

// Event is something that happened during an agent's turn (see
// WithEvents). Its Type says what: EventToken (Text: streamed text),
// EventToolCall (Tool, Arguments: a call about to run), EventToolResult
// (Record: the call with its Result; Record.OK(), Record.Result.Text()),
// EventFinal (Text: the answer), EventError (Code, Text: a failure, or a
// limit that ended the turn). The fields are package agent's Event.
type Event = agent.Event

// Turn is the outcome of one request (see Agent.Send): the answer
// (Content), each call with its result (Calls), and Stop, set when a limit
// ended the turn (at most 10 rounds of calls, 15 calls a reply).
type Turn = agent.Turn

// Agent holds a conversation with a model that calls tools. It is not safe
// for concurrent use; start one agent per conversation.
type Agent struct {
	m       *Model
	s       *launch.Session // nil once closed
	events  func(Event)
	profile string
}

// Agent starts an agent on m over the tools of ts (nil: none). The agent
// keeps the conversation across Ask calls until Reset.
func (m *Model) Agent(ts *ToolSet, opts ...AgentOption) (*Agent, error) {
	var c agentConfig
	for _, o := range opts {
		o(&c)
	}
	reg, root, err := ts.registry()
	if err != nil {
		return nil, err
	}
	o := launch.Options(root)
	o.System = c.system
	if c.seed != nil {
		o.Sampling.Seed = *c.seed
	}
	if c.temp != nil {
		o.Sampling.Temperature = *c.temp
	}
	policy, err := c.policy()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	s, err := m.lm.Start(launch.Config{
		Options: o, Settings: launch.Settings{Profile: c.profile, Assist: c.assist, ToolChoice: c.toolChoice, KeepTemp: c.temp != nil},
		ContextSize: m.cfg.ctxSize, Threads: m.cfg.threads, ChatTemplate: c.template,
		Tools: reg, Policy: policy, Prompter: c.prompter,
	})
	if err != nil {
		return nil, err
	}
	a := &Agent{m: m, s: s, events: c.events, profile: s.Profile.Name}
	m.agents[a] = true
	return a, nil
}

// Ask sends request to the model and returns its final answer, after the
// tool calls it made; WithEvents shows them as they happen. A limit that
// ended the turn early (see Turn) is not an error: the answer says so,
// and an EventError names the limit.
func (a *Agent) Ask(ctx context.Context, request string) (string, error) {
	t, err := a.Send(ctx, request)
	return t.Content, err
}

// Send is Ask with the whole turn: the answer, each tool call with its
// result, and the engine's counters.
func (a *Agent) Send(ctx context.Context, request string) (Turn, error) {
	a.m.mu.Lock()
	s := a.s
	a.m.mu.Unlock()
	if s == nil {
		return agent.Turn{}, ErrClosed
	}
	on := a.events
	if on == nil {
		on = func(Event) {}
	}
	return s.Agent.Send(ctx, request, on)
}

// Warm decodes the system prompt and tool definitions this agent's first
// requests start with and keeps them in offgrid's prompt cache, so that
// the first answer of a later process (or of a later agent with the same
// tools) starts in about a second. Call it before the conversation starts,
// for example once after installing.
func (a *Agent) Warm(ctx context.Context) error {
	a.m.mu.Lock()
	s := a.s
	a.m.mu.Unlock()
	if s == nil {
		return ErrClosed
	}
	return s.Agent.Warm(ctx)
}

// Profile names the agent profile that drives the model (see `offgrid
// models show`).
func (a *Agent) Profile() string { return a.profile }

// Reset forgets the conversation.
func (a *Agent) Reset() {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	if a.s != nil {
		a.s.Agent.Reset()
	}
}

// Close frees the agent's context; the model stays open.
func (a *Agent) Close() error {
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	if a.s == nil || !a.m.agents[a] {
		return nil
	}
	delete(a.m.agents, a)
	a.s.Close()
	a.s = nil
	return nil
}

// The kinds of Event.
const (
	EventToken      = agent.EventToken      // streamed text of a reply
	EventToolCall   = agent.EventToolCall   // a call the model made, before it runs
	EventToolResult = agent.EventToolResult // a call's outcome (Record)
	EventFinal      = agent.EventFinal      // the final answer
	EventError      = agent.EventError      // a failure or a limit reached
)
