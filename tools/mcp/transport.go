package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordingTransport keeps the input schemas of tools/list results as
// the server wrote them: the SDK decodes them into maps, which lose the
// order of the properties, and the order is the order the model writes
// the arguments in.
type recordingTransport struct {
	inner sdk.Transport
	log   *schemaLog
}

func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, log: t.log}, nil
}

type recordingConn struct {
	sdk.Connection
	log *schemaLog
}

func (c *recordingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/list" && r.ID.IsValid() {
		c.log.expect(r.ID)
	}
	return c.Connection.Write(ctx, m)
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.log.response(r)
	}
	return m, err
}

// schemaLog holds the raw input schema of each tool listed.
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
