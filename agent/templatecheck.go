package agent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/models"
)

// TemplateCheckEnv, set to "1", makes ServeTemplateCheck act as the
// template checker: offgrid re-executes itself with it to render an
// untrusted chat template in a child process under resource limits.
const TemplateCheckEnv = "OFFGRID_TEMPLATE_CHECK"

// Child limits: a template that needs more for sample conversations is refused.
const (
	checkMemory   = 1 << 30 // data segment
	checkStack    = 64 << 20
	checkCPU      = 2 // seconds
	checkWallTime = 5 * time.Second
	// checkVersion changes the cache key when the checks change.
	checkVersion = "offgrid-template-check-1"
)

const (
	checkStarted = "offgrid-template-check: started"
	checkVerdict = "offgrid-template-check: "
)

// A program that imports this package is its own template checker: when
// offgrid re-executes it with TemplateCheckEnv set, the check runs here,
// before main, and the process exits. No call from main is needed.
func init() { ServeTemplateCheck() }

// ServeTemplateCheck returns at once unless TemplateCheckEnv is "1"; then
// it reads a ModelInfo as JSON from stdin, limits its own memory, stack and
// CPU time, renders sample conversations with the template, prints a
// verdict and exits. The package's init calls it, so programs need not;
// calling it again is harmless.
func ServeTemplateCheck() {
	if os.Getenv(TemplateCheckEnv) != "1" {
		return
	}
	limitSelf(checkMemory, checkCPU)
	debug.SetMaxStack(checkStack)
	var info ModelInfo
	if err := json.NewDecoder(io.LimitReader(os.Stdin, 2*maxTemplateSource)).Decode(&info); err != nil {
		fmt.Fprintf(os.Stderr, "template check: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(checkStarted)
	if err := renderSamples(info); err != nil {
		fmt.Println(checkVerdict + "refused: " + strings.TrimPrefix(firstLine(err.Error()), ErrTemplate.Error()+": "))
	} else {
		fmt.Println(checkVerdict + "ok")
	}
	os.Exit(0)
}

// renderSamples parses the template and renders a few typical
// conversations with it, with and without tools.
func renderSamples(info ModelInfo) error {
	if err := vetTemplateSource(info.Template); err != nil {
		return err
	}
	tmpl, err := parseJinja(info.Template)
	if err != nil {
		return err
	}
	t := &chatTemplate{info: info, tmpl: tmpl, family: familyOf(info),
		now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	tools := []grammar.Tool{{Name: "read_file", Description: "Read a file.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File path"}},"required":["path"]}`)}}
	msgs := []Message{
		{Role: RoleSystem, Content: "You are a helpful assistant."},
		{Role: RoleUser, Content: "What is in go.mod?"},
		{Role: RoleAssistant, ToolCalls: []grammar.Call{{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Role: RoleTool, Content: "module example", ToolCallID: "call_1", Name: "read_file"},
		{Role: RoleAssistant, Content: "It declares the module example."},
		{Role: RoleUser, Content: "Thanks."},
	}
	// A template may refuse a layout (raise_exception); it must not hang,
	// crash or exhaust memory on any.
	for _, c := range []struct {
		msgs  []Message
		tools []grammar.Tool
	}{{msgs, tools}, {msgs[:2], nil}, {append([]Message(nil), msgs[1], msgs[4], msgs[5]), nil}} {
		_, err := t.render(c.msgs, c.tools, true)
		if errors.Is(err, errTemplateOutput) || errors.Is(err, errTemplateTime) || errors.Is(err, errTemplateRange) {
			return err
		}
	}
	return nil
}

// errNoChecker means the running executable does not serve template checks
// (a test binary without the hook); only the in-process limits apply then.
var errNoChecker = errors.New("agent: this executable does not check templates")

// checkTemplate returns the cached verdict on info's template, or runs the
// checker child and caches its verdict. The error wraps ErrTemplate when
// the template is refused.
func checkTemplate(ctx context.Context, info ModelInfo) error {
	if os.Getenv(TemplateCheckEnv) == "1" {
		return nil // inside the checker
	}
	sum := sha256.Sum256([]byte(checkVersion + "\x00" + info.BOS + "\x00" + info.EOS + "\x00" + info.Template))
	key := hex.EncodeToString(sum[:])
	var cacheFile string
	if dir, err := models.CacheDir(os.Getenv); err == nil {
		cacheFile = filepath.Join(dir, "template-verdicts", key)
		if b, err := os.ReadFile(cacheFile); err == nil {
			return verdictError(strings.TrimSpace(string(b)))
		}
	}
	verdict, err := runChecker(ctx, info)
	if err != nil {
		return err
	}
	if cacheFile != "" {
		if err := os.MkdirAll(filepath.Dir(cacheFile), 0o755); err == nil {
			_ = atomicfile.WriteFile(cacheFile, []byte(verdict+"\n"), 0o644) // a cache: failing to write only costs a re-check
		}
	}
	return verdictError(verdict)
}

func verdictError(v string) error {
	if v == "ok" {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrTemplate, strings.TrimPrefix(v, "refused: "))
}

// runChecker renders the template in a child process and returns its
// verdict: "ok" or "refused: reason".
func runChecker(ctx context.Context, info ModelInfo) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoChecker, err)
	}
	in, err := json.Marshal(info)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, checkWallTime)
	defer cancel()
	// -test.run=^$ makes a test binary without the hook run no test and
	// print no verdict; offgrid itself ignores it (the hook exits first).
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), TemplateCheckEnv+"=1")
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	started := false
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == checkStarted:
			started = true
		case started && strings.HasPrefix(line, checkVerdict):
			return strings.TrimPrefix(line, checkVerdict), nil
		}
	}
	if !started {
		return "", errNoChecker
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("refused: rendering sample conversations took longer than %v", checkWallTime), nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	}
	why := firstLine(strings.TrimSpace(stderr.String()))
	if why == "" && runErr != nil {
		why = runErr.Error()
	}
	return fmt.Sprintf("refused: rendering sample conversations crashed or exceeded its limits (%s)", why), nil
}

// limitedBuffer keeps the first 64 KiB written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 64<<10 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// vetTemplate runs the static checks on info's template, then the checker
// child (cached per template). An executable without the checker hook
// relies on the static checks and the in-process limits.
func vetTemplate(info ModelInfo) error {
	if err := vetTemplateSource(info.Template); err != nil {
		return err
	}
	if err := checkTemplate(context.Background(), info); err != nil && !errors.Is(err, errNoChecker) {
		return err
	}
	return nil
}

// VetTemplate reports why offgrid would not use info's chat template (it
// fails a static check, the checker child refuses it, or it does not
// parse), or nil. A model's own template that fails falls back to its
// family's layout with a warning; a template the user chose should be an
// error instead, and this is the check.
func VetTemplate(info ModelInfo) error {
	if err := vetTemplate(info); err != nil {
		return err
	}
	_, err := parseJinja(info.Template)
	return err
}
