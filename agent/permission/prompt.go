package permission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/huh"
	"github.com/offgrid-ai/offgrid/tools"
)

// Request describes a call the user is asked about.
type Request struct {
	Tool        string
	Description string
	Risk        tools.Risk
	Args        json.RawMessage // the arguments object
}

// Prompter asks the user whether a call may run.
type Prompter interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// PrompterFunc adapts a function to the Prompter interface.
type PrompterFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f.
func (f PrompterFunc) Ask(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

// HuhPrompter asks in the terminal with a huh form: the tool, its risk and
// arguments, and a select of the four answers (Deny preselected). High
// risk calls carry a warning.
type HuhPrompter struct {
	// In and Out are the terminal; nil means os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// Accessible renders the form as plain prompts read line by line, for
	// screen readers and tests.
	Accessible bool
}

// Ask shows the form and returns the chosen answer. Aborting the form
// (Ctrl+C) or end of input denies.
func (h *HuhPrompter) Ask(ctx context.Context, req Request) (Answer, error) {
	answer := DenyOnce
	form := huh.NewForm(huh.NewGroup(
		huh.NewNote().Title(title(req)).Description(describe(req)),
		huh.NewSelect[Answer]().
			Title(fmt.Sprintf("Allow %s to run?", req.Tool)).
			Options(
				huh.NewOption(AllowOnce.String(), AllowOnce),
				huh.NewOption(AllowSession.String(), AllowSession),
				huh.NewOption(AlwaysAllow.String(), AlwaysAllow),
				huh.NewOption(DenyOnce.String(), DenyOnce),
			).
			Value(&answer),
	)).WithAccessible(h.Accessible).WithShowHelp(true)
	if h.In != nil {
		form = form.WithInput(h.In)
	}
	if h.Out != nil {
		form = form.WithOutput(h.Out)
	}
	if err := form.RunWithContext(ctx); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return DenyOnce, nil
		}
		return DenyOnce, err
	}
	if err := ctx.Err(); err != nil {
		return DenyOnce, err
	}
	return answer, nil
}

func title(req Request) string {
	t := fmt.Sprintf("Tool call: %s (%s risk)", req.Tool, req.Risk)
	if req.Risk == tools.High {
		t = "⚠ " + t + " — it can change files or run commands"
	}
	return t
}

// maxShownArgs bounds the arguments shown in a prompt.
const maxShownArgs = 2000

// describe shows the arguments as indented JSON, shortened if long.
func describe(req Request) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, req.Args, "", "  "); err != nil {
		buf.Reset()
		buf.Write(req.Args)
	}
	s := buf.String()
	if s == "" || s == "{}" {
		s = "(no arguments)"
	}
	if len(s) > maxShownArgs {
		s = strings.ToValidUTF8(s[:maxShownArgs], "") + fmt.Sprintf("\n… (%d more bytes)", len(s)-maxShownArgs)
	}
	return "Arguments:\n" + s
}
