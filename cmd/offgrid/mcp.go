package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/offgrid-ai/offgrid/tools"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

// mcpFlags are the flags that attach MCP servers (run, tools list, tools
// call, bench --agent).
type mcpFlags struct {
	servers []string
	config  string
	timeout time.Duration
}

func addMCPFlags(fs *pflag.FlagSet) *mcpFlags {
	f := &mcpFlags{}
	fs.StringArrayVar(&f.servers, "mcp", nil, "attach an MCP server: 'NAME=COMMAND ARGS…' (repeatable); its tools are NAME_TOOL")
	fs.StringVar(&f.config, "mcp-config", "", "MCP servers file (default: $XDG_CONFIG_HOME/offgrid/mcp.json; none: read none)")
	fs.DurationVar(&f.timeout, "mcp-timeout", mcp.DefaultTimeout, "cap on each MCP tool call")
	return f
}

// servers returns the configured servers: the config file's, then the
// flags', a flag replacing the file's server of the same name.
func (f *mcpFlags) list(env *cliEnv) ([]mcp.Server, error) {
	var flags []mcp.Server
	for _, v := range f.servers {
		s, err := mcp.ParseFlag(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		flags = append(flags, s)
	}
	path := f.config
	if path == "" {
		p, err := mcp.DefaultConfigFile(env.getenv)
		if err != nil {
			fmt.Fprintf(env.stderr, "warning: %v; no MCP servers file is read\n", err)
		}
		path = p
	}
	var file []mcp.Server
	if path != "" && path != "none" {
		var warnings []string
		var err error
		file, warnings, err = mcp.LoadConfig(path)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			fmt.Fprintf(env.stderr, "warning: %s\n", w)
		}
	}
	return mcp.Merge(file, flags)
}

// start starts the configured MCP servers and adds their tools to reg.
// Close the result (nil when there are none) when done.
func (f *mcpFlags) start(ctx context.Context, env *cliEnv, reg *tools.Registry, reserved []string) (*mcp.Servers, error) {
	if f.timeout <= 0 {
		return nil, fmt.Errorf("%w: --mcp-timeout must be positive", errUsage)
	}
	list, err := f.list(env)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return mcp.Start(ctx, reg, list, mcp.Options{
		Timeout:  f.timeout,
		Warn:     func(s string) { fmt.Fprintf(env.stderr, "warning: %s\n", s) },
		Version:  offgridVersion(),
		Reserved: reserved,
	})
}

// sessionTools returns the tools of a session over root: the MCP
// servers' first, then the built-in ones. Small models favour the first
// tools they are shown, and the user attached the servers for this
// session: with the built-in tools first, the default model answers
// "list the files in DIR" with ls, not with the server it was given.
// Close the servers (nil when there are none) when done.
func sessionTools(ctx context.Context, env *cliEnv, root string, f *mcpFlags, opts ...tools.BuiltinOption) (*tools.Registry, *mcp.Servers, error) {
	builtin, err := builtinTools(root, opts...)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, t := range builtin.Tools() {
		names = append(names, t.Name)
	}
	reg := tools.NewRegistry()
	servers, err := f.start(ctx, env, reg, names)
	if err != nil {
		return nil, nil, err
	}
	if err := reg.Replace(nil, builtin.Tools()); err != nil {
		servers.Close()
		return nil, nil, err
	}
	return reg, servers, nil
}
