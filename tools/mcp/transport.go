package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage is the default cap on one message read from a server (a
// line of its stdout). A larger response fails its request with an error
// saying so, and the connection goes on; a larger notification, request or
// anything else is dropped.
const MaxMessage = 16 << 20

// keptNotifications are the notifications from a server that reach the
// SDK: the others (logging, progress, resource and prompt changes) are
// read and dropped, so a flood of them costs no more than reading it.
var keptNotifications = map[string]bool{
	"notifications/tools/list_changed": true,
	"notifications/cancelled":          true,
}

// tooLarge is the Data of the error a response over the cap is replaced
// with.
type tooLarge struct {
	Offgrid string `json:"offgrid"` // "too_large"
	Size    int64  `json:"size"`
	Max     int    `json:"max"`
}

// tooLargeOf returns the sizes of an error that replaced a response over
// the cap.
func tooLargeOf(e *jsonrpc.Error) (tooLarge, bool) {
	var t tooLarge
	if e == nil || len(e.Data) == 0 || json.Unmarshal(e.Data, &t) != nil || t.Offgrid != "too_large" {
		return tooLarge{}, false
	}
	return t, true
}

// stdioTransport starts a server's command and speaks newline-delimited
// JSON-RPC with it over its stdin and stdout, as the SDK's
// CommandTransport does, with these differences: a message over the cap
// fails its request instead of the connection; lines that are not JSON-RPC
// are skipped and remembered; notifications offgrid does not use are
// dropped as they are read; a server/discover request that is not
// answered within discoverWait, or by the time the server answered a ping
// sent after it, is answered "method not found" in the server's place, so
// the SDK falls back to initialize (a server of an older protocol may
// ignore methods it does not know); and it keeps the
// raw input schemas of tools/list results (see [schemaLog]).
type stdioTransport struct {
	cmd          *exec.Cmd
	maxMessage   int
	discoverWait time.Duration
	schemas      *schemaLog
	stderr       io.Writer     // receives the server's stderr
	grace        time.Duration // Close waits this long for an exit before each signal
	conn         *stdioConn    // set by Connect
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	// Pipes of its own, not exec's: the write end of stdin takes
	// deadlines, and Wait returns when the server exits even if a
	// process it started holds stdout or stderr open.
	var ends [6]*os.File // stdin r, w; stdout r, w; stderr r, w
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i])
			return nil, err
		}
		ends[i], ends[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = inR, outW, errW
	err := t.cmd.Start()
	closeAll([]*os.File{inR, outW, errW})
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return nil, err
	}
	stderrDone := make(chan struct{})
	go func() {
		io.Copy(t.stderr, errR)
		errR.Close()
		close(stderrDone)
	}()
	c := &stdioConn{
		cmd: t.cmd, stdin: inW, stdout: outR, max: t.maxMessage, discoverWait: t.discoverWait, schemas: t.schemas, grace: t.grace,
		in: make(chan jsonrpc.Message), done: make(chan struct{}), closed: make(chan struct{}), exited: make(chan struct{}),
		pending: map[jsonrpc.ID]string{}, gaveUp: map[jsonrpc.ID]string{}, answered: map[jsonrpc.ID]bool{}, stderrDone: stderrDone,
	}
	t.conn = c
	go c.wait()
	go c.readLoop()
	return c, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// stdioConn is the connection of a [stdioTransport].
type stdioConn struct {
	cmd          *exec.Cmd
	stdin        *os.File
	stdout       *os.File
	max          int
	discoverWait time.Duration
	schemas      *schemaLog
	grace        time.Duration

	in      chan jsonrpc.Message // messages for the SDK
	done    chan struct{}        // closed when the read loop ends; readErr is then set
	readErr error
	closed  chan struct{} // closed by Close
	exited  chan struct{} // closed when the process has exited and been reaped
	// stderrDone is closed when all of stderr is read (the process
	// group is gone).
	stderrDone chan struct{}
	waitErr    error // the result of cmd.Wait, once exited is closed

	writeMu     sync.Mutex
	closeOnce   sync.Once
	established atomic.Bool // the session is open: Close is graceful
	killed      atomic.Bool // offgrid signalled the process

	mu       sync.Mutex
	pending  map[jsonrpc.ID]string // requests sent and not answered: their methods
	gaveUp   map[jsonrpc.ID]string // requests the client cancelled before an answer: their methods
	answered map[jsonrpc.ID]bool   // requests answered in the server's place: drop its late answers
	discover jsonrpc.ID            // the server/discover request
	garbage  int                   // lines that were not JSON-RPC messages
	lastBad  string                // the last of them, cut
	dropped  int                   // notifications dropped
	tooLarge int                   // messages over the cap
}

func (c *stdioConn) SessionID() string { return "" }

// wait reaps the process, then kills what is left of its process group:
// a grandchild must not keep stdout open, nor outlive the server.
func (c *stdioConn) wait() {
	c.waitErr = c.cmd.Wait()
	killGroup(c.cmd)
	close(c.exited)
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	if c.sent(m) {
		data = append(append(data, '\n'), probe...)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// A server that does not read its stdin must not hold the caller past
	// its context.
	c.stdin.SetWriteDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { c.stdin.SetWriteDeadline(time.Now()) })
	n, err := c.stdin.Write(append(data, '\n'))
	stop()
	if err != nil && n > 0 {
		c.Close() // half a message went out: the stream is broken
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// probe follows a server/discover request: a server that answers it
// but not server/discover ignores methods it does not know, and is
// spoken to with initialize at once. (Ping is the one request the
// protocol allows before initialize.)
var (
	probe, _   = jsonrpc.EncodeMessage(&jsonrpc.Request{ID: probeID, Method: "ping"})
	probeID, _ = jsonrpc.MakeID("offgrid-probe")
)

// probeGrace is how long after the probe's answer server/discover may
// still be answered: a server may answer requests out of order.
const probeGrace = 200 * time.Millisecond

// sent records a request sent to the server, or a cancellation of one;
// it reports whether the probe is to follow it.
func (c *stdioConn) sent(m jsonrpc.Message) bool {
	r, ok := m.(*jsonrpc.Request)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case r.ID.IsValid():
		c.pending[r.ID] = r.Method
		if r.Method == "tools/list" {
			c.schemas.expect(r.ID)
		}
		if r.Method == "server/discover" && c.discoverWait > 0 {
			time.AfterFunc(c.discoverWait, func() { c.unanswered(r.ID) })
			c.discover = r.ID
			return true
		}
	case r.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(r.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				if m, ok := c.pending[id]; ok {
					c.gaveUp[id] = m // still unanswered, for failure's report
				}
				delete(c.pending, id)
			}
		}
	}
	return false
}

// unanswered answers a server/discover request the server did not answer
// in time with "method not found", in its place.
func (c *stdioConn) unanswered(id jsonrpc.ID) {
	c.mu.Lock()
	_, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
		c.answered[id] = true
	}
	c.mu.Unlock()
	if ok {
		c.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: "offgrid: no answer to server/discover; trying initialize"}})
	}
}

// deliver hands a message to the SDK, or drops it once the connection is
// closed.
func (c *stdioConn) deliver(m jsonrpc.Message) bool {
	select {
	case c.in <- m:
		return true
	case <-c.closed:
		return false
	}
}

// Close closes the server's stdin and waits for it to exit, then
// signals its process group: SIGTERM, then SIGKILL, grace apart.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.stdin.Close()
		grace := c.grace
		if !c.established.Load() {
			grace = 0 // a server that did not start gets none
		}
		c.stop(grace)
		c.stdout.Close()
	})
	return nil
}

// stop ends the process, waiting grace for it before each signal.
func (c *stdioConn) stop(grace time.Duration) {
	signal := func(f func(*exec.Cmd)) func() {
		return func() {
			c.killed.Store(true)
			f(c.cmd)
		}
	}
	for _, sig := range []func(){func() {}, signal(termGroup), signal(killGroup)} {
		sig()
		select {
		case <-c.exited:
			return
		case <-time.After(grace):
		}
	}
	<-c.exited
}

// readLoop reads the server's stdout, line by line, until it ends.
func (c *stdioConn) readLoop() {
	defer close(c.done)
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	for {
		line, over, err := readLine(br, c.max)
		line = bytes.TrimSpace(line)
		switch {
		case over != nil:
			c.oversize(over)
		case len(line) > 0:
			if !c.handle(line) {
				c.readErr = io.EOF
				return
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				err = io.EOF
			}
			c.readErr = err
			return
		}
	}
}

// handle passes a line's messages on; it reports false once the
// connection is closed.
func (c *stdioConn) handle(line []byte) bool {
	if unused(line) {
		c.mu.Lock()
		c.dropped++
		c.mu.Unlock()
		return true
	}
	msgs, err := decode(line)
	if err != nil {
		c.mu.Lock()
		c.garbage++
		c.lastBad = cut(string(line), 200)
		c.mu.Unlock()
		return true
	}
	for _, m := range msgs {
		if !c.keep(m) {
			continue
		}
		if !c.deliver(m) {
			return false
		}
	}
	return true
}

// keep reports whether a message from the server goes to the SDK, and
// records the answers.
func (c *stdioConn) keep(m jsonrpc.Message) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := m.(type) {
	case *jsonrpc.Response:
		if m.ID == probeID {
			if id := c.discover; c.pending[id] != "" {
				time.AfterFunc(probeGrace, func() { c.unanswered(id) })
			}
			return false
		}
		if c.answered[m.ID] {
			delete(c.answered, m.ID)
			return false
		}
		delete(c.pending, m.ID)
		delete(c.gaveUp, m.ID)
		c.schemas.response(m)
	case *jsonrpc.Request:
		if !m.ID.IsValid() && !keptNotifications[m.Method] {
			c.dropped++
			return false
		}
	}
	return true
}

// unused reports whether a line is a notification offgrid does not use:
// a cheap look at it, as the SDK takes some 30µs to decode a message and
// a server may send hundreds of thousands. (A line that is not JSON may
// be taken for one; it is dropped all the same.)
func unused(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("{")) || !bytes.Contains(line, []byte(`"method"`)) {
		return false
	}
	for name := range keptNotifications {
		if bytes.Contains(line, []byte(name)) {
			return false
		}
	}
	if !bytes.Contains(line, []byte(`"id"`)) {
		return true // a notification: no member can be the id
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &env) == nil && env.ID == nil && env.Method != ""
}

// decode reads one line: a JSON-RPC message, or a batch of them.
func decode(line []byte) ([]jsonrpc.Message, error) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, err
		}
		if len(raw) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, len(raw))
		for i, r := range raw {
			m, err := jsonrpc.DecodeMessage(r)
			if err != nil {
				return nil, err
			}
			msgs[i] = m
		}
		return msgs, nil
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// oversize handles a line over the cap: if it answers a pending request,
// the request fails with an error saying so.
func (c *stdioConn) oversize(o *overLine) {
	id, ok := o.id()
	c.mu.Lock()
	c.tooLarge++
	if ok {
		_, ok = c.pending[id]
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	data, _ := json.Marshal(tooLarge{Offgrid: "too_large", Size: o.size, Max: c.max})
	c.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("the answer is %s, over the %s cap on a message", bytesize(o.size), bytesize(int64(c.max))), Data: data}})
}

// pendingMethods returns the methods of the requests not yet answered,
// those the client gave up on (cancelled) included: when a connect times
// out, the client may cancel its request before failure reads them.
func (c *stdioConn) pendingMethods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ms []string
	for _, reqs := range []map[jsonrpc.ID]string{c.pending, c.gaveUp} {
		for _, m := range reqs {
			if !strings.HasPrefix(m, "subscriptions/") && !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// notes describes what the server wrote that was not used: lines that
// are not JSON-RPC and messages over the cap, or "".
func (c *stdioConn) notes() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s string
	if c.garbage > 0 {
		s += fmt.Sprintf("; its stdout had %d line(s) that are not JSON-RPC, the last: %q", c.garbage, c.lastBad)
	}
	if c.tooLarge > 0 {
		s += fmt.Sprintf("; %d message(s) over the %s cap were dropped", c.tooLarge, bytesize(int64(c.max)))
	}
	return s
}

// settle waits a little for the process to exit and its stderr to be
// read to the end, so that a report quotes its last words.
func (c *stdioConn) settle(wait time.Duration) {
	timeout := time.After(wait)
	for _, ch := range []chan struct{}{c.exited, c.stderrDone} {
		select {
		case <-ch:
		case <-timeout:
			return
		}
	}
}

// exitStatus returns how the process ended, or "" while it runs or
// when offgrid ended it.
func (c *stdioConn) exitStatus() string {
	select {
	case <-c.exited:
	default:
		return ""
	}
	if st := c.cmd.ProcessState; st != nil {
		if c.killed.Load() && st.ExitCode() < 0 {
			return "" // our signal
		}
		return st.String()
	}
	if c.waitErr != nil {
		return c.waitErr.Error()
	}
	return "exited"
}

// overLine is what is kept of a line over the cap: its size and its
// first and last bytes, where a response's id is.
type overLine struct {
	size       int64
	head, tail []byte
}

const overKeep = 4 << 10

// readLine reads a line of at most max bytes; a longer line is read to
// its end and returned as an overLine.
func readLine(br *bufio.Reader, max int) ([]byte, *overLine, error) {
	var line []byte
	var over *overLine
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case over != nil:
			over.add(chunk)
		case len(line)+len(chunk) > max:
			over = &overLine{}
			over.add(line)
			over.add(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, over, err
	}
}

func (o *overLine) add(p []byte) {
	o.size += int64(len(p))
	if n := overKeep - len(o.head); n > 0 {
		o.head = append(o.head, p[:min(n, len(p))]...)
	}
	o.tail = append(o.tail, p[max(0, len(p)-overKeep):]...)
	if len(o.tail) > overKeep {
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-overKeep:]...)
	}
}

// tailID matches a member "id" with a number or string value.
var tailID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*[,}]`)

// id returns the id of the message: a member of the top object before
// the large value, read from the head, or else the last "id" member of
// the tail (after the large value, so not inside it).
func (o *overLine) id() (jsonrpc.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(o.head))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				break
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				break
			}
			if key == "id" {
				return makeID(v)
			}
		}
	}
	all := tailID.FindAllSubmatch(o.tail, -1)
	if len(all) == 0 {
		return jsonrpc.ID{}, false
	}
	return makeID(all[len(all)-1][1])
}

func makeID(raw []byte) (jsonrpc.ID, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// bytesize formats n bytes for messages: "50.0 MB", "16 MiB"-free.
func bytesize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// cut returns s cut to at most n bytes, at a rune boundary, with "…" when
// cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// schemaLog holds the input schemas of tools/list results as the server
// wrote them: the SDK decodes them into maps, which lose the order of the
// properties, and the order is the order the model writes the arguments
// in.
type schemaLog struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	schemas map[string]json.RawMessage
}

func (l *schemaLog) expect(id jsonrpc.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[jsonrpc.ID]bool{}
	}
	l.pending[id] = true
}

func (l *schemaLog) response(r *jsonrpc.Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.pending[r.ID] {
		return
	}
	delete(l.pending, r.ID)
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Result, &res) != nil {
		return
	}
	if l.schemas == nil {
		l.schemas = map[string]json.RawMessage{}
	}
	for _, t := range res.Tools {
		l.schemas[t.Name] = t.InputSchema
	}
}

func (l *schemaLog) get(name string) (json.RawMessage, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.schemas[name]
	return s, ok && len(s) > 0
}
