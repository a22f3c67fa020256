package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/inference/promptcache"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/internal/launch"
)

// speedFlags are the flags of bench --speed.
type speedFlags struct {
	promptTokens, genTokens, reps, ctxSize int
	batch                                  int // -b: tokens decoded at once
	model                                  inference.ModelOptions
	grammarOut                             string
}

// benchSpeed measures each model's prefill, decode and time to the first
// token (bench.Speed) and prints llama-bench-style rows, or with asJSON
// one object per model (an array when there are several). Results read
// from the compare files follow, with the ratios of the first result's
// medians to theirs.
func benchSpeed(ctx context.Context, env *cliEnv, refs []string, f speedFlags, threads int, asJSON bool, compare []string) error {
	if f.promptTokens < 1 || f.genTokens < 1 || f.reps < 1 {
		return fmt.Errorf("%w: --speed wants -p, -n and -r of at least 1", errUsage)
	}
	reg, err := builtinTools(".")
	if err != nil {
		return err
	}
	defs, err := grammar.ParseTools(reg.OpenAI())
	if err != nil {
		return err
	}
	if threads <= 0 {
		threads = inference.PhysicalCores()
	}
	var results []bench.SpeedResult
	if f.grammarOut != "" && len(refs) != 1 {
		return fmt.Errorf("%w: --grammar-out wants one -m MODEL", errUsage)
	}
	for _, ref := range refs {
		mr, err := lookupModel(ctx, env, ref)
		if err != nil {
			return err
		}
		r, err := speedModel(ctx, env, mr, f, threads, defs)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	for _, path := range compare {
		rs, err := readSpeedResults(path)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if len(results) == 1 {
			return enc.Encode(results[0])
		}
		return enc.Encode(results)
	}
	return bench.WriteSpeedComparison(env.stdout, results)
}

// readSpeedResults reads a --speed --json output: one result or an array.
func readSpeedResults(path string) ([]bench.SpeedResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var many []bench.SpeedResult
	if err := json.Unmarshal(data, &many); err == nil {
		return many, nil
	}
	var one bench.SpeedResult
	if err := json.Unmarshal(data, &one); err != nil {
		return nil, fmt.Errorf("%s: not a bench --speed result: %w", path, err)
	}
	return []bench.SpeedResult{one}, nil
}

func speedModel(ctx context.Context, env *cliEnv, mr launch.Ref, f speedFlags, threads int, defs []grammar.Tool) (bench.SpeedResult, error) {
	m, err := inference.Load(mr.Path, f.model)
	if err != nil {
		return bench.SpeedResult{}, err
	}
	defer m.Close()
	c, err := m.NewContext(inference.ContextOptions{ContextSize: max(f.ctxSize, f.promptTokens+f.genTokens+16), BatchSize: f.batch, Threads: threads})
	if err != nil {
		return bench.SpeedResult{}, err
	}
	defer c.Close()
	// The caches live in temporary directories for this run only: any
	// name of the model keys them.
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(mr.Path)))
	warn := func(err error) { fmt.Fprintf(env.stderr, "offgrid: warning: %v\n", err) }
	caches, done := bench.TempCaches(func(dir string) inference.PrefixCache {
		return promptcache.New(dir, sum, promptcache.Options{Warn: warn})
	})
	defer done()
	name := strings.TrimSuffix(filepath.Base(mr.Path), ".gguf")
	info := agent.InfoFromModel(m)
	if f.grammarOut != "" {
		g, err := bench.SpeedGrammar(info, defs)
		if err != nil {
			return bench.SpeedResult{}, err
		}
		if err := atomicfile.WriteFile(f.grammarOut, []byte(g.GBNF), 0o644); err != nil {
			return bench.SpeedResult{}, err
		}
	}
	res, err := bench.Speed(ctx, c, bench.SpeedOptions{
		Model: name, Threads: threads, PromptTokens: f.promptTokens, GenTokens: f.genTokens, Reps: f.reps,
		Info: info, Tools: defs, Cache: caches, SystemInfo: inference.Engine().SystemInfo, ModelBytes: m.Size(),
		Progress: func(test string, rep int) {
			fmt.Fprintf(env.stderr, "\r\033[K%s: %s %d/%d", name, test, rep+1, f.reps)
		},
	})
	fmt.Fprint(env.stderr, "\r\033[K")
	return res, err
}
