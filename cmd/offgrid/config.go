package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/internal/xdg"
	"github.com/offgrid-ai/offgrid/models"
)

// The config file holds defaults for the flags of offgrid run and offgrid
// bench: top-level keys apply to both wherever the flag exists, a [run]
// or [bench] table to that command alone. Keys are flag names; flags on
// the command line win. It is $OFFGRID_CONFIG if set, else config.toml,
// else config.json in $XDG_CONFIG_HOME/offgrid.

// configSections are the tables a config file may have.
var configSections = []string{"run", "bench"}

// config is a loaded config file; the zero value (no file) sets nothing.
type config struct {
	path   string
	values map[string]any // top-level keys, and a map per section
}

// configPaths are the files looked for, in order.
func configPaths(env *cliEnv) ([]string, error) {
	if p := env.getenv("OFFGRID_CONFIG"); p != "" {
		return []string{p}, nil
	}
	dir, err := xdg.ConfigDir(env.getenv)
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(dir, "config.toml"), filepath.Join(dir, "config.json")}, nil
}

// loadConfig reads the config file, if there is one. A file that cannot
// be read or parsed is an error: its settings would silently not apply.
func loadConfig(env *cliEnv) (*config, error) {
	paths, err := configPaths(env)
	if err != nil {
		return &config{}, nil // no home: no config
	}
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) && (i < len(paths)-1 || env.getenv("OFFGRID_CONFIG") == "") {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		c := &config{path: p, values: map[string]any{}}
		if strings.HasSuffix(p, ".json") {
			err = json.Unmarshal(b, &c.values)
		} else {
			_, err = toml.Decode(string(b), &c.values)
		}
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", p, err)
		}
		return c, nil
	}
	return &config{}, nil
}

// settings returns the keys that apply to command (run or bench): the
// top-level ones, then its table's, which win.
func (c *config) settings(command string) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range c.values {
		if _, isTable := v.(map[string]any); isTable {
			if !slices.Contains(configSections, k) {
				return nil, fmt.Errorf("%w: config %s: [%s]: not a command (want %s)", errUsage, c.path, k, strings.Join(configSections, " or "))
			}
			continue
		}
		out[k] = v
	}
	if t, ok := c.values[command].(map[string]any); ok {
		for k, v := range t {
			out[k] = v
		}
	}
	return out, nil
}

// apply sets the flags of fs that the config gives for command, except
// those own says are not the command's (nil: all are). A key that names
// no flag of the command's table, or no flag at all at the top level,
// is an error.
func (c *config) apply(fs *pflag.FlagSet, command string, own func(string) bool) error {
	if c.path == "" {
		return nil
	}
	set, err := c.settings(command)
	if err != nil {
		return err
	}
	table, _ := c.values[command].(map[string]any)
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := fs.Lookup(k)
		_, inTable := table[k]
		switch {
		case f == nil && inTable:
			return fmt.Errorf("%w: config %s: [%s] %s: not a flag of offgrid %s", errUsage, c.path, command, k, command)
		case f == nil:
			if !configKnown(k) {
				return fmt.Errorf("%w: config %s: %s: not a flag of offgrid run or bench", errUsage, c.path, k)
			}
			continue
		case own != nil && !own(k):
			continue
		}
		values := []any{set[k]}
		if list, ok := set[k].([]any); ok {
			values = list
		}
		for _, v := range values {
			if err := fs.Set(k, fmt.Sprint(v)); err != nil {
				return fmt.Errorf("%w: config %s: %s = %v: %v", errUsage, c.path, k, v, err)
			}
		}
	}
	return nil
}

// configKnown reports whether name is a flag of run or bench.
func configKnown(name string) bool {
	env := &cliEnv{stdin: strings.NewReader(""), stdout: discard{}, stderr: discard{}, getenv: func(string) string { return "" }}
	for _, command := range configSections {
		if fs, _, _ := commandFlags(env, command); fs != nil && fs.Lookup(name) != nil {
			return true
		}
	}
	return false
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// errFlagsOnly ends a command run only for its flags (cliEnv.flagsOnly).
var errFlagsOnly = errors.New("flags only")

// parseWithConfig parses args over the config's defaults for command:
// flags given win. With env.flagsOnly set it hands over the flag set,
// defaults applied, and returns errFlagsOnly.
func parseWithConfig(env *cliEnv, fs *pflag.FlagSet, command string, own func(string) bool, args []string) error {
	c, err := loadConfig(env)
	if err != nil {
		return err
	}
	if err := c.apply(fs, command, own); err != nil {
		return err
	}
	if env.flagsOnly != nil {
		env.flagsOnly(fs, c)
		return errFlagsOnly
	}
	return parseFlags(fs, args)
}

// commandFlags returns the flag set of run or bench (its agent mode)
// with the config's defaults applied, and the config.
func commandFlags(env *cliEnv, command string) (*pflag.FlagSet, *config, error) {
	var got *pflag.FlagSet
	var cfg *config
	e := *env
	e.flagsOnly = func(fs *pflag.FlagSet, c *config) { got, cfg = fs, c }
	var err error
	switch command {
	case "run":
		err = runCommand(context.Background(), &e, nil, nil)
	case "bench":
		err = cmdBench(context.Background(), &e, []string{"agent"})
	default:
		return nil, nil, fmt.Errorf("%w: config: want run or bench, not %q", errUsage, command)
	}
	if !errors.Is(err, errFlagsOnly) {
		return nil, nil, err
	}
	return got, cfg, nil
}

const configSynopsis = `config [run|bench] [--json]

Show the settings of offgrid run (or bench): each flag's value and where it
comes from (the default or the config file), and the files and directories
offgrid uses. The config file, $XDG_CONFIG_HOME/offgrid/config.toml (or
config.json, or $OFFGRID_CONFIG), sets flag defaults; flags win:

  model = "qwen2.5-coder-1.5b"   # run and bench
  threads = 2
  [run]
  assist = "+find-first"`

// configRow is one line of offgrid config.
type configRow struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

func cmdConfig(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "config", configSynopsis)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	command := "run"
	switch fs.NArg() {
	case 0:
	case 1:
		command = fs.Arg(0)
	default:
		return fmt.Errorf("%w: want at most one command", errUsage)
	}
	flags, cfg, err := commandFlags(env, command)
	if err != nil {
		return err
	}
	var rows []configRow
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" || f.Name == "help" {
			return
		}
		src := "default"
		if f.Changed {
			src = cfg.path
		}
		rows = append(rows, configRow{"--" + f.Name, f.Value.String(), src})
	})
	rows = append(rows, configPlaces(env, cfg)...)
	if *asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, string(b))
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.Value, r.Source)
	}
	return tw.Flush()
}

// configPlaces are the files and directories offgrid uses, each with the
// variable that chose it or "default".
func configPlaces(env *cliEnv, cfg *config) []configRow {
	from := func(vars ...string) string {
		for _, v := range vars {
			if env.getenv(v) != "" {
				return "$" + v
			}
		}
		return "default"
	}
	var rows []configRow
	if cfg.path != "" {
		rows = append(rows, configRow{"config file", cfg.path, from("OFFGRID_CONFIG", "XDG_CONFIG_HOME")})
	} else if paths, err := configPaths(env); err == nil {
		rows = append(rows, configRow{"config file", "none (" + strings.Join(paths, " or ") + ")", from("OFFGRID_CONFIG", "XDG_CONFIG_HOME")})
	}
	if dir, err := models.StoreDir(env.getenv); err == nil {
		rows = append(rows, configRow{"model store", dir, from("OFFGRID_MODELS", "XDG_DATA_HOME")})
	}
	if dir, err := models.CacheDir(env.getenv); err == nil {
		rows = append(rows, configRow{"cache", dir + " (prompts, bundled, wheels)", from("XDG_CACHE_HOME")})
	}
	if p, err := permission.DefaultFile(env.getenv); err == nil {
		rows = append(rows, configRow{"permissions file", p, from("XDG_CONFIG_HOME")})
	}
	return rows
}
