//go:build cgo

package launch

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/inference/promptcache"
	"github.com/offgrid-ai/offgrid/models"
)

// PromptCacheDir is where the prompt cache lives:
// $XDG_CACHE_HOME/offgrid/prompts, else ~/.cache/offgrid/prompts.
func PromptCacheDir(env Env) (string, error) {
	dir, err := models.CacheDir(env.getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "prompts"), nil
}

// UsePromptCache gives c the prompt cache of the model at path (sha256 its
// hash when known, else it is hashed once and remembered) and returns the
// hash ("" if unknown). The cache is a speed-up: its problems are warnings
// on env's log, never errors.
func UsePromptCache(env Env, c *inference.Context, path, sha256 string) string {
	warn := func(err error) { fmt.Fprintf(env.log(), "offgrid: warning: %v\n", err) }
	dir, err := PromptCacheDir(env)
	if err != nil {
		warn(fmt.Errorf("no prompt cache: %w", err))
		return sha256
	}
	if sha256 == "" {
		if sha256, err = promptcache.ModelSHA256(dir, path); err != nil {
			warn(fmt.Errorf("no prompt cache: %w", err))
			return ""
		}
	}
	c.SetPrefixCache(promptcache.New(dir, sha256, promptcache.Options{Warn: warn}))
	return sha256
}

// PromptCacheFiles returns the prompt cache entries of the model whose
// hash is sha256 (see package promptcache's file names).
func PromptCacheFiles(env Env, sha256 string) ([]string, error) {
	dir, err := PromptCacheDir(env)
	if err != nil || len(sha256) < 16 {
		return nil, err
	}
	return filepath.Glob(filepath.Join(dir, strings.ToLower(sha256[:16])+"-*.kv"))
}

// RemovePromptCache removes the prompt cache entries of a model.
func RemovePromptCache(env Env, sha256 string) error {
	dir, err := PromptCacheDir(env)
	if err != nil {
		return err
	}
	_, err = promptcache.RemoveModel(dir, sha256)
	return err
}
