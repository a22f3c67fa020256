package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/offgrid-ai/offgrid/inference/promptcache"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models/bundle"
)

const bundleSynopsis = `bundle -m MODEL -o OUT [--exe PROGRAM] [--compress zstd|none] [--level N]
       offgrid bundle --inspect FILE [--verify] [--json]

Write OUT: this offgrid executable (or PROGRAM, a Go program built with the
offgrid library) with MODEL appended, so OUT runs anywhere with no model
store; there, the default model is the bundled one. It is unpacked into
$XDG_CACHE_HOME/offgrid/bundled on first use.`

func cmdBundle(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "bundle", bundleSynopsis)
	model := fs.StringP("model", "m", "default", "model to bundle: a store name, a GGUF path or default")
	out := fs.StringP("output", "o", "", "the executable to write")
	comp := fs.String("compress", "zstd", "payload compression: zstd or none")
	level := fs.Int("level", 3, "zstd level, 1 (fastest) to 22 (smallest); GGUF weights shrink by only a few percent")
	noCache := fs.Bool("no-prompt-cache", false, "do not carry the model's prompt cache (offgrid run's first prompts, precomputed; not carried with --exe, whose tools are its own)")
	program := fs.String("exe", "", "the executable to carry the model: a program built with the offgrid library (default: this offgrid)")
	inspect := fs.String("inspect", "", "print what the bundle FILE carries instead of writing one")
	verify := fs.Bool("verify", false, "with --inspect: decompress the payload and check its SHA-256")
	asJSON := fs.Bool("json", false, "with --inspect: print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *inspect != "" {
		if *out != "" {
			return fmt.Errorf("%w: --inspect and -o do not go together", errUsage)
		}
		return inspectBundle(ctx, env, *inspect, *verify, *asJSON)
	}
	if *out == "" {
		return fmt.Errorf("%w: want -o OUT (or --inspect FILE)", errUsage)
	}
	if *verify || *asJSON {
		return fmt.Errorf("%w: --verify and --json go with --inspect", errUsage)
	}
	c, err := bundle.ParseCompression(*comp)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *level < 1 || *level > 22 {
		return fmt.Errorf("%w: --level %d is not in 1..22", errUsage, *level)
	}
	ref, err := lookupModel(ctx, env, *model)
	if err != nil {
		return err
	}
	exe := *program
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot find this executable to copy: %w", err)
		}
	} else if fi, err := os.Stat(exe); err != nil {
		return fmt.Errorf("%w: --exe: %v", errUsage, err)
	} else if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%w: --exe: %s is not an executable file", errUsage, exe)
	}
	var files []string
	if !*noCache && *program == "" {
		// offgrid run's first prompts on this model, precomputed, so the
		// bundle's first answer is fast on the machine it goes to.
		warmModel(ctx, env, ref.Path, false)
		sha := ref.SHA256
		if sha == "" {
			if dir, err := launch.PromptCacheDir(env.launch()); err == nil {
				sha, _ = promptcache.ModelSHA256(dir, ref.Path)
			}
		}
		files, _ = launch.PromptCacheFiles(env.launch(), sha)
	}
	bar := newProgressBar(env.stderr, "bundle "+ref.Name, byteCounts)
	start := time.Now()
	info, err := bundle.Write(ctx, *out, exe, ref.Path, bundle.Options{
		Name: ref.Name, Compression: c, Level: *level, SHA256: ref.SHA256, Progress: bar.update, Files: files,
	})
	bar.done()
	if err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(env.stdout, "%s: %s %s + %s %s as %s %s (%.1f%%) = %s, in %s (%.0f MB/s)\n",
		*out, filepath.Base(exe), humanBytes(info.Offset), info.Name, humanBytes(info.Size), info.Compression, humanBytes(info.Length),
		100*float64(info.Length)/float64(max(info.Size, 1)), humanBytes(info.FileSize()),
		took.Round(time.Millisecond), float64(info.Size)/1e6/took.Seconds())
	if info.Extras > 0 {
		fmt.Fprintf(env.stdout, "%s: with the prompt cache (%d entries, %s): the first answer where it runs starts in about a second\n", *out, len(files), humanBytes(info.Extras))
	}
	return nil
}

// bundleReport is what `offgrid bundle --inspect --json` prints.
type bundleReport struct {
	File string `json:"file"`
	bundle.Info
	Verified bool `json:"verified,omitempty"`
}

func inspectBundle(ctx context.Context, env *cliEnv, path string, verify, asJSON bool) error {
	info, err := bundle.Read(path)
	if errors.Is(err, bundle.ErrNotBundle) {
		return fmt.Errorf("%s carries no model: %w", path, err)
	}
	if err != nil {
		return err
	}
	var took time.Duration
	if verify {
		start := time.Now()
		if err := bundle.Verify(ctx, path, info); err != nil {
			return err
		}
		took = time.Since(start)
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(bundleReport{File: path, Info: info, Verified: verify})
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s (%s)\n", path, humanBytes(info.FileSize()))
	fmt.Fprintf(tw, "executable\t%s\n", humanBytes(info.Offset))
	fmt.Fprintf(tw, "model\t%s\n", info.Name)
	fmt.Fprintf(tw, "model size\t%s (%d bytes)\n", humanBytes(info.Size), info.Size)
	fmt.Fprintf(tw, "sha256\t%s\n", info.SHA256)
	if info.Extras > 0 {
		fmt.Fprintf(tw, "files\t%s after the payload (the prompt cache)\n", humanBytes(info.Extras))
	}
	fmt.Fprintf(tw, "payload\t%s, %s (%.1f%% of the model) at offset %d\n", info.Compression, humanBytes(info.Length),
		100*float64(info.Length)/float64(max(info.Size, 1)), info.Offset)
	fmt.Fprintf(tw, "format\tversion %d\n", info.Version)
	if verify {
		fmt.Fprintf(tw, "verified\tSHA-256 matches (%s, %.0f MB/s)\n", took.Round(time.Millisecond), float64(info.Size)/1e6/took.Seconds())
	}
	return tw.Flush()
}
