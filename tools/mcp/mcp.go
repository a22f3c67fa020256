package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// DefaultTimeout caps a call to an MCP tool unless configured otherwise.
const DefaultTimeout = 60 * time.Second

// DefaultConnectTimeout caps starting a server, the opening handshake and
// the listing of its tools, unless configured otherwise. It leaves room
// for npx fetching a server's package on its first run (the reference
// filesystem server took 35 s on an empty npm cache), at the cost of that
// wait at start for a server that never answers.
const DefaultConnectTimeout = 60 * time.Second

// DefaultRestartInterval is how often, at most, a server that stopped is
// started again (on a call to one of its tools).
const DefaultRestartInterval = time.Minute

// ErrNotStarted is wrapped by the error of a server that did not start.
var ErrNotStarted = errors.New("did not start")

// Options configures [Start].
type Options struct {
	// Timeout caps each tool call (default [DefaultTimeout]); a server's
	// own Timeout wins.
	Timeout time.Duration
	// ConnectTimeout caps starting a server: spawning it, the opening
	// handshake and the listing of its tools together (default
	// [DefaultConnectTimeout]); a server's own ConnectTimeout wins.
	ConnectTimeout time.Duration
	// MaxMessage caps each message read from a server (default
	// [MaxMessage]).
	MaxMessage int
	// RestartInterval is how often, at most, a server that stopped is
	// started again (default [DefaultRestartInterval]).
	RestartInterval time.Duration
	// Warn receives problems that do not stop anything: an optional
	// server that did not start, a tool skipped for its schema, schema
	// keywords the grammar does not enforce, a failed refresh, a restart.
	Warn func(string)
	// Version is offgrid's version, sent to the servers.
	Version string
	// Reserved names are kept for other tools: a server's tool of such a
	// name is skipped.
	Reserved []string
	// Keep, if set, chooses the tools to register by name; the others
	// are left out.
	Keep func(name string) bool
}

// Servers are running MCP servers whose tools are in a registry. Close
// stops them.
type Servers struct {
	reg    *tools.Registry
	opts   Options
	list   []*server
	failed []error
}

// Start starts the servers, concurrently, lists their tools and adds
// them to reg, before the tools reg already holds: a small model favours
// the first tools it is shown, and these servers were attached for the
// session. The names reg holds stay theirs (a server's tool of such a
// name is skipped).
//
// A server that does not start within its connect timeout, exits or
// does not speak MCP is an error wrapping [ErrNotStarted] (the others are
// stopped, reg is left as it was), or, when it is Optional, a warning
// and an entry of [Servers.Failed]: the others start as if it were not
// configured.
func Start(ctx context.Context, reg *tools.Registry, servers []Server, opts Options) (*Servers, error) {
	opts.Timeout = cmp.Or(max(opts.Timeout, 0), DefaultTimeout)
	opts.ConnectTimeout = cmp.Or(max(opts.ConnectTimeout, 0), DefaultConnectTimeout)
	opts.MaxMessage = cmp.Or(max(opts.MaxMessage, 0), MaxMessage)
	opts.RestartInterval = cmp.Or(max(opts.RestartInterval, 0), DefaultRestartInterval)
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	held := reg.Tools()
	var names []string
	for _, t := range held {
		names = append(names, t.Name)
	}
	opts.Reserved = append(slices.Clip(opts.Reserved), names...)
	if err := reg.Replace(names, nil); err != nil {
		return nil, err
	}
	s := &Servers{reg: reg, opts: opts}
	err := s.start(ctx, servers)
	if err != nil {
		s.Close()
	}
	if err := reg.Replace(nil, held); err != nil { // cannot fail: the names are reserved
		s.Close()
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Servers) start(ctx context.Context, servers []Server) error {
	type started struct {
		p     *proc
		tools []*sdk.Tool
		err   error
	}
	srvs := make([]*server, len(servers))
	res := make([]started, len(servers))
	var wg sync.WaitGroup
	for i, cfg := range servers {
		srvs[i] = s.newServer(cfg)
		wg.Go(func() {
			r := &res[i]
			r.p, r.tools, r.err = srvs[i].connect(ctx)
		})
	}
	wg.Wait()
	var failed []error
	for i, srv := range srvs {
		r := res[i]
		if r.err == nil {
			srv.setProc(r.p)
			if r.err = srv.apply(r.tools); r.err == nil {
				s.list = append(s.list, srv)
				continue
			}
			srv.remove()
			r.p.close()
		}
		if servers[i].Optional {
			s.failed = append(s.failed, r.err)
			s.opts.Warn(r.err.Error() + "; going on without its tools")
		} else {
			failed = append(failed, r.err)
		}
	}
	return errors.Join(failed...)
}

// Failed returns the errors of the Optional servers that did not start.
func (s *Servers) Failed() []error {
	if s == nil {
		return nil
	}
	return slices.Clone(s.failed)
}

// Close stops every server (closing its input, then signalling its
// process group) and removes its tools from the registry.
func (s *Servers) Close() {
	if s == nil {
		return
	}
	var wg sync.WaitGroup
	for _, srv := range s.list {
		srv.remove()
		wg.Go(srv.close)
	}
	wg.Wait()
}

// ServerOf returns the name of the server whose tool is registered as
// name.
func (s *Servers) ServerOf(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, srv := range s.list {
		srv.mu.Lock()
		ok := slices.Contains(srv.names, name)
		srv.mu.Unlock()
		if ok {
			return srv.cfg.Name, true
		}
	}
	return "", false
}

// server is one configured MCP server, and the process that runs it.
type server struct {
	set            *Servers
	cfg            Server
	timeout        time.Duration // of a call
	connectTimeout time.Duration
	client         *sdk.Client
	schemas        *schemaLog

	procMu  sync.Mutex // guards p and started
	p       *proc      // the process, once started
	started time.Time  // when p was started, or a restart tried

	restartMu sync.Mutex // one restart at a time
	refreshMu sync.Mutex // one refresh at a time
	mu        sync.Mutex // guards names, closed and their registry entries
	names     []string   // registered tool names
	closed    bool       // Servers.Close took the tools out
}

// proc is one run of a server's process and its session.
type proc struct {
	conn    *stdioConn
	session *sdk.ClientSession
	stderr  *tail
	ended   chan struct{} // closed when the session ends
}

func (s *Servers) newServer(cfg Server) *server {
	srv := &server{set: s, cfg: cfg, timeout: cmp.Or(cfg.Timeout, s.opts.Timeout),
		connectTimeout: cmp.Or(cfg.ConnectTimeout, s.opts.ConnectTimeout), schemas: &schemaLog{}}
	srv.client = sdk.NewClient(&sdk.Implementation{Name: "offgrid", Version: s.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Not in the handler: it runs on the connection's reader.
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), srv.timeout)
				defer cancel()
				if err := srv.refresh(ctx); err != nil && !srv.isClosed() {
					s.opts.Warn(fmt.Sprintf("MCP server %s: the tool list changed but could not be read: %v", cfg.Name, err))
				}
			}()
		},
	})
	return srv
}

// errConnectTimeout is the cause of a start's context when it timed out.
var errConnectTimeout = errors.New("connect timeout")

// connect starts the server's process, opens the session and lists the
// tools, within the connect timeout. On failure the process is gone and
// the error says what happened.
func (srv *server) connect(ctx context.Context) (*proc, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, srv.connectTimeout, errConnectTimeout)
	defer cancel()
	cfg := srv.cfg
	p := &proc{stderr: &tail{max: 4 << 10}, ended: make(chan struct{})}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	childAttrs(cmd)
	tr := &stdioTransport{cmd: cmd, maxMessage: srv.set.opts.MaxMessage, discoverWait: discoverWait(srv.connectTimeout),
		schemas: srv.schemas, stderr: p.stderr, grace: time.Second}
	session, err := srv.client.Connect(ctx, tr, nil)
	p.conn = tr.conn
	if err == nil {
		p.session = session
		go func() {
			session.Wait()
			close(p.ended)
		}()
		var list []*sdk.Tool
		list, err = srv.list(ctx, p)
		if err == nil {
			p.conn.established.Store(true)
			return p, list, nil
		}
	}
	if p.conn != nil {
		err = p.failure(ctx, srv.connectTimeout, err)
		p.conn.Close()
		p.conn.settle(500 * time.Millisecond)
	}
	return nil, nil, &StartError{Name: cfg.Name, Err: fmt.Errorf("MCP server %s (%s, from %s) %w: %w%s",
		cfg.Name, cfg.commandLine(), cfg.Origin, ErrNotStarted, err, p.stderr.note())}
}

// StartError is the error of a server that did not start. It says which
// server, its command, what happened and the last lines of its stderr;
// it wraps [ErrNotStarted].
type StartError struct {
	Name string // the server's
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// discoverWait is how long a server has to answer server/discover before
// offgrid tries initialize instead: a quarter of the connect timeout, at
// most two seconds.
func discoverWait(connect time.Duration) time.Duration {
	return min(connect/4, 2*time.Second)
}

// failure says what went wrong with a process that failed err: it
// exited, it did not answer in time, or err itself; and what it wrote
// that was not MCP.
func (p *proc) failure(ctx context.Context, timeout time.Duration, err error) error {
	if !errors.Is(context.Cause(ctx), errConnectTimeout) {
		p.conn.settle(500 * time.Millisecond) // the pipe may close first
	}
	switch st := p.conn.exitStatus(); {
	case st != "":
		err = fmt.Errorf("it exited (%s)", st)
	case errors.Is(context.Cause(ctx), errConnectTimeout):
		what := "any request"
		if ms := p.conn.pendingMethods(); len(ms) > 0 {
			slices.Sort(ms)
			what = strings.Join(ms, ", ")
		}
		err = fmt.Errorf("no answer to %s within %s, its connect timeout", what, timeout)
	}
	if n := p.conn.notes(); n != "" {
		return fmt.Errorf("%w%s", err, n)
	}
	return err
}

// commandLine returns the server's command and arguments as one line,
// quoted where needed.
func (s Server) commandLine() string {
	words := make([]string, 0, 1+len(s.Args))
	for _, w := range append([]string{s.Command}, s.Args...) {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`") {
			w = strconv.Quote(w)
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// setProc makes p the server's process.
func (srv *server) setProc(p *proc) {
	srv.procMu.Lock()
	defer srv.procMu.Unlock()
	srv.p, srv.started = p, time.Now()
}

// current returns the server's process and when it started.
func (srv *server) current() (*proc, time.Time) {
	srv.procMu.Lock()
	defer srv.procMu.Unlock()
	return srv.p, srv.started
}

// close ends the session and makes sure the process group is gone.
func (srv *server) close() {
	if p, _ := srv.current(); p != nil {
		p.close()
	}
}

// close ends the session: the server's stdin is closed, then its
// process group signalled, and the process reaped.
func (p *proc) close() {
	p.session.Close()
	p.conn.Close()
}

// list lists the tools of the server's session, at most MaxTools of
// them.
func (srv *server) list(ctx context.Context, p *proc) ([]*sdk.Tool, error) {
	var list []*sdk.Tool
	for t, err := range p.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		if len(list) == MaxTools {
			srv.set.opts.Warn(fmt.Sprintf("MCP server %s offers more than %d tools: only the first %d are offered", srv.cfg.Name, MaxTools, MaxTools))
			break
		}
		list = append(list, t)
	}
	return list, nil
}

// refresh lists the server's tools and puts them in the registry in
// place of the ones it had.
func (srv *server) refresh(ctx context.Context) error {
	p, _ := srv.current()
	if p == nil {
		return nil // the tools of the start are yet to come
	}
	list, err := srv.list(ctx, p)
	if err != nil {
		return fmt.Errorf("MCP server %s: %w%s", srv.cfg.Name, err, p.stderr.note())
	}
	return srv.apply(list)
}

// apply puts the listed tools in the registry in place of the ones the
// server had.
func (srv *server) apply(list []*sdk.Tool) error {
	srv.refreshMu.Lock()
	defer srv.refreshMu.Unlock()
	var add []*tools.Tool
	seen := map[string]bool{}
	srv.mu.Lock()
	old := srv.names
	srv.mu.Unlock()
	for _, t := range list {
		tool, warnings, err := srv.tool(t)
		for _, w := range warnings {
			srv.set.opts.Warn(w)
		}
		if err != nil {
			srv.set.opts.Warn(fmt.Sprintf("MCP server %s: tool %q skipped: %v", srv.cfg.Name, cut(t.Name, 100), err))
			continue
		}
		_, taken := srv.set.reg.Lookup(tool.Name)
		if seen[tool.Name] || taken && !slices.Contains(old, tool.Name) || slices.Contains(srv.set.opts.Reserved, tool.Name) {
			srv.set.opts.Warn(fmt.Sprintf("MCP server %s: tool %q skipped: the name %s is taken", srv.cfg.Name, cut(t.Name, 100), tool.Name))
			continue
		}
		seen[tool.Name] = true
		if keep := srv.set.opts.Keep; keep != nil && !keep(tool.Name) {
			continue
		}
		add = append(add, tool)
	}
	names := make([]string, len(add))
	for i, t := range add {
		names[i] = t.Name
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return nil
	}
	if err := srv.set.reg.Replace(srv.names, add); err != nil {
		return fmt.Errorf("MCP server %s: %w", srv.cfg.Name, err)
	}
	srv.names = names
	return nil
}

// remove takes the server's tools out of the registry for good: no
// later refresh adds them again.
func (srv *server) remove() {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.closed = true
	srv.set.reg.Replace(srv.names, nil)
	srv.names = nil
}

func (srv *server) isClosed() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.closed
}

// tool turns an MCP tool into an offgrid one: the name prefixed and
// sanitised, the input schema as the server wrote it (property order
// kept), the risk from the annotations. The schema must compile and
// yield a grammar in every call format; keywords the grammar does not
// enforce come back as warnings.
func (srv *server) tool(t *sdk.Tool) (*tools.Tool, []string, error) {
	schema, ok := srv.schemas.get(t.Name)
	if !ok {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("input schema: %w", err)
		}
		schema = b
	}
	name := ToolName(srv.cfg.Name, t.Name)
	schema, warnings, err := boundSchema(name, objectSchema(schema))
	if err != nil {
		return nil, nil, err
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	desc, cutWarning := boundDescription(name, desc)
	warnings = append(warnings, cutWarning...)
	orig := t.Name
	tool := &tools.Tool{
		Name: name, Description: desc, Parameters: schema, Risk: risk(t.Annotations),
		Run: func(ctx context.Context, args json.RawMessage) (string, error) { return srv.call(ctx, orig, args) },
	}
	if err := tools.NewRegistry().Add(tool); err != nil { // compiles the schema
		return nil, nil, err
	}
	defs, err := grammar.ParseTools(tool.OpenAI())
	if err != nil {
		return nil, nil, err
	}
	for _, f := range grammar.Formats() {
		g, err := grammar.ForTools(defs, f, grammar.ToolOptions{ToolChoice: grammar.Auto})
		if err != nil {
			return nil, nil, fmt.Errorf("no grammar for its input schema: %w", err)
		}
		if f == grammar.Hermes { // the JSON formats share their warnings
			for _, w := range g.Warnings {
				warnings = append(warnings, fmt.Sprintf("MCP tool %s: %s (the server checks it)", tool.Name, strings.TrimPrefix(w, tool.Name+": ")))
			}
		}
	}
	return tool, warnings, nil
}

// objectSchema adds "type":"object" to a schema object without a type,
// as some servers write for tools without arguments.
func objectSchema(schema json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil || top == nil || top["type"] != nil {
		return schema
	}
	s := strings.TrimSpace(string(schema))
	if strings.TrimSpace(s[1:len(s)-1]) == "" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(`{"type":"object",` + s[1:])
}

// ToolName is the registry name of tool of server: SERVER_TOOL with every
// byte a model cannot call replaced by '_', cut to 64 bytes.
func ToolName(server, tool string) string {
	b := []byte(server + "_" + tool)
	for i, c := range b {
		if !nameRune(rune(c)) {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// risk maps an MCP tool's annotations to a risk level: read-only tools
// are safe; tools that change things are high unless the server says they
// are not destructive (medium); without annotations a tool is medium.
func risk(a *sdk.ToolAnnotations) tools.Risk {
	switch {
	case a == nil:
		return tools.Medium
	case a.ReadOnlyHint:
		return tools.Safe
	case a.DestructiveHint != nil && !*a.DestructiveHint:
		return tools.Medium
	default: // the spec's default for a tool that is not read-only
		return tools.High
	}
}

// errTimeout is the cause of a call's context when the call timed out.
var errTimeout = errors.New("timeout")

// call runs one tool call on the server, restarting it first if it
// stopped.
func (srv *server) call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	p, err := srv.live(ctx)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, srv.timeout, errTimeout)
	defer cancel()
	res, err := p.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", srv.callError(ctx, p, tool, err)
	}
	text := content(res)
	if res.IsError {
		if text == "" {
			text = "the tool failed and said nothing more"
		}
		return "", tools.Errorf(tools.TypeIO, "%s", text)
	}
	return text, nil
}

// live returns the server's process; one that stopped is started again,
// at most once per restart interval, and the restart reported.
func (srv *server) live(ctx context.Context) (*proc, error) {
	srv.restartMu.Lock()
	defer srv.restartMu.Unlock()
	p, started := srv.current()
	if !p.stopped() {
		return p, nil
	}
	how := p.how()
	p.close() // reap it
	interval := srv.set.opts.RestartInterval
	if wait := interval - time.Since(started); wait > 0 {
		return nil, tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; offgrid restarts a server at most once every %s, on a call in %s or later%s",
			srv.cfg.Name, how, interval, wait.Round(time.Second), p.stderr.note())
	}
	if srv.isClosed() {
		return nil, tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; the session is ending", srv.cfg.Name, how)
	}
	np, list, err := srv.connect(ctx)
	if err == nil && srv.isClosed() { // Close came during the restart
		np.close()
		return nil, tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; the session is ending", srv.cfg.Name, how)
	}
	if err != nil {
		srv.procMu.Lock()
		srv.started = time.Now()
		srv.procMu.Unlock()
		srv.set.opts.Warn(fmt.Sprintf("MCP server %s stopped (%s) and was not restarted: %v", srv.cfg.Name, how, err))
		return nil, tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; restarting it failed: %v", srv.cfg.Name, how, err)
	}
	srv.setProc(np)
	srv.set.opts.Warn(fmt.Sprintf("MCP server %s stopped (%s); restarted it", srv.cfg.Name, how))
	if err := srv.apply(list); err != nil {
		srv.set.opts.Warn(err.Error())
	}
	return np, nil
}

// stopped reports whether the process's session ended.
func (p *proc) stopped() bool {
	select {
	case <-p.ended:
		return true
	default:
		return false
	}
}

// how says how a stopped process ended.
func (p *proc) how() string {
	p.conn.settle(time.Second) // the pipe may close first
	if st := p.conn.exitStatus(); st != "" {
		return "it exited (" + st + ")"
	}
	return "its connection closed"
}

// callError classifies a failed call for the wire.
func (srv *server) callError(ctx context.Context, p *proc, tool string, err error) error {
	name := srv.cfg.Name
	var wire *jsonrpc.Error
	isWire := errors.As(err, &wire)
	switch {
	case errors.Is(context.Cause(ctx), errTimeout):
		return tools.Errorf(tools.TypeIO, "MCP server %s did not answer %s within %s; the call was cancelled", name, tool, srv.timeout)
	case ctx.Err() != nil:
		return tools.Errorf(tools.TypeInternal, "MCP call %s cancelled: %w", tool, context.Cause(ctx))
	case isWire:
		if big, ok := tooLargeOf(wire); ok {
			return tools.Errorf(tools.TypeIO, "MCP server %s: the result of %s is %s, over the %s offgrid reads in one message; the call failed, the server goes on: ask for less",
				name, tool, bytesize(big.Size), bytesize(int64(big.Max)))
		}
		switch wire.Code {
		case jsonrpc.CodeInvalidParams:
			return tools.Errorf(tools.TypeValidationFailed, "MCP server %s refused the arguments of %s: %s", name, tool, wire.Message)
		case jsonrpc.CodeMethodNotFound:
			return tools.Errorf(tools.TypeNotFound, "MCP server %s: %s", name, wire.Message)
		}
	default:
		// Not the server's answer: the connection broke (EOF, closed).
		// If the server is gone, say so.
		select {
		case <-p.ended:
			return p.dead(name)
		case <-time.After(2 * time.Second):
		}
	}
	return tools.Errorf(tools.TypeInternal, "MCP server %s: %s: %v", name, tool, err)
}

// dead returns the error of a call the server stopped in.
func (p *proc) dead(name string) error {
	return tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; offgrid restarts it on a later call%s",
		name, p.how(), p.stderr.note())
}

// content joins a result's content as text: text parts as they are, a
// text resource's text, a line naming anything else (images, audio,
// links). With no content, structured content is the text, as JSON.
func content(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

// tail keeps the last max bytes written to it: a server's stderr, quoted
// when it fails.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// note returns "; its stderr ends: …" with the last lines the server
// wrote (three, each cut to 300 bytes), or "".
func (t *tail) note() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	for i, l := range lines {
		lines[i] = cut(strings.TrimSpace(l), 300)
	}
	return "; its stderr ends: " + strings.Join(lines, " | ")
}
