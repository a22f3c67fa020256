package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// readFirst reads the files among named, what the request names, for
// the model before its first reply (Options.ReadFirst) and adds them to
// the request, the last message of the history; not when no tools are
// offered (ToolChoice None), and not a file below the working directory
// that does not exist when the model chose a change (a file to create;
// a path outside is read, and the refusal shown). With list it lists the
// folders named too (see listFolders), or the working directory when
// nothing is named: asked "what's in the scripts folder?", the
// 0.5B listed the working directory. It reports whether it ran any call.
func (a *Agent) readFirst(ctx context.Context, x *Executor, turn *Turn, repeats repeatGuard, named []tools.Mention, list bool, on func(Event)) (Step, bool, error) {
	if !a.opts.ReadFirst || a.opts.ToolChoice == grammar.None {
		return Step{}, false, nil
	}
	if _, ok := a.reg.Lookup(readFileTool); !ok {
		return Step{}, false, nil
	}
	if _, ok := a.reg.Lookup(listTool); !ok {
		list = false
	}
	// A listing that names nothing is of the working directory, its
	// hidden folders too: asked which GitHub Actions workflow files a
	// repository has, the 0.5B searched for "example" and answered with
	// a file name no tool returned. ls names the files below the
	// folders (.github/workflows/ci.yml) too.
	whole := list && len(named) == 0
	if whole {
		named = []tools.Mention{{Path: ".", Dir: true}}
	}
	var calls []grammar.Call
	var paths []string
	for _, m := range named {
		if m.Missing && turn.change && !m.Outside() {
			// A file to create: its read can only fail, and the model,
			// told "Reading the file .gitignore failed: not_found",
			// wrote it and then answered that it "was not found".
			continue
		}
		name := readFileTool
		if m.Dir {
			if !list {
				continue
			}
			name = listTool
		}
		if len(calls) == maxReadFirst {
			break
		}
		arg := map[string]any{"path": m.Path}
		if whole {
			arg["show_hidden"] = true
		}
		args, err := json.Marshal(arg)
		if err != nil {
			continue
		}
		calls = append(calls, grammar.Call{Name: name, Arguments: args})
		paths = append(paths, m.Path)
	}
	if len(calls) == 0 {
		return Step{}, false, nil
	}
	calls = a.assignIDs(calls)
	for _, c := range calls {
		on(Event{Type: EventToolCall, ID: c.ID, Tool: c.Name, Arguments: argsOrEmpty(c.Arguments), ByAgent: true})
	}
	step, results, _, err := a.runCalls(ctx, x, turn, repeats, calls, true, on)
	if err != nil {
		return step, true, err
	}
	req := &a.history[len(a.history)-1]
	var b strings.Builder
	b.WriteString(req.Content)
	recs := turn.Calls[len(turn.Calls)-len(results):] // the records of these calls
	for i, r := range results {
		what, verb := "file", "Reading"
		if calls[i].Name == listTool {
			what, verb = "folder", "Listing"
		}
		if recs[i].OK() {
			fmt.Fprintf(&b, "\n\nThe %s %s holds:\n%s", what, paths[i], r)
		} else {
			fmt.Fprintf(&b, "\n\n%s the %s %s failed: %s", verb, what, paths[i], r)
		}
	}
	req.Content = b.String()
	return step, true, nil
}

// listFolders reports whether readFirst lists the folders among named,
// what a request names: for a request for the names of files, or for one
// that names folders and no file and is neither for a change nor, as the
// model chose, for another topic's tools (the task list, the clock). Such
// a request is searched in those folders too (searchFirst), and its
// lines go beside the listing. In any language the model read
// "¿Qué módulos hay en greenhouse/control?" and "what packages live
// under internal/?" as questions about the files' content; the 0.5B then
// listed the working directory, or its absolute path, which failed.
func listFolders(in intent, named []tools.Mention) bool {
	switch {
	case in.list:
		return true
	case in.change || in.known && in.topic != tools.TopicFiles:
		return false // "Add a task 'write docs'" is not about the docs folder
	}
	return len(named) > 0 && !slices.ContainsFunc(named, func(m tools.Mention) bool { return !m.Dir })
}

// readFileTool and listTool are the tools Options.ReadFirst calls;
// maxReadFirst bounds the files and folders it reads for one request.
const (
	readFileTool = "read_file"
	listTool     = "ls"
	maxReadFirst = 3
)
