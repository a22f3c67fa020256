package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offgrid-ai/offgrid/tools"
)

// The test binary is also the MCP server of the tests (and the parent
// process of the crash test), chosen by an environment variable, as
// os/exec's tests do: the transport is a real child process.
const (
	envServer = "OFFGRID_MCP_TEST_SERVER"
	envParent = "OFFGRID_MCP_TEST_PARENT"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envServer) != "":
		runTestServer()
		os.Exit(0)
	case os.Getenv(envParent) != "":
		runTestParent()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testServer is the Server config that starts the test server.
func testServer(name string) Server {
	return Server{Name: name, Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{envServer + "=1"}, Origin: "test"}
}

// orderSchema has nested objects and arrays, an enum, optional fields and
// a keyword the grammar does not enforce (pattern), with its properties
// in non-alphabetical order.
const orderSchema = `{"type":"object","properties":{
 "zeta":{"type":"string","description":"written first"},
 "user":{"type":"object","properties":{"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},
   "address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]}},"required":["name"]},
 "items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"qty":{"type":"integer","minimum":1}},"required":["id"]}},
 "mode":{"type":"string","enum":["fast","slow"]},
 "note":{"type":"string","pattern":"^[a-z]+$"}
},"required":["zeta","user","mode"]}`

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func runTestServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "offgrid-test", Version: "1"}, nil)
	add := func(name string, schema string, ann *sdk.ToolAnnotations, h sdk.ToolHandler) {
		s.AddTool(&sdk.Tool{Name: name, Description: "test tool " + name, InputSchema: json.RawMessage(schema), Annotations: ann}, h)
	}
	empty := `{"type":"object","properties":{}}`
	add("order", orderSchema, nil, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("got " + string(r.Params.Arguments)), nil
	})
	add("fail", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk on fire"}}}, nil
	})
	add("sleep", empty, nil, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
		return text("slept"), nil
	})
	add("huge", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strings.Repeat("0123456789abcdef", 1<<16)), nil // 1 MiB
	})
	add("structured", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{StructuredContent: map[string]any{"answer": 42}}, nil
	})
	add("grow", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		add("late", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("late tool"), nil
		})
		return text("grown"), nil
	})
	add("crash", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "fatal: out of cheese")
		os.Exit(3)
		return nil, nil
	})
	add("pid", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(fmt.Sprint(os.Getpid())), nil
	})
	add("look", empty, &sdk.ToolAnnotations{ReadOnlyHint: true}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("looked"), nil
	})
	add("wipe", empty, &sdk.ToolAnnotations{DestructiveHint: yes()}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("wiped"), nil
	})
	add("make", empty, &sdk.ToolAnnotations{DestructiveHint: no()}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("made"), nil
	})
	add("dotted.name", empty, nil, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("dotted"), nil
	})
	// No value has the schema's type: no grammar can be built.
	add("impossible", `{"type":"object","properties":{"x":{"type":"string","enum":[1,2]}},"required":["x"]}`, nil,
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("?"), nil })
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
}

// runTestParent starts the test server, prints its pid and waits to be
// killed: the crash test's stand-in for offgrid.
func runTestParent() {
	reg := tools.NewRegistry()
	s, err := Start(context.Background(), reg, []Server{testServer("t")}, Options{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	res := reg.Execute(context.Background(), "t_pid", nil)
	fmt.Println(res.Text())
	_ = s
	bufio.NewReader(os.Stdin).ReadString('\n') // until killed
}
