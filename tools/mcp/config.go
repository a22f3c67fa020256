package mcp

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
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/offgrid-ai/offgrid/internal/shellword"
	"github.com/offgrid-ai/offgrid/internal/xdg"
)

// Server says how to start one MCP server as a child process speaking
// MCP over its stdin and stdout.
type Server struct {
	// Name prefixes the server's tools (NAME_TOOL): letters, digits, '_'
	// and '-'.
	Name    string
	Command string
	Args    []string
	// Env holds KEY=VALUE pairs added to offgrid's environment.
	Env []string
	// Timeout caps each call to one of its tools; 0 means
	// [Options.Timeout].
	Timeout time.Duration
	// ConnectTimeout caps starting it: spawning, the opening handshake
	// and the listing of its tools; 0 means [Options.ConnectTimeout].
	ConnectTimeout time.Duration
	// Optional servers (those of the config file) that fail to start
	// are a warning; others are an error.
	Optional bool
	// Origin is where the server was configured ("--mcp" or the config
	// file's path), for messages.
	Origin string
}

// ErrConfig is wrapped by errors about a bad --mcp value or config file.
var ErrConfig = errors.New("MCP server configuration")

// ParseFlag parses an --mcp value: NAME=COMMAND ARGS…, the command line
// split into words as a POSIX shell does (quotes and backslashes), with
// no expansions.
func ParseFlag(s string) (Server, error) {
	name, line, ok := strings.Cut(s, "=")
	if !ok {
		return Server{}, fmt.Errorf("%w: --mcp %q: want NAME=COMMAND ARGS…", ErrConfig, s)
	}
	if err := checkServerName(name); err != nil {
		return Server{}, fmt.Errorf("%w: --mcp %q: %w", ErrConfig, s, err)
	}
	words, err := splitWords(line)
	if err != nil {
		return Server{}, fmt.Errorf("%w: --mcp %s: %w", ErrConfig, name, err)
	}
	if len(words) == 0 {
		return Server{}, fmt.Errorf("%w: --mcp %s: no command", ErrConfig, name)
	}
	return Server{Name: name, Command: words[0], Args: words[1:], Origin: "--mcp"}, nil
}

// splitWords splits a command line into words. Anything a shell would
// expand ($VAR, $(…), `…`, globs aside) and any operator (;, |, &&, >) is
// an error: the words are passed to the command as written.
func splitWords(line string) ([]string, error) {
	var words []string
	for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(line)) {
		if err != nil {
			return nil, err
		}
		if !shellword.Literal(w) {
			return nil, fmt.Errorf("%q: only plain and quoted words are allowed (no $, `, or operators); let your shell expand variables", line[w.Pos().Offset():w.End().Offset()])
		}
		fields, err := expand.Fields(&expand.Config{}, w) // quote removal only
		if err != nil {
			return nil, err
		}
		words = append(words, fields...)
	}
	return words, nil
}

func checkServerName(name string) error {
	if name == "" {
		return errors.New("empty server name")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return !nameRune(r) }) {
		return fmt.Errorf("server name %q may hold only letters, digits, '_' and '-'", name)
	}
	return nil
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// DefaultConfigFile returns $XDG_CONFIG_HOME/offgrid/mcp.json (see
// [xdg.ConfigDir]).
func DefaultConfigFile(getenv func(string) string) (string, error) {
	dir, err := xdg.ConfigDir(getenv)
	if err != nil {
		return "", fmt.Errorf("mcp: %w", err)
	}
	return filepath.Join(dir, "mcp.json"), nil
}

// LoadConfig reads a config file in the shape other MCP clients use:
//
//	{"mcpServers": {"NAME": {"command": "…", "args": ["…"], "env": {"K": "V"},
//	                         "timeout": SECONDS, "connectTimeout": SECONDS,
//	                         "disabled": false}}}
//
// timeout caps each call to one of the server's tools, connectTimeout its
// start (see [Server]).
//
// A missing file configures no servers. Servers reached by URL (not a
// command) and disabled ones are skipped with a warning; anything else
// malformed is an error naming the file and the field. The servers come
// back sorted by name and Optional.
func LoadConfig(path string) (servers []Server, warnings []string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s: %s", ErrConfig, path, field, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: not a JSON object: %v", ErrConfig, path, err)
	}
	rawServers, ok := top["mcpServers"]
	if !ok {
		return nil, nil, bad("mcpServers", "missing (want {\"mcpServers\": {\"NAME\": {\"command\": …}}})")
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil || entries == nil {
		return nil, nil, bad("mcpServers", "want an object of servers by name")
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		field := "mcpServers." + name
		if err := checkServerName(name); err != nil {
			return nil, nil, bad(field, "%v", err)
		}
		var e map[string]json.RawMessage
		if err := json.Unmarshal(entries[name], &e); err != nil || e == nil {
			return nil, nil, bad(field, "want an object")
		}
		get := func(key string, dst any, want string) error {
			raw, ok := e[key]
			if !ok || bytes.Equal(raw, []byte("null")) {
				return nil
			}
			if err := json.Unmarshal(raw, dst); err != nil {
				return bad(field+"."+key, "want %s", want)
			}
			return nil
		}
		s := Server{Name: name, Optional: true, Origin: path}
		var typ, url string
		var disabled bool
		var env map[string]string
		var timeout, connect float64
		for _, err := range []error{
			get("type", &typ, "a string"),
			get("url", &url, "a string"),
			get("disabled", &disabled, "true or false"),
			get("command", &s.Command, "a string"),
			get("args", &s.Args, "an array of strings"),
			get("env", &env, "an object of strings"),
			get("timeout", &timeout, "a number of seconds"),
			get("connectTimeout", &connect, "a number of seconds"),
		} {
			if err != nil {
				return nil, nil, err
			}
		}
		switch {
		case disabled:
			warnings = append(warnings, fmt.Sprintf("%s: %s is disabled", path, field))
			continue
		case s.Command == "" && (url != "" || typ != "" && typ != "stdio"):
			warnings = append(warnings, fmt.Sprintf("%s: %s: skipped: only servers started by a command (stdio) are supported", path, field))
			continue
		case s.Command == "":
			return nil, nil, bad(field+".command", "missing")
		case timeout < 0:
			return nil, nil, bad(field+".timeout", "want a positive number of seconds")
		case connect < 0:
			return nil, nil, bad(field+".connectTimeout", "want a positive number of seconds")
		}
		s.Timeout = time.Duration(timeout * float64(time.Second))
		s.ConnectTimeout = time.Duration(connect * float64(time.Second))
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return nil, nil, bad(field+".env", "bad variable name %q", k)
			}
			s.Env = append(s.Env, k+"="+env[k])
		}
		servers = append(servers, s)
	}
	return servers, warnings, nil
}

// Merge returns the servers of the config file and of the flags, a flag's
// server replacing the file's of the same name. Two flags with one name
// are an error.
func Merge(file, flags []Server) ([]Server, error) {
	out := slices.Clone(file)
	seen := map[string]bool{}
	for _, f := range flags {
		if seen[f.Name] {
			return nil, fmt.Errorf("%w: --mcp %s given twice", ErrConfig, f.Name)
		}
		seen[f.Name] = true
		if i := slices.IndexFunc(out, func(s Server) bool { return s.Name == f.Name }); i >= 0 {
			out[i] = f
			continue
		}
		out = append(out, f)
	}
	return out, nil
}
