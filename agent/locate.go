package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/tools"
)

// Locate: a request about the project's files that names none of them
// ("Where is the retry limit set?", "Désactive le mode debug") has the
// model choose, under a grammar, the one file of the project that holds
// what it is about, among the project's paths (Options.Files); offgrid
// then reads that file as ReadFirst reads a named one, and the request
// goes on as if it had named it (Rewrite, ReadAnswer). The model cannot
// choose a path that does not exist. Small models asked where something
// is answer from what they know ("defined in django.utils.text") or list
// the top folder and stop.

// maxLocate bounds the paths the choice lists: past it the project is
// too large to show whole and the request goes on without a choice.
const maxLocate = 200

// locate returns the file the model chose for request, as a mention for
// ReadFirst, or nil: when Options.Locate is off, the request does not
// need the files (in), names a file or directory (even one that does
// not exist), or the project has no files or too many.
func (a *Agent) locate(ctx context.Context, turn *Turn, request string, in intent, named []tools.Mention, on func(Event)) []tools.Mention {
	if !a.opts.Locate || !a.opts.ReadFirst || a.opts.Files == nil || !in.known || in.topic != tools.TopicFiles || in.list || len(named) > 0 {
		return nil
	}
	paths, more, err := a.projectFiles(ctx, maxLocate)
	if err != nil || more || len(paths) == 0 {
		return nil
	}
	if len(paths) == 1 {
		return []tools.Mention{{Path: paths[0]}}
	}
	path, err := a.choose(ctx, turn, on, locateMessages(paths, request), paths)
	if err != nil || path == "" {
		return nil
	}
	return []tools.Mention{{Path: path}}
}

// locateMessages is the choice put to the model: the project's paths,
// then the request.
func locateMessages(paths []string, request string) []Message {
	var b strings.Builder
	b.WriteString("A user works in a project with these files:\n\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "%s\n", p)
	}
	b.WriteString("\nReply with the path of the one file that most likely holds what the user's request is about, or that the request would change.")
	return []Message{{Role: RoleSystem, Content: b.String()}, {Role: RoleUser, Content: request}}
}

// maxWalk bounds the project's files a turn lists (projectFiles).
const maxWalk = 1000

// walk is the project's files as Options.Files listed them.
type walk struct {
	done  bool
	paths []string
	more  bool
	err   error
}

// projectFiles returns the first max (at most maxWalk) of the project's
// files, as Options.Files lists them, and whether there are more. The
// intent, locate and table-first each ask before the first reply, when
// nothing has been written: the files are listed once a turn.
func (a *Agent) projectFiles(ctx context.Context, max int) ([]string, bool, error) {
	if a.opts.Files == nil {
		return nil, false, errNoFiles
	}
	if !a.walked.done {
		a.walked.paths, a.walked.more, a.walked.err = a.opts.Files(ctx, maxWalk)
		a.walked.done = true
	}
	w := a.walked
	switch {
	case w.err != nil:
		return nil, false, w.err
	case len(w.paths) > max:
		return w.paths[:max], true, nil
	}
	return w.paths, w.more, nil
}

// errNoFiles: Options.Files is unset.
var errNoFiles = errors.New("agent: no file lister")
