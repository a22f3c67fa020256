package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/offgrid-ai/offgrid/models"
	"github.com/offgrid-ai/offgrid/models/bundle"
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
// into the path of a GGUF file the engine can load. "default" is the model
// bundled in the running executable if it carries one, else the store's
// default.
func resolveModel(ctx context.Context, env *cliEnv, ref string) (string, error) {
	m, err := lookupModel(ctx, env, ref)
	return m.path, err
}

// modelRef is a resolved model reference.
type modelRef struct {
	path   string
	name   string // store or bundle name; for a path, derived from the file name
	sha256 string // known hash (store manifest or bundle trailer), or ""
	bundle string // the executable carrying the model, if bundled
}

// lookupModel resolves ref like resolveModel and says where the model
// came from.
func lookupModel(ctx context.Context, env *cliEnv, ref string) (modelRef, error) {
	if ref == "" || ref == models.DefaultRef {
		exe, info, err := selfBundle()
		if err != nil {
			return modelRef{}, err
		}
		if exe != "" {
			path, err := extractBundled(ctx, env, exe, info)
			return modelRef{path: path, name: info.Name, sha256: info.SHA256, bundle: exe}, err
		}
	}
	st, err := openStore(env)
	if err != nil {
		return modelRef{}, err
	}
	if ref == "" || ref == models.DefaultRef {
		m, err := st.Default()
		if err != nil {
			return modelRef{}, err
		}
		return modelRef{path: st.Path(m.Name), name: m.Name, sha256: m.SHA256}, nil
	}
	path, err := st.Resolve(ref)
	if err != nil {
		return modelRef{}, err
	}
	if path == st.Path(ref) {
		if m, err := st.Get(ref); err == nil {
			return modelRef{path: path, name: m.Name, sha256: m.SHA256}, nil
		}
	}
	return modelRef{path: path, name: models.NameFromURL(filepath.Base(path))}, nil
}

// selfBundle returns the running executable and the trailer of the model
// it carries, or exe "" when it carries none. A damaged bundle is an
// error: silently falling back to another model would hide it.
func selfBundle() (exe string, info bundle.Info, err error) {
	exe, err = os.Executable()
	if err != nil {
		return "", bundle.Info{}, nil // cannot know; behave as a plain offgrid
	}
	info, err = bundle.Read(exe)
	switch {
	case err == nil:
		return exe, info, nil
	case errors.Is(err, bundle.ErrCorrupt):
		return "", bundle.Info{}, fmt.Errorf("the model bundled in this executable is unusable: %w (rebuild it with 'offgrid bundle', or use -m with another model)", err)
	}
	// ErrNotBundle, or an executable we may run but not read.
	return "", bundle.Info{}, nil
}

// bundledDir is where bundled models are extracted.
func bundledDir(env *cliEnv) (string, error) {
	cache, err := models.CacheDir(env.getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "bundled"), nil
}

// extractBundled returns the path of the bundled model, extracting it into
// the cache on first use.
func extractBundled(ctx context.Context, env *cliEnv, exe string, info bundle.Info) (string, error) {
	dir, err := bundledDir(env)
	if err != nil {
		return "", err
	}
	if bundle.Cached(dir, info) {
		return bundle.Extract(ctx, exe, info, dir) // finds it, and clears stale temporary files
	}
	fmt.Fprintf(env.stderr, "offgrid: unpacking the bundled model %s (%s) into %s (first run only)... ", info.Name, humanBytes(info.Size), dir)
	start := time.Now()
	path, err := bundle.Extract(ctx, exe, info, dir)
	if err != nil {
		fmt.Fprintln(env.stderr, "failed")
		return "", err
	}
	took := time.Since(start)
	fmt.Fprintf(env.stderr, "done in %s (%.0f MB/s)\n", took.Round(time.Millisecond), float64(info.Size)/1e6/took.Seconds())
	return path, nil
}

// catalogProfile returns the name of the catalog's agent profile for
// the model at path when it is a catalog model in the store.
func catalogProfile(env *cliEnv, path string) (string, bool) {
	st, err := openStore(env)
	if err != nil {
		return "", false
	}
	list, err := st.List()
	if err != nil {
		return "", false
	}
	for _, man := range list {
		if st.Path(man.Name) == path {
			if cm, ok := models.LookupSHA256(man.SHA256); ok && cm.Profile != "" {
				return cm.Profile, true
			}
		}
	}
	return "", false
}
