package main

import (
	"context"

	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models"
)

// launch is the command's environment as package launch reads it:
// variables, progress and warnings on stderr, download bars.
func (env *cliEnv) launch() launch.Env {
	return launch.Env{
		Getenv: env.getenv,
		Log:    env.stderr,
		Progress: func(label string) (func(done, total int64), func()) {
			bar := newProgressBar(env.stderr, label, byteCounts)
			return bar.update, bar.done
		},
	}
}

// openStore opens the model store named by the environment.
func openStore(env *cliEnv) (*models.Store, error) { return launch.Store(env.launch()) }

// resolveModel turns a -m value into the path of a GGUF file the engine
// can load (see launch.Lookup).
func resolveModel(ctx context.Context, env *cliEnv, ref string) (string, error) {
	m, err := lookupModel(ctx, env, ref)
	return m.Path, err
}

// lookupModel resolves ref like resolveModel and says where the model
// came from.
func lookupModel(ctx context.Context, env *cliEnv, ref string) (launch.Ref, error) {
	return launch.Lookup(ctx, env.launch(), ref)
}
