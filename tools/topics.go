package tools

import (
	"slices"
	"strings"
	"unicode"
)

// FileTopic is the topic a file name in a request counts as (see [About]).
const FileTopic = "file"

// About reports whether request is about one of topics: whether it holds
// one of them as a word, or as consecutive words, in any case. Each topic
// matches as written ("task" does not match "tasks"; list both). Quoted
// text ('Buy milk', "ok", `x`) is what the request is about, not what it
// asks for, and is left out; a word naming a file ("notes.txt",
// "docs/guide.md") counts as the word [FileTopic].
func About(request string, topics []string) bool {
	words := requestWords(request)
	for _, t := range topics {
		if containsRun(words, lowerWords(t)) {
			return true
		}
	}
	return false
}

// containsRun reports whether run appears in words, word for word.
func containsRun(words, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(words); i++ {
		ok := true
		for j, w := range run {
			if words[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// requestWords returns the lower-case words of request outside quotes,
// with FileTopic for each word naming a file.
func requestWords(request string) []string {
	var out []string
	for _, field := range strings.Fields(unquoted(request)) {
		field = strings.TrimRight(field, ".,;:!?)]}>")
		if fileName(field) {
			out = append(out, FileTopic)
			continue
		}
		out = append(out, lowerWords(field)...)
	}
	return out
}

// lowerWords returns the runs of letters and digits of s, in lower case.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWordRune(r) })
}

// FileNames returns the words of request that look like names of files
// ("notes.txt", "docs/guide.md"; see [About]), quotes and trailing
// punctuation removed, each once, in order.
func FileNames(request string) []string {
	var out []string
	for _, w := range strings.Fields(request) {
		w = strings.Trim(w, "'\"`‘’“”([{<>}]),;:!?")
		w = strings.TrimRight(w, ".")
		if fileName(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// fileName reports whether w looks like the name of a file: a slash
// between names, or a name and an extension of letters and digits with
// at least one letter ("notes.txt", "main.go"; not "1.5" or "e.g").
func fileName(w string) bool {
	w = strings.TrimLeft(w, "([{<")
	if strings.Contains(w, "://") {
		return false
	}
	if i := strings.IndexByte(w, '/'); i >= 0 && strings.IndexFunc(w, unicode.IsLetter) >= 0 && len(strings.Trim(w, "./")) > 0 {
		return true
	}
	i := strings.LastIndexByte(w, '.')
	if i < 1 || i == len(w)-1 {
		return false
	}
	base, ext := w[:i], w[i+1:]
	if len(ext) > 5 || len(base) < 2 { // "e.g", "i.e"
		return false
	}
	letter := false
	for _, r := range ext {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
		default:
			return false
		}
	}
	return letter && strings.IndexFunc(base, unicode.IsLetter) >= 0
}

// unquoted returns s with its quoted spans removed: text between a pair
// of quotes (' " ` and their typographic forms) that opens at the start
// of a word and closes at the end of one, so that apostrophes ("don't",
// "Bob's") are kept.
func unquoted(s string) string {
	pairs := map[rune]rune{'\'': '\'', '"': '"', '`': '`', '‘': '’', '“': '”'}
	r := []rune(s)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		closing, ok := pairs[r[i]]
		if ok && (i == 0 || !isWordRune(r[i-1])) {
			end := -1
			for j := i + 1; j < len(r); j++ {
				if r[j] == closing && (j+1 == len(r) || !isWordRune(r[j+1])) {
					end = j
					break
				}
			}
			if end > i {
				b.WriteRune(' ')
				i = end
				continue
			}
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
