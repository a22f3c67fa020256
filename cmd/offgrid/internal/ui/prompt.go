package ui

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/charmbracelet/huh"
	"github.com/offgrid-ai/offgrid/agent/permission"
)

// Prompter asks in the terminal: it writes the call as [permission.Render] shows
// it (verbatim, no Markdown), then runs a huh select of the four answers,
// Deny first and preselected.
type Prompter struct {
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
func (h *Prompter) Ask(ctx context.Context, req permission.Request) (permission.Answer, error) {
	out := h.Out
	if out == nil {
		out = os.Stderr
	}
	if _, err := io.WriteString(out, "\n"+permission.Render(req, h.Files)); err != nil {
		return permission.DenyOnce, err
	}
	answer := permission.DenyOnce
	form := huh.NewForm(huh.NewGroup(
		huh.NewSelect[permission.Answer]().
			Title(req.Question()).
			// Deny comes first: huh scrolls a preselected option to the top
			// of the list, which would hide the options above it.
			Options(
				huh.NewOption(permission.DenyOnce.String(), permission.DenyOnce),
				huh.NewOption(permission.AllowOnce.String(), permission.AllowOnce),
				huh.NewOption(permission.AllowSession.String(), permission.AllowSession),
				huh.NewOption(permission.AlwaysAllow.String(), permission.AlwaysAllow),
			).
			Value(&answer),
	)).WithAccessible(h.Accessible).WithShowHelp(true).WithOutput(out)
	if h.In != nil {
		form = form.WithInput(h.In)
	}
	if err := form.RunWithContext(ctx); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return permission.DenyOnce, nil
		}
		return permission.DenyOnce, err
	}
	if err := ctx.Err(); err != nil {
		return permission.DenyOnce, err
	}
	return answer, nil
}
