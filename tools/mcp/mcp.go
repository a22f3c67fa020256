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

// Options configures [Start].
type Options struct {
	// Timeout caps each tool call (default [DefaultTimeout]); a server's
	// own Timeout wins.
	Timeout time.Duration
	// StartTimeout caps starting a server and listing its tools (default
	// two minutes: npx may download the server first).
	StartTimeout time.Duration
	// Warn receives problems that do not stop anything: an optional
	// server that did not start, a tool skipped for its schema, schema
	// keywords the grammar does not enforce, a failed refresh.
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
	reg  *tools.Registry
	opts Options
	list []*server
}

// Start starts the servers, lists their tools and adds them to reg,
// before the tools reg already holds: a small model favours the first
// tools it is shown, and these servers were attached for the session.
// The names reg holds stay theirs (a server's tool of such a name is
// skipped). A server that fails to start is an error (the others are
// stopped, reg is left as it was), or a warning when it is Optional.
func Start(ctx context.Context, reg *tools.Registry, servers []Server, opts Options) (*Servers, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
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
	started := make([]*server, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, cfg := range servers {
		wg.Go(func() { started[i], errs[i] = s.connect(ctx, cfg) })
	}
	wg.Wait()
	var failed []error
	for i, srv := range started {
		if errs[i] == nil {
			errs[i] = srv.refresh(ctx)
		}
		switch {
		case errs[i] == nil:
			s.list = append(s.list, srv)
			continue
		case srv != nil:
			srv.remove()
			srv.close()
		}
		if servers[i].Optional {
			s.opts.Warn(fmt.Sprintf("MCP server %s (%s) was not started: %v", servers[i].Name, servers[i].Origin, errs[i]))
		} else {
			failed = append(failed, errs[i])
		}
	}
	return errors.Join(failed...)
}

// Close stops every server (closing its input, then signalling it and
// its process group) and removes its tools from the registry.
func (s *Servers) Close() {
	if s == nil {
		return
	}
	for _, srv := range s.list {
		srv.remove()
		srv.close()
	}
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

// server is one running MCP server.
type server struct {
	set     *Servers
	cfg     Server
	timeout time.Duration
	cmd     *exec.Cmd
	session *sdk.ClientSession
	schemas *schemaLog
	stderr  *tail

	closeOnce sync.Once
	ended     chan struct{} // closed when the connection ends

	refreshMu sync.Mutex // one refresh at a time
	mu        sync.Mutex // guards names, closed and their registry entries
	names     []string   // registered tool names
	closed    bool       // Servers.Close took the tools out
}

func (s *Servers) connect(ctx context.Context, cfg Server) (*server, error) {
	srv := &server{set: s, cfg: cfg, timeout: cmp.Or(cfg.Timeout, s.opts.Timeout),
		schemas: &schemaLog{}, stderr: &tail{max: 4 << 10}, ended: make(chan struct{})}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Stderr = srv.stderr
	cmd.WaitDelay = time.Second
	childAttrs(cmd)
	srv.cmd = cmd
	client := sdk.NewClient(&sdk.Implementation{Name: "offgrid", Version: s.opts.Version}, &sdk.ClientOptions{
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
	ctx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	tr := &recordingTransport{inner: &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, log: srv.schemas}
	session, err := client.Connect(ctx, tr, nil)
	if err != nil {
		if cmd.Process != nil {
			srv.close()
		}
		return nil, fmt.Errorf("MCP server %s: %s: %w%s", cfg.Name, cfg.Command, err, srv.stderr.note())
	}
	srv.session = session
	go func() {
		session.Wait()
		close(srv.ended)
	}()
	return srv, nil
}

// close ends the session and makes sure the process group is gone.
func (srv *server) close() {
	srv.closeOnce.Do(func() {
		if srv.session != nil {
			srv.session.Close() // closes stdin, waits, then SIGTERM, SIGKILL
		} else if srv.cmd.Process != nil {
			srv.cmd.Process.Kill()
			srv.cmd.Wait()
		}
		killGroup(srv.cmd)
	})
}

// refresh lists the server's tools and puts them in the registry in
// place of the ones it had.
func (srv *server) refresh(ctx context.Context) error {
	srv.refreshMu.Lock()
	defer srv.refreshMu.Unlock()
	var list []*sdk.Tool
	for t, err := range srv.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("MCP server %s: list tools: %w%s", srv.cfg.Name, err, srv.stderr.note())
		}
		list = append(list, t)
	}
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
			srv.set.opts.Warn(fmt.Sprintf("MCP server %s: tool %q skipped: %v", srv.cfg.Name, t.Name, err))
			continue
		}
		_, taken := srv.set.reg.Lookup(tool.Name)
		if seen[tool.Name] || taken && !slices.Contains(old, tool.Name) || slices.Contains(srv.set.opts.Reserved, tool.Name) {
			srv.set.opts.Warn(fmt.Sprintf("MCP server %s: tool %q skipped: the name %s is taken", srv.cfg.Name, t.Name, tool.Name))
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
	schema = objectSchema(schema)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	orig := t.Name
	tool := &tools.Tool{
		Name: ToolName(srv.cfg.Name, t.Name), Description: desc, Parameters: schema, Risk: risk(t.Annotations),
		Run: func(ctx context.Context, args json.RawMessage) (string, error) { return srv.call(ctx, orig, args) },
	}
	if err := tools.NewRegistry().Add(tool); err != nil { // compiles the schema
		return nil, nil, err
	}
	defs, err := grammar.ParseTools(tool.OpenAI())
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
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

// call runs one tool call on the server.
func (srv *server) call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	if err := srv.dead(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, srv.timeout, errTimeout)
	defer cancel()
	res, err := srv.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", srv.callError(ctx, tool, err)
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

// callError classifies a failed call for the wire.
func (srv *server) callError(ctx context.Context, tool string, err error) error {
	name := srv.cfg.Name
	var wire *jsonrpc.Error
	switch {
	case errors.Is(context.Cause(ctx), errTimeout):
		return tools.Errorf(tools.TypeIO, "MCP server %s did not answer %s within %s; the call was cancelled", name, tool, srv.timeout)
	case ctx.Err() != nil:
		return tools.Errorf(tools.TypeInternal, "MCP call %s cancelled: %w", tool, context.Cause(ctx))
	case srv.dead() != nil:
		return srv.dead()
	case errors.As(err, &wire) && wire.Code == jsonrpc.CodeInvalidParams:
		return tools.Errorf(tools.TypeValidationFailed, "MCP server %s refused the arguments of %s: %s", name, tool, wire.Message)
	case errors.As(err, &wire) && wire.Code == jsonrpc.CodeMethodNotFound:
		return tools.Errorf(tools.TypeNotFound, "MCP server %s: %s", name, wire.Message)
	case !errors.As(err, &wire):
		// Not the server's answer: the connection broke (EOF, closed).
		// If the server is gone, say so.
		select {
		case <-srv.ended:
			return srv.dead()
		case <-time.After(2 * time.Second):
		}
	}
	return tools.Errorf(tools.TypeInternal, "MCP server %s: %s: %v", name, tool, err)
}

// dead returns the error calls get once the server's connection ended,
// or nil while it lives.
func (srv *server) dead() error {
	select {
	case <-srv.ended:
	default:
		return nil
	}
	srv.close() // reap the process for its exit status
	how := "its connection closed"
	if st := srv.cmd.ProcessState; st != nil {
		how = "it exited (" + st.String() + ")"
	}
	return tools.Errorf(tools.TypeInternal, "MCP server %s is not running: %s; its tools are unavailable until offgrid restarts it%s",
		srv.cfg.Name, how, srv.stderr.note())
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
// wrote, or "".
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
	return "; its stderr ends: " + strings.Join(lines, " | ")
}
