package main

import (
	"context"
	"fmt"
	"time"

	"github.com/offgrid-ai/offgrid/internal/launch"
)

func cmdModelsWarm(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models warm", "models warm [MODEL] [-t N]\n\nDecode the system prompt and tool definitions that `offgrid run` starts\nwith on MODEL (default: the default model) and keep their state in the\nprompt cache ($XDG_CACHE_HOME/offgrid/prompts), so the first answer of a\nlater run starts in about a second. `make model` and `models pull` do it.")
	threads := fs.IntP("threads", "t", 0, "CPU threads (0: one per physical core)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("%w: want at most one model", errUsage)
	}
	start := time.Now()
	if err := launch.Warm(ctx, env.launch(), fs.Arg(0), *threads); err != nil {
		return usageSetting(err)
	}
	fmt.Fprintf(env.stderr, "offgrid: prompt cache ready in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// warmModel precomputes a model's prompt cache after it is stored; a
// failure is a warning: the model works, its first answer is slower.
func warmModel(ctx context.Context, env *cliEnv, name string, skip bool) {
	if skip {
		return
	}
	fmt.Fprintf(env.stderr, "offgrid: precomputing the prompt cache of %s (once; `--no-warm` skips it)... ", name)
	start := time.Now()
	if err := launch.Warm(ctx, env.launch(), name, 0); err != nil {
		fmt.Fprintf(env.stderr, "failed: %v\n", err)
		return
	}
	fmt.Fprintf(env.stderr, "done in %s\n", time.Since(start).Round(100*time.Millisecond))
}
