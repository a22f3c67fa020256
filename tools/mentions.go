package tools

import (
	"os"
	"strings"
)

// Mentions returns a function that reports whether a request names a file
// or directory that exists in root: a word holding a dot or a slash
// ("notes.txt", "docs/guide.md", "./docs"), quotes and trailing
// punctuation removed, looked up through an os.Root, so nothing outside
// root is ever looked at. The agent has a model look before it answers
// such a request (agent.Options.LookFirst).
func Mentions(root string) func(request string) bool {
	return func(request string) bool {
		r, err := os.OpenRoot(root)
		if err != nil {
			return false
		}
		defer r.Close()
		for _, w := range strings.Fields(request) {
			w = strings.TrimLeft(w, "'\"`([{<")
			w = strings.TrimRight(w, "'\"`)]}>,;:!?.")
			if w == "" || !strings.ContainsAny(w, "./") || strings.Contains(w, "://") {
				continue
			}
			if _, err := r.Lstat(w); err == nil {
				return true
			}
		}
		return false
	}
}
