package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/internal/xdg"
)

// ErrPolicyFile is wrapped by errors about an unreadable policies file.
var ErrPolicyFile = errors.New("policies file")

// Rule allows a tool without asking. The policies file holds a list:
//
//	{"version":1,"rules":[
//	  {"tool":"read_file"},
//	  {"tool":"bash","args":{"command":"go test *"}}
//	]}
//
// A rule with Args matches only calls whose arguments match every pattern:
// '*' matches any run of characters (slashes included), '?' one character
// and '\' escapes the next. A string argument is matched as is, any other
// value as its JSON text; an absent argument never matches. A shell
// command (bash's "command") is parsed first: a pattern with wildcards
// matches only one simple command, so "go test *" does not allow
// "go test ./... ; rm -rf ~" (see matchShell).
type Rule struct {
	Tool string            `json:"tool"`
	Args map[string]string `json:"args,omitempty"`
}

// Matches reports whether the rule allows a call to tool with args.
func (r Rule) Matches(tool string, args map[string]any) bool {
	if r.Tool != tool {
		return false
	}
	for k, pat := range r.Args {
		v, ok := args[k]
		if !ok {
			return false
		}
		s, isStr := v.(string)
		if !isStr {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if shellArgs[tool] == k {
			if !isStr || !matchShell(pat, s) {
				return false
			}
		} else if !wildcard(pat, s) {
			return false
		}
	}
	return true
}

// wildcard matches s against pattern: '*' any run, '?' one rune, '\'
// escapes.
func wildcard(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	// Iterative matching with one backtrack point for the last '*'.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case pi < len(p) && p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == t[ti]:
			pi, ti = pi+2, ti+1
		case pi < len(p) && p[pi] != '\\' && (p[pi] == '?' || p[pi] == t[ti]):
			pi, ti = pi+1, ti+1
		case star >= 0:
			mark++
			pi, ti = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// fileVersion is the policies file format version.
const fileVersion = 1

type policyFile struct {
	Version int    `json:"version"`
	Rules   []Rule `json:"rules"`
}

// DefaultFile returns $XDG_CONFIG_HOME/offgrid/policies.json, or
// $HOME/.config/offgrid/policies.json when XDG_CONFIG_HOME is unset or
// relative (as the XDG spec says). getenv is os.Getenv in production.
func DefaultFile(getenv func(string) string) (string, error) {
	dir, err := xdg.ConfigDir(getenv)
	if err != nil {
		return "", fmt.Errorf("permission: %w", err)
	}
	return filepath.Join(dir, "policies.json"), nil
}

// readFile reads the policies file; a missing file has no rules. A file
// that others can change (see checkOwnerOnly) is refused.
func readFile(path string) (policyFile, error) {
	if err := checkOwnerOnly(path); err != nil {
		return policyFile{}, fmt.Errorf("%w %s: %w", ErrPolicyFile, path, err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return policyFile{Version: fileVersion}, nil
	}
	if err != nil {
		return policyFile{}, fmt.Errorf("%w %s: %w", ErrPolicyFile, path, err)
	}
	var f policyFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return policyFile{}, fmt.Errorf("%w %s is not valid (%v); fix or delete it — until then, tools it allows will ask", ErrPolicyFile, path, err)
	}
	if dec.More() {
		return policyFile{}, fmt.Errorf("%w %s has data after the JSON object; fix or delete it", ErrPolicyFile, path)
	}
	if f.Version != fileVersion {
		return policyFile{}, fmt.Errorf("%w %s has version %d; this offgrid reads version %d", ErrPolicyFile, path, f.Version, fileVersion)
	}
	for i, r := range f.Rules {
		if strings.TrimSpace(r.Tool) == "" {
			return policyFile{}, fmt.Errorf("%w %s: rule %d has no tool", ErrPolicyFile, path, i+1)
		}
	}
	return f, nil
}

// addRule adds r to the policies file unless an equal rule is there,
// re-reading the file first so rules saved by another process are kept,
// and returns the rules now in the file.
func addRule(path string, r Rule) ([]Rule, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(f.Rules, func(x Rule) bool { return x.Tool == r.Tool && len(x.Args) == 0 && len(r.Args) == 0 }) {
		return f.Rules, nil
	}
	f.Rules = append(f.Rules, r)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	// Write through a symbolic link to its target instead of replacing the link.
	target, err := resolveLink(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrPolicyFile, path, err)
	}
	if err := writeAtomic(target, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrPolicyFile, path, err)
	}
	return f.Rules, nil
}

// writeAtomic writes data to path with mode 0600, creating its directory,
// through a synced temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// checkOwnerOnly refuses a policies file, or a directory it sits in
// (through symbolic links too), that users other than its owner can write:
// they could allow any tool. A sticky directory such as /tmp counts as
// safe for the files in it. A missing file is fine.
func checkOwnerOnly(path string) error {
	paths := []string{path, filepath.Dir(path)}
	if target, err := filepath.EvalSymlinks(path); err == nil && target != path {
		paths = append(paths, target, filepath.Dir(target))
	}
	for i, p := range paths {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		mode := fi.Mode()
		if mode.Perm()&0o022 == 0 || (i%2 == 1 && mode&fs.ModeSticky != 0) {
			continue
		}
		what := "it"
		if p != path {
			what = p
		}
		return fmt.Errorf("ignored: %s is writable by other users (mode %v); run chmod go-w on it", what, mode.Perm())
	}
	return nil
}

// resolveLink returns the file path names: path itself, or the final
// target when path is a symbolic link. A dangling link is an error.
func resolveLink(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("a symbolic link whose target cannot be resolved, not replacing it: %w", err)
	}
	return target, nil
}
