// Package sandbox confines the commands of offgrid's bash tool with the
// kernel: on Linux, Landlock (the file system) and a seccomp filter
// (sockets other than AF_UNIX); on macOS, a Seatbelt profile run by
// sandbox-exec. A confined command may read and execute the system's
// files, and write only below its working directory and a private
// temporary directory.
//
// On Linux, Landlock and seccomp apply to the process that asks for them
// and its descendants, so a command is started through a helper: the
// executable that calls [Serve] first thing in main (offgrid itself),
// re-executed with the hidden sub-command [Command]. The helper confines
// itself, then replaces itself with the command (execve).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Command is the hidden sub-command that [Serve] answers:
//
//	offgrid __sandbox-exec --root DIR --tmp DIR --report FD -- PROGRAM ARGS…
const Command = "__sandbox-exec"

// ErrUnavailable is returned (wrapped, with the reason) by [Check] and
// [Start] where the kernel cannot confine a command.
var ErrUnavailable = errors.New("no kernel sandbox")

// ErrConfine reports that the confinement could not be applied; the
// command did not run.
var ErrConfine = errors.New("cannot confine the command")

// Spec says where a confined command may write.
type Spec struct {
	Root string // the working directory: absolute, symlink-free
	Tmp  string // a private temporary directory: absolute, symlink-free
}

func (s Spec) validate() error {
	for _, d := range []struct{ name, path string }{{"root", s.Root}, {"tmp", s.Tmp}} {
		if !strings.HasPrefix(d.path, "/") {
			return fmt.Errorf("%s directory %q is not absolute", d.name, d.path)
		}
	}
	return nil
}

// Serve runs the hidden sub-command when the process was started as
// `<exe> __sandbox-exec …`, and never returns then: it confines the
// process and executes the command, or reports why it cannot and exits
// A program that imports this package serves its hidden sub-command
// before main runs (see Serve).
func init() { Serve() }

// with status 125. Otherwise it returns at once. The package's init calls
// it, so any program that imports offgrid's tools serves it before main;
// calling it again is harmless.
func Serve() {
	if len(os.Args) < 2 || os.Args[1] != Command {
		return
	}
	err := serve(os.Args[2:])
	fmt.Fprintf(os.Stderr, "offgrid %s: %v\n", Command, err)
	os.Exit(125)
}

// envKeep are the variables a command inherits; HOME and TMPDIR are set
// to the private temporary directory.
var envKeep = []string{"PATH", "LANG", "LANGUAGE", "TERM", "USER", "LOGNAME", "TZ"}

// Env returns the environment for a command: from environ (KEY=VALUE
// pairs) only PATH, LANG, LANGUAGE, LC_*, TERM, USER, LOGNAME and TZ,
// with HOME and TMPDIR set to tmp. Secrets in other variables (tokens,
// keys, proxies) do not reach the command.
func Env(environ []string, tmp string) []string {
	var env []string
	hasPath := false
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !(slices.Contains(envKeep, k) || strings.HasPrefix(k, "LC_")) {
			continue
		}
		hasPath = hasPath || k == "PATH"
		env = append(env, kv)
	}
	if !hasPath {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(env, "HOME="+tmp, "TMPDIR="+tmp)
}
