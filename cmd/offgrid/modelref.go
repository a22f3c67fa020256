package main

import (
	"context"

	"github.com/offgrid-ai/offgrid/models"
)

// openStore opens the model store named by the environment.
func openStore(env *cliEnv) (*models.Store, error) {
	dir, err := models.StoreDir(env.getenv)
	if err != nil {
		return nil, err
	}
	return models.NewStore(dir), nil
}

// resolveModel turns a -m value (a store name, a path, or "default"/"")
// into the path of a GGUF file the engine can load.
func resolveModel(ctx context.Context, env *cliEnv, ref string) (string, error) {
	st, err := openStore(env)
	if err != nil {
		return "", err
	}
	return st.Resolve(ref)
}
