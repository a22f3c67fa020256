package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

const bashDescription = "Run a shell command in the working directory and return its exit code, stdout and stderr. The command is killed after timeout_seconds."

type bashArgs struct {
	Command        string `json:"command" jsonschema:"the command line, run with bash -c"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"kill the command after this many seconds" minimum:"1" maximum:"600" default:"30"`
}

// maxStream caps each of stdout and stderr kept from a command.
const maxStream = 32 << 10

// shell runs the bash tool's commands in the sandbox root.
type shell struct {
	sb   *Sandbox
	path string // shell binary; "" finds bash or sh
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
	timeout := time.Duration(max(a.TimeoutSeconds, 1)) * time.Second
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, bin, "-c", a.Command)
	cmd.Dir = s.sb.Root()
	stdout, stderr := &capBuffer{max: maxStream}, &capBuffer{max: maxStream}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second // stop waiting for pipes held by orphans

	start := time.Now()
	err = cmd.Run()
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
