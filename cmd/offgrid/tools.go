package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/internal/jsonx"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/tools"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

func cmdTools(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(env.stderr, "Usage:\n  offgrid tools list [--json] [--root DIR] [--mcp 'NAME=COMMAND ARGS…']\n  offgrid tools call NAME ['JSON'|-] [--yes] [--allow NAME] [--deny NAME] [--max-risk R] [--bash-unconfined] [--allow-hardlinks] [--root DIR] [--mcp 'NAME=COMMAND ARGS…']")
		if len(args) == 0 {
			return fmt.Errorf("%w: want list or call", errUsage)
		}
		return nil
	}
	switch args[0] {
	case "list", "ls":
		return toolsList(ctx, env, args[1:])
	case "call":
		return toolsCall(ctx, env, args[1:])
	}
	return fmt.Errorf("%w: unknown subcommand %q: want list or call", errUsage, args[0])
}

// builtinTools returns the built-in tools confined to root (see
// launch.BuiltinTools).
func builtinTools(root string, opts ...tools.BuiltinOption) (*tools.Registry, error) {
	return launch.BuiltinTools(root, opts...)
}

func toolsList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tools list", "tools list [--json] [--root DIR] [--mcp 'NAME=COMMAND ARGS…']")
	asJSON := fs.Bool("json", false, "print names, risks, sources, descriptions and argument schemas as JSON")
	root := fs.String("root", "", "the directory the tools work in (default: the current directory)")
	mcpf := addMCPFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: tools list takes no arguments", errUsage)
	}
	reg, servers, err := sessionTools(ctx, env, *root, mcpf)
	if err != nil {
		return err
	}
	defer servers.Close()
	// source says where a tool comes from: built in, or an MCP server.
	source := func(name string) string {
		if s, ok := servers.ServerOf(name); ok {
			return "mcp:" + s
		}
		return "builtin"
	}
	if *asJSON {
		type entry struct {
			Name        string          `json:"name"`
			Risk        tools.Risk      `json:"risk"`
			Source      string          `json:"source"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		var list []entry
		for _, t := range reg.Tools() {
			list = append(list, entry{t.Name, t.Risk, source(t.Name), t.Description, t.Parameters})
		}
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return err
		}
		return notStarted(servers)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRISK\tSOURCE\tARGUMENTS")
	for _, t := range reg.Tools() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Risk, source(t.Name), argNames(t.Parameters))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return notStarted(servers)
}

// errMCPNotStarted ends tools list when a server did not start: its
// tools are missing from the list, and the warning said why.
var errMCPNotStarted = errors.New("MCP servers did not start")

// notStarted returns errMCPNotStarted naming the servers that did not
// start, or nil.
func notStarted(servers *mcp.Servers) error {
	failed := servers.Failed()
	if len(failed) == 0 {
		return nil
	}
	var names []string
	for _, err := range failed {
		var se *mcp.StartError
		if errors.As(err, &se) {
			names = append(names, se.Name)
		}
	}
	return fmt.Errorf("%w: %s (see the warnings above); the list lacks their tools", errMCPNotStarted, strings.Join(names, ", "))
}

// argNames lists a schema's top-level properties, required ones first
// marked, in declared order.
func argNames(schema json.RawMessage) string {
	v, err := jsonx.Parse(schema)
	if err != nil {
		return ""
	}
	required := map[string]bool{}
	if req := v.Get("required"); req != nil && req.Kind == jsonx.Array {
		for _, e := range req.Elems {
			if name, ok := e.AsString(); ok {
				required[name] = true
			}
		}
	}
	var names []string
	if props := v.Get("properties"); props != nil && props.Kind == jsonx.Object {
		for _, m := range props.Members {
			name := m.Key
			if !required[name] {
				name = "[" + name + "]"
			}
			names = append(names, name)
		}
	}
	return strings.Join(names, " ")
}

// errToolFailed reports a call whose result was not a success; the result
// itself is already printed.
var errToolFailed = errors.New("tool call failed")

func toolsCall(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tools call", "tools call NAME ['JSON'|-] [flags]")
	perm := addPermFlags(fs)
	root := fs.String("root", "", "the directory the tools work in (default: the current directory)")
	mcpf := addMCPFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return fmt.Errorf("%w: want a tool name and, optionally, its arguments as JSON", errUsage)
	}
	name := fs.Arg(0)
	raw := json.RawMessage("{}")
	if fs.NArg() == 2 {
		raw = json.RawMessage(fs.Arg(1))
		if fs.Arg(1) == "-" {
			b, err := io.ReadAll(env.stdin)
			if err != nil {
				return fmt.Errorf("read arguments from stdin: %w", err)
			}
			raw = b
		}
	}
	reg, servers, err := sessionTools(ctx, env, *root, mcpf, perm.toolOptions()...)
	if err != nil {
		return err
	}
	defer servers.Close()
	var res tools.Result
	tool, ok := reg.Lookup(name)
	if !ok {
		res = reg.Execute(ctx, name, raw) // not_found, naming the tools
	} else {
		pol, prompter, err := perm.policy(env, reg, *root)
		if err != nil {
			return err
		}
		warn := func(err error) { fmt.Fprintf(env.stderr, "warning: %v\n", err) }
		if err := pol.Authorize(ctx, prompter, tool, raw, warn); err != nil {
			res = tools.Fail(tools.TypePermissionDenied, strings.TrimPrefix(err.Error(), permission.ErrDenied.Error()+": "))
		} else {
			res = reg.Execute(ctx, name, raw)
		}
	}
	if _, err := fmt.Fprintf(env.stdout, "%s\n", res.JSON()); err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("%w: %s", errToolFailed, res.ErrorType)
	}
	return nil
}
