package xdg

import (
	"errors"
	"path/filepath"
)

// ConfigDir returns offgrid's configuration directory:
// $XDG_CONFIG_HOME/offgrid, or $HOME/.config/offgrid when XDG_CONFIG_HOME
// is unset or relative (as the XDG spec says). getenv is os.Getenv or a
// test's stand-in.
func ConfigDir(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "offgrid"), nil
}
