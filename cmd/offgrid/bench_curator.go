package main

import (
	"context"
	"fmt"
	"io"

	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/curator"
	"github.com/offgrid-ai/offgrid/inference"
)

// benchCurator runs the file-curator suite: for each long file and
// question, whether the lines shown hold the answer with the head of the
// file, with the curator ranking alone and with the curator asking the
// model, and what each costs. Nothing is cached on disk, so every first
// read is a cold one.
func benchCurator(ctx context.Context, env *cliEnv, ref string, mopts inference.ModelOptions, threads, picks int, asJSON bool) error {
	path, err := resolveModel(ctx, env, ref)
	if err != nil {
		return err
	}
	m, err := inference.Load(path, mopts)
	if err != nil {
		return err
	}
	defer m.Close()
	cm := &curatorModel{m: m, threads: threads}
	defer cm.Close()
	curators := []bench.NamedCurator{
		{Name: "ranked", Curator: curator.New(curator.Options{Picks: picks})},
		{Name: "model", Curator: curator.New(curator.Options{Picks: picks, Chooser: &curator.ModelChooser{Model: cm, Picks: picks}})},
	}
	rows, err := bench.RunCurator(ctx, bench.CuratorCases(), curators, func(r bench.CuratorRow) {
		if r.Method == "model" {
			fmt.Fprintf(env.stderr, "%s: found %v in %.1f s\n", r.Case, r.Found, r.Seconds)
		}
	})
	if err != nil {
		return err
	}
	return benchOutput(env, rows, asJSON, func(w io.Writer) error { return bench.WriteCuratorTable(w, rows) }, "", nil, nil)
}
