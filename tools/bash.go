package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/offgrid-ai/offgrid/internal/sandbox"
)

const bashDescription = "Run a shell command in the working directory; returns its exit code, stdout and stderr."

// Unconfined is the word the bash tool's description starts its warning
// with when commands run without a kernel sandbox.
const Unconfined = "UNCONFINED"

type bashArgs struct {
	Command        string `json:"command" jsonschema:"run with bash -c"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"kill it after this many seconds" minimum:"1" maximum:"600" default:"30"`
}

// maxStream caps each of stdout and stderr kept from a command.
const maxStream = 32 << 10

// shell runs the bash tool's commands in the sandbox root, confined by
// the kernel where it can.
type shell struct {
	sb     *Sandbox
	path   string // shell binary; "" finds bash or sh
	helper string // serves sandbox.Command
	// confinement names what confines commands; "" when nothing does,
	// and then why says why and loose whether to run them anyway.
	confinement string
	why         error
	loose       bool
}

func newShell(sb *Sandbox, path, helper string, loose bool) *shell {
	s := &shell{sb: sb, path: path, helper: helper, loose: loose}
	if helper == "" {
		s.why = errors.New("no sandbox helper was set up")
	} else {
		s.confinement, s.why = sandbox.Check()
	}
	return s
}

// description is the tool's description, saying how commands are
// confined, or that they are not.
func (s *shell) description() string {
	switch {
	case s.confinement != "":
		return bashDescription // the prompt the models were measured with
	case s.loose:
		return fmt.Sprintf("%s %s: %v; the command runs with all of the user's rights.", bashDescription, Unconfined, s.why)
	}
	return fmt.Sprintf("%s It is refused here: commands would run %s (%v).", bashDescription, strings.ToLower(Unconfined), s.why)
}

func (s *shell) binary() (string, error) {
	if s.path != "" {
		return s.path, nil
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "", Errorf(TypeIO, "no shell found: neither bash nor sh is on PATH")
}

func (s *shell) run(ctx context.Context, a bashArgs) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", Errorf(TypeValidationFailed, "command is empty")
	}
	bin, err := s.binary()
	if err != nil {
		return "", err
	}
	// exec would blame the shell ("fork/exec /bin/bash: no such file").
	if _, err := os.Stat(s.sb.Root()); errors.Is(err, fs.ErrNotExist) {
		return "", Errorf(TypeNotFound, "the working directory no longer exists")
	} else if err != nil {
		return "", Errorf(TypeOf(err), "cannot enter the working directory: %w", s.sb.pathError(".", err))
	}
	if s.confinement == "" && !s.loose {
		return "", Errorf(TypePermissionDenied, "bash is refused: commands would run unconfined (%v); offgrid's --bash-unconfined allows that", s.why)
	}
	// A private temporary directory, $HOME and $TMPDIR of the command.
	tmp, err := os.MkdirTemp("", "offgrid-bash-")
	if err == nil {
		defer os.RemoveAll(tmp)
		tmp, err = filepath.EvalSymlinks(tmp)
	}
	if err != nil {
		return "", Errorf(TypeIO, "cannot make a temporary directory: %v", err)
	}
	timeout := time.Duration(max(a.TimeoutSeconds, 1)) * time.Second
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, bin, "-c", a.Command)
	cmd.Dir = s.sb.Root()
	cmd.Env = sandbox.Env(os.Environ(), tmp)
	stdout, stderr := &capBuffer{max: maxStream}, &capBuffer{max: maxStream}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second // stop waiting for pipes held by orphans

	start := time.Now()
	if s.confinement != "" {
		err = sandbox.Start(cmd, s.helper, sandbox.Spec{Root: s.sb.Root(), Tmp: tmp})
	} else {
		err = cmd.Start()
	}
	if errors.Is(err, sandbox.ErrConfine) || errors.Is(err, sandbox.ErrUnavailable) {
		return "", Errorf(TypeInternal, "%v", err)
	}
	if err == nil {
		err = cmd.Wait()
	}
	elapsed := time.Since(start).Round(time.Millisecond)
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	out := format(code, elapsed, stdout, stderr)
	var exitErr *exec.ExitError
	switch {
	case errors.Is(context.Cause(ctx), errTimeout):
		return out, Errorf(TypeIO, "command timed out after %s and was killed", timeout)
	case ctx.Err() != nil:
		return out, Errorf(TypeInternal, "command cancelled: %v", context.Cause(ctx))
	case err == nil, errors.As(err, &exitErr), errors.Is(err, exec.ErrWaitDelay):
		return out, nil // a non-zero exit is a result, not a tool failure
	default:
		return "", Errorf(TypeIO, "cannot run command: %v", err)
	}
}

var errTimeout = errors.New("timeout")

func format(code int, elapsed time.Duration, stdout, stderr *capBuffer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit code: %d (%s)\n", code, elapsed)
	for _, s := range []struct {
		name string
		buf  *capBuffer
	}{{"stdout", stdout}, {"stderr", stderr}} {
		text := s.buf.String()
		if text == "" {
			fmt.Fprintf(&b, "%s: (empty)\n", s.name)
			continue
		}
		fmt.Fprintf(&b, "%s:\n%s", s.name, text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// capBuffer keeps the first max bytes written to it and counts the rest.
type capBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		c.buf.Write(p[:max(room, 0)])
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.buf.String()
	if c.dropped > 0 { // the cut may split a character
		s = strings.ToValidUTF8(s, "") + fmt.Sprintf("\n[%d more bytes not shown]\n", c.dropped)
	}
	return s
}
