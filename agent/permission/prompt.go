package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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

// HuhPrompter asks in the terminal: it writes the call as [Render] shows
// it (verbatim, no Markdown), then runs a huh select of the four answers,
// Deny first and preselected.
type HuhPrompter struct {
	// In and Out are the terminal; nil means os.Stdin and os.Stderr.
	In  io.Reader
	Out io.Writer
	// Files is the tools' root, read for previews of file changes; nil
	// shows none.
	Files fs.FS
	// Accessible renders the form as plain prompts read line by line, for
	// screen readers and tests.
	Accessible bool
}

// Ask shows the call and the form and returns the chosen answer. Aborting
// the form (Ctrl+C) or end of input denies.
func (h *HuhPrompter) Ask(ctx context.Context, req Request) (Answer, error) {
	out := h.Out
	if out == nil {
		out = os.Stderr
	}
	if _, err := io.WriteString(out, "\n"+Render(req, h.Files)); err != nil {
		return DenyOnce, err
	}
	answer := DenyOnce
	form := huh.NewForm(huh.NewGroup(
		huh.NewSelect[Answer]().
			Title(fmt.Sprintf("Allow %s to run?", visible(req.Tool, 64))).
			// Deny comes first: huh scrolls a preselected option to the top
			// of the list, which would hide the options above it.
			Options(
				huh.NewOption(DenyOnce.String(), DenyOnce),
				huh.NewOption(AllowOnce.String(), AllowOnce),
				huh.NewOption(AllowSession.String(), AllowSession),
				huh.NewOption(AlwaysAllow.String(), AlwaysAllow),
			).
			Value(&answer),
	)).WithAccessible(h.Accessible).WithShowHelp(true).WithOutput(out)
	if h.In != nil {
		form = form.WithInput(h.In)
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
