package tools

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Mention is a file or directory of the working directory that a request
// names.
type Mention struct {
	Path string // as the request wrote it, e.g. "docs/guide.md"
	Dir  bool
}

// Mentioned returns the files and directories of root that request names,
// in the order it names them, each once: the words holding a dot or a
// slash ("notes.txt", "docs/guide.md", "./docs"), quotes and trailing
// punctuation removed, looked up through an os.Root, so that nothing
// outside root is ever looked at. Special files (devices, pipes,
// sockets) are left out.
func Mentioned(root, request string) []Mention {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []Mention
	var seen []string
	for _, w := range strings.Fields(request) {
		w = strings.TrimLeft(w, "'\"`([{<")
		w = strings.TrimRight(w, "'\"`)]}>,;:!?.")
		if w == "" || !strings.ContainsAny(w, "./") || strings.Contains(w, "://") || slices.Contains(seen, w) {
			continue
		}
		seen = append(seen, w)
		fi, err := r.Stat(w)
		if err != nil {
			continue
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			out = append(out, Mention{Path: w, Dir: true})
		case m.Type()&fs.ModeType == 0:
			out = append(out, Mention{Path: w})
		}
	}
	return out
}
