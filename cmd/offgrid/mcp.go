package main

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/offgrid-ai/offgrid/tools"
	"github.com/offgrid-ai/offgrid/tools/mcp"
)

// mcpFlags are the flags that attach MCP servers and choose the tools
// (run, tools list, tools call; bench --agent has its own --mcp).
type mcpFlags struct {
	servers []string
	config  string
	timeout time.Duration
	connect time.Duration // --mcp-connect-timeout
	tools   []string      // --tools: name patterns of the tools to offer
}

func addMCPFlags(fs *pflag.FlagSet) *mcpFlags {
	f := &mcpFlags{}
	fs.StringArrayVar(&f.servers, "mcp", nil, "attach an MCP server: 'NAME=COMMAND ARGS…' (repeatable); its tools are NAME_TOOL")
	fs.StringVar(&f.config, "mcp-config", "", "MCP servers file (default: $XDG_CONFIG_HOME/offgrid/mcp.json; none: read none)")
	fs.DurationVar(&f.timeout, "mcp-timeout", mcp.DefaultTimeout, "cap on each MCP tool call")
	fs.DurationVar(&f.connect, "mcp-connect-timeout", mcp.DefaultConnectTimeout, "cap on starting each MCP server and listing its tools; one that misses it is reported and left out")
	fs.StringSliceVar(&f.tools, "tools", nil, "offer only the tools whose names match these patterns (comma-separated, * and ? wildcards, e.g. 'fs_*,read_file'; default: all)")
	return f
}

// keep returns the --tools filter, or nil for all tools.
func (f *mcpFlags) keep() (func(string) bool, error) {
	if len(f.tools) == 0 {
		return nil, nil
	}
	for _, p := range f.tools {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%w: --tools %q: %v", errUsage, p, err)
		}
	}
	return func(name string) bool {
		return slices.ContainsFunc(f.tools, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}, nil
}

// list returns the configured servers: the config file's, then the
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

// start starts the configured MCP servers and adds their tools to reg,
// before the tools it holds. A server that does not start is reported
// (once, on stderr) and left out: the session goes on without its tools
// (see [mcp.Servers.Failed]).
// Close the result (nil when there are none) when done.
func (f *mcpFlags) start(ctx context.Context, env *cliEnv, reg *tools.Registry, keep func(string) bool) (*mcp.Servers, error) {
	if f.timeout <= 0 {
		return nil, fmt.Errorf("%w: --mcp-timeout must be positive", errUsage)
	}
	if f.connect <= 0 {
		return nil, fmt.Errorf("%w: --mcp-connect-timeout must be positive", errUsage)
	}
	list, err := f.list(env)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	names := make([]string, len(list))
	for i := range list {
		list[i].Optional = true
		names[i] = list[i].Name
	}
	var mu sync.Mutex // the note below and the warnings share stderr
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(env.stderr, format, args...)
	}
	// A start that takes a while is said, so that a wait of up to the
	// connect timeout (npx fetching a package) is not a silent one.
	begin, noted := time.Now(), make(chan struct{})
	note := time.AfterFunc(min(f.connect/2, 2*time.Second), func() {
		defer close(noted)
		say("offgrid: waiting for MCP servers to start: %s (at most %s)...\n", strings.Join(names, ", "), f.connect)
	})
	servers, err := mcp.Start(ctx, reg, list, mcp.Options{
		Timeout:        f.timeout,
		ConnectTimeout: f.connect,
		Warn:           func(s string) { say("warning: %s\n", s) },
		Version:        offgridVersion(),
		Keep:           keep,
	})
	if !note.Stop() {
		<-noted
		say("offgrid: MCP servers done starting in %.1fs\n", time.Since(begin).Seconds())
	}
	return servers, err
}

// sessionTools returns the tools of a session over root: the MCP
// servers' first (see [mcp.Start]), then the built-in ones; --tools
// chooses among them. Close the servers (nil when there are none) when
// done.
func sessionTools(ctx context.Context, env *cliEnv, root string, f *mcpFlags, opts ...tools.BuiltinOption) (*tools.Registry, *mcp.Servers, error) {
	reg, err := builtinTools(root, opts...)
	if err != nil {
		return nil, nil, err
	}
	keep, err := f.keep()
	if err != nil {
		return nil, nil, err
	}
	if keep != nil {
		var drop []string
		for _, t := range reg.Tools() {
			if !keep(t.Name) {
				drop = append(drop, t.Name)
			}
		}
		reg.Replace(drop, nil)
	}
	servers, err := f.start(ctx, env, reg, keep)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range f.tools {
		if !slices.ContainsFunc(reg.Tools(), func(t *tools.Tool) bool { ok, _ := path.Match(p, t.Name); return ok }) {
			servers.Close()
			return nil, nil, fmt.Errorf("%w: --tools %s: no such tool (see offgrid tools list)", errUsage, p)
		}
	}
	return reg, servers, nil
}
