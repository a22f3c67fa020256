package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/offgrid-ai/offgrid/inference"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func offgridVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func cmdVersion(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "version", "version [--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e := inference.Engine()
	if *asJSON {
		out := map[string]any{
			"version": offgridVersion(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
			"engine": map[string]any{"llama_cpp_commit": e.Commit, "compiler": e.Compiler, "target": e.Target,
				"system_info": e.SystemInfo, "devices": e.Devices},
		}
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(env.stdout, "offgrid %s (%s, %s/%s)\n", offgridVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(env.stdout, "engine: llama.cpp %s, built by %s for %s\n", e.Commit, e.Compiler, e.Target)
	fmt.Fprintf(env.stdout, "system: %s\n", e.SystemInfo)
	for _, d := range e.Devices {
		fmt.Fprintf(env.stdout, "device: %s\n", d)
	}
	return nil
}
