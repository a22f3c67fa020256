package tools

import (
	"slices"
	"strings"
	"unicode"

	"github.com/offgrid-ai/offgrid/internal/words"
)

// The topics of the built-in tools (see [Tool.Topic]): names, not words
// of any language. An agent decides which a request needs (package
// agent's Options.ToolsByTopic).
const (
	TopicFiles    = "files"    // the working directory's files
	TopicClock    = "clock"    // the date and time
	TopicTasks    = "tasks"    // the session's task list
	TopicCommands = "commands" // running commands
)

// FileNames returns the words of request (see [Fields]) that look like
// names of files ("notes.txt", "docs/guide.md"; not "1.4.2" or "e.g."),
// quotes and trailing punctuation removed, each once, in order.
func FileNames(request string) []string {
	var out []string
	for _, w := range pathWords(request) {
		if fileName(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Fields splits a request into words: at white space, and around the
// letters of scripts written without spaces (Chinese, Japanese, Thai…)
// and punctuation outside ASCII ("。", "「", "，"), so that a file name in
// "src文件夹里的main.py是什么？" is a word of its own. It is the one word
// splitter of requests; ASCII punctuation stays with its word.
func Fields(request string) []string {
	return strings.FieldsFunc(request, func(r rune) bool {
		return unicode.IsSpace(r) || r > unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r) || words.Unspaced(r))
	})
}

// pathWords returns the words of request (see [Fields]) that may name a
// file or folder, trimmed (see trimWord): not a route that an HTTP
// method comes before ("GET /api/v2": a method is a token of the
// protocol, the same in a request of any language).
func pathWords(request string) []string {
	var out []string
	prev := ""
	for _, w := range Fields(request) {
		if t := trimWord(w); t != "" && !(httpMethod(prev) && strings.HasPrefix(t, "/")) {
			out = append(out, t)
		}
		prev = w
	}
	return out
}

// httpMethod reports whether w is an HTTP request method as written
// before a route: GET, POST, and the others of RFC 9110 and PATCH.
func httpMethod(w string) bool {
	switch w {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return true
	}
	return false
}

// trimWord removes the quotes and brackets around a word and the
// punctuation after it.
func trimWord(w string) string {
	w = strings.TrimLeft(w, "'\"`‘’“”([{<")
	return strings.TrimRight(w, "'\"`‘’“”)]}>,;:!?.")
}

// fileName reports whether w looks like the name of a file: a slash
// between names, a name and an extension of letters and digits with at
// least one letter ("notes.txt", "main.go", "2024-06-17.md"; not "1.5",
// "10.5mm" or "e.g"), or a dotfile (see dotfile). A route's pattern is
// not a file's name: one with a parameter ("/items/<sku>/history",
// "/users/{id}", "/posts/:slug").
func fileName(w string) bool {
	w = strings.TrimLeft(w, "([{<")
	if strings.Contains(w, "://") || strings.ContainsAny(w, "<>{}") || strings.Contains(w, "/:") {
		return false
	}
	if i := strings.IndexByte(w, '/'); i >= 0 && strings.IndexFunc(w, unicode.IsLetter) >= 0 && len(strings.Trim(w, "./")) > 0 {
		return true
	}
	i := strings.LastIndexByte(w, '.')
	if i == 0 {
		return dotfile(w)
	}
	if i < 1 || i == len(w)-1 {
		return false
	}
	base, ext := w[:i], w[i+1:]
	if len(ext) > 5 || len(base) < 2 { // "e.g", "i.e"
		return false
	}
	letter, digit := false, false
	for _, r := range ext {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
			digit = true
		default:
			return false
		}
	}
	if !letter {
		return false
	}
	// A name of letters, or of numbers joined by dashes before an
	// extension of letters alone: a date ("2024-06-17.md"), not a
	// measure ("10.5mm") nor a version ("3.x").
	return strings.IndexFunc(base, unicode.IsLetter) >= 0 || !digit && strings.ContainsAny(base, "-_")
}

// dotfile reports whether w looks like the name of a hidden file: a dot
// and five or more letters (".gitignore", ".bashrc"), not an extension
// written alone (".log", ".json", ".yaml") or a short one (".env").
func dotfile(w string) bool {
	name := w[1:]
	return len(name) >= 5 && strings.IndexFunc(name, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}
