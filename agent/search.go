package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/words"
	"github.com/offgrid-ai/offgrid/tools"
)

// SearchFirst: a request about the project's files that names none of
// them ("who is handling the grill?", "Baisse le seuil de stock minimum
// à 6") is searched for before the model's first reply. The model writes
// the words a search would look for, in the files' language, whatever
// the request's (one short reply, its examples' prompt cached); with the
// request's own names and numbers they make one grep_search call of
// offgrid's, whose lines rank by the words they share with it, rarer
// words counting more (tools' ranked lines). The result goes into the
// request, and the file of its best line is read as if the request had
// named it (ReadFirst), so that an edit or an answer has its file. No
// word list decides anything: the files' own words weigh the search.

// searchTool is the tool SearchFirst calls; maxSearchWords bounds the
// words of its pattern that the model wrote or the request marks as
// names, maxRequestWords the request's other words after them
// (FilesLanguage).
const (
	searchTool      = "grep_search"
	maxSearchWords  = 8
	maxRequestWords = 8
)

// searchExamples are requests and the words a search for each looks for.
var searchExamples = []struct{ request, words string }{
	{"Où est-ce qu'on règle le nombre de tentatives ?", "retry retries attempts"},
	{"Who is bringing the cake to Sarah's birthday?", "cake Sarah birthday"},
	{"哪个文件定义了数据库连接？", "database connection db"},
	{"Wie viel hat die Reparatur der Heizung gekostet?", "heating repair cost"},
	{"load_config はどこで定義されていますか？", "load_config def"},
}

// searchMessages asks the model for the words to search for.
func searchMessages(request string) []Message {
	return fewShot("A user asks about files in a folder (code, notes, documents or data, mostly in English). For each request, reply with the English words a search through the files would look for: the names, numbers and key nouns, two to five words, nothing else.",
		searchExamples, func(ex struct{ request, words string }) (string, string) { return ex.request, ex.words }, request)
}

// searchFirst runs the search for t's request (Options.SearchFirst) and
// returns the file of its best line, for ReadFirst to read; nil when the
// assist is off, the request does not need the files' content (a listing
// needs their names: searched, "List the files here" read a file that
// mentioned files) or names a file, the search tool is missing, or the
// search found nothing. A request that names folders and no file is
// searched in those folders (inFolders): asked "What port is set in the
// config folder?", the 0.5B was given the folder's listing and answered
// with a port no file held.
func (a *Agent) searchFirst(ctx context.Context, x *Executor, t *turnState) (Step, []tools.Mention, error) {
	if !t.in.known || t.in.topic != tools.TopicFiles || t.in.list {
		return Step{}, nil, nil
	}
	return a.searchFiles(ctx, x, t)
}

// searchFiles is searchFirst for a request about the files, whatever its
// intent: lookUnheld searches so for one the model took for another.
func (a *Agent) searchFiles(ctx context.Context, x *Executor, t *turnState) (Step, []tools.Mention, error) {
	if !a.opts.SearchFirst || a.opts.ToolChoice == grammar.None || slices.ContainsFunc(t.named, func(m tools.Mention) bool { return !m.Dir }) {
		return Step{}, nil, nil
	}
	if _, ok := a.reg.Lookup(searchTool); !ok {
		return Step{}, nil, nil
	}
	msgs := searchMessages(t.text)
	comp, err := a.complete(ctx, &t.turn, t.on, CompletionRequest{
		Messages:   msgs,
		Format:     a.opts.Format,
		ToolChoice: grammar.None,
		MaxTokens:  16,
		Fixed:      len(msgs) - 1,
		Stream:     func(string) {},
	})
	if err != nil {
		return Step{}, nil, nil // no words: the turn goes on without the search
	}
	line, _, _ := strings.Cut(strings.TrimSpace(comp.Content), "\n")
	pattern := searchPattern(line, t.text, a.foreignFiles(ctx, t))
	if pattern == "" {
		return Step{}, nil, nil
	}
	// Folders named with a dot are the project's too: the CI file in
	// .github/ that pins a linter's version was never found. A question
	// answered from a table is searched for in the tables first
	// (TableFirst), then, when no line there shares a word, everywhere.
	filters := []string{inFolders(t.named)}
	if filters[0] == "" {
		if tables := a.tableFilter(ctx, t); tables != "" {
			filters = []string{tables, ""}
		}
	}
	var step Step
	var results []string
	var best, where string
	for _, filter := range filters {
		search := map[string]any{"pattern": pattern, "include_hidden": true}
		where = ""
		if filter != "" {
			search["file_filter"] = filter
			where = " in " + filter
		}
		args, err := json.Marshal(search)
		if err != nil {
			return Step{}, nil, nil
		}
		calls := a.assignIDs([]grammar.Call{{Name: searchTool, Arguments: args}})
		t.on(Event{Type: EventToolCall, ID: calls[0].ID, Tool: searchTool, Arguments: argsOrEmpty(calls[0].Arguments), ByAgent: true})
		step, results, _, err = a.runCalls(ctx, x, &t.turn, t.repeats, calls, true, t.on)
		if err != nil || step.Action == ActionStop {
			return step, nil, err
		}
		rec := t.turn.Calls[len(t.turn.Calls)-1]
		if !rec.OK() {
			return step, nil, nil
		}
		if best = bestFile(rec.Result); best != "" {
			break
		}
	}
	if best == "" {
		return step, nil, nil
	}
	req := &a.history[len(a.history)-1]
	req.Content += fmt.Sprintf("\n\nSearching the files%s for %q found:\n%s", where, pattern, results[0])
	return step, []tools.Mention{{Path: best}}, nil
}

// inFolders returns the grep_search file filter of the folders among
// named, "" for none (or the working directory itself): "config/**",
// "{config/**,docs/**}".
func inFolders(named []tools.Mention) string {
	var globs []string
	for _, m := range named {
		dir := filepath.ToSlash(filepath.Clean(m.Path))
		if !m.Dir || m.Missing || dir == "." || filepath.IsAbs(dir) {
			continue
		}
		g := globMeta.ReplaceAllString(dir, `\$0`) + "/**"
		if !slices.Contains(globs, g) {
			globs = append(globs, g)
		}
	}
	switch len(globs) {
	case 0:
		return ""
	case 1:
		return globs[0]
	}
	return "{" + strings.Join(globs, ",") + "}"
}

// globMeta matches the characters a glob gives a meaning to.
var globMeta = regexp.MustCompile(`[*?\[\]{},\\]`)

// searchPattern joins the words the model wrote with the names and
// numbers of the request itself (markedWords), each once, at most
// maxSearchWords of them, then, if own, the request's other words
// (requestWords), at most maxRequestWords more: the files' own language
// (FilesLanguage). The ranking weighs a word no file holds at nothing
// and a common one at next to nothing, in any language.
func searchPattern(modelWords, request string, own bool) string {
	var out, keys []string
	add := func(w string, limit int) {
		k := words.Key(w)
		if k == "" || slices.Contains(keys, k) || len(out) == limit {
			return
		}
		keys = append(keys, k)
		out = append(out, w)
	}
	for _, w := range markedWords(request) {
		add(w, maxSearchWords)
	}
	for _, w := range words.Terms(modelWords) {
		if !smallNumber(w) {
			add(w, maxSearchWords)
		}
	}
	if own {
		limit := len(out) + maxRequestWords
		for _, w := range requestWords(request) {
			add(w, limit)
		}
	}
	return strings.Join(out, " ")
}

// markedWords returns the words of a request that its spelling marks as
// names: those holding a digit (but for small numbers: smallNumber), an underscore or a capital after their
// first letter ("P-104", "MAX_RETRIES", "ParseLine"; words.Terms), those
// capitalized inside a sentence ("Anna", "Huila"), and, in a request
// written in a script without spaces, every word of another script
// ("ParseLine 関数ってどこ？" gives "ParseLine"). Names are what a search
// finds whatever the request's language.
func markedWords(request string) []string {
	unspaced := strings.IndexFunc(request, words.Unspaced) >= 0
	var out []string
	start := true // at the start of a sentence
	for _, f := range strings.Fields(request) {
		for _, w := range words.Terms(f) {
			rs := []rune(w)
			if words.Unspaced(rs[0]) {
				continue
			}
			if smallNumber(w) {
				continue
			}
			marked := strings.ContainsFunc(w, unicode.IsDigit) || strings.Contains(w, "_") ||
				strings.ContainsFunc(string(rs[1:]), unicode.IsUpper) ||
				!start && unicode.IsUpper(rs[0]) ||
				unspaced && len(rs) > 1
			if marked {
				out = append(out, w)
			}
		}
		start = strings.ContainsAny(f[len(f)-1:], ".!?:")
	}
	return out
}

// smallNumber reports whether w is a number of one or two digits, with
// or without a fraction: a value a request sets or counts ("à 6",
// "11.25"), rarely a name (a version, "1.4.2", is not one).
func smallNumber(w string) bool {
	whole, frac, _ := strings.Cut(strings.ReplaceAll(w, ",", "."), ".")
	digits := func(s string) bool { return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) }
	return whole != "" && len(whole) <= 2 && digits(whole) && digits(frac)
}

// grepLine is a line of a grep_search result: PATH:LINE: TEXT.
var grepLine = regexp.MustCompile(`^([^\n:]+):(\d+): `)

// bestFile returns the file of the first line a grep_search result shows
// (the best, when the lines are ranked), or "".
func bestFile(r tools.Result) string {
	file, _ := firstMatch(r, "")
	return file
}

// firstMatch returns the file and line number of the first line a
// grep_search result shows, of the file path if path is not "";
// "" and 0 when there is none.
func firstMatch(r tools.Result, path string) (string, int) {
	if r.Data == nil {
		return "", 0
	}
	for _, l := range strings.Split(*r.Data, "\n") {
		if m := grepLine.FindStringSubmatch(l); m != nil && (path == "" || filepath.Clean(m[1]) == filepath.Clean(path)) {
			n, _ := strconv.Atoi(m[2])
			return m[1], n
		}
	}
	return "", 0
}
