package agent

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/internal/calendar"
	"github.com/offgrid-ai/offgrid/internal/contact"
	"github.com/offgrid-ai/offgrid/internal/words"
	"github.com/offgrid-ai/offgrid/tools"
)

// Grounded answers: an answer never presents what no tool returned. When
// a call that the answer depends on failed or was denied, offgrid writes
// the answer's first sentences itself, from the calls' results, and the
// model only continues them (or, when it answered already, its answer
// follows them); a continuation that shows a block of content (```) is
// dropped, since no tool returned it. Asked in the
// prompt alone, the 0.5B answered a denied read of /etc/passwd with
// "The contents of /etc/passwd are:" and made-up lines.

// answerNote returns offgrid's account of the turn's calls that an answer
// begins with and the model continues: what failed and what was changed
// (outcomeNote); with neither, the answer of a table query (queryNote);
// "" when there is nothing to tell.
func (a *Agent) answerNote(turn Turn) string {
	if note := a.outcomeNote(turn); note != "" {
		return note
	}
	return queryNote(turn.Calls)
}

// outcomeNote is what failed (failureNote), then what was changed
// (changeNote).
func (a *Agent) outcomeNote(turn Turn) string {
	change := a.changeNote(turn.Calls)
	return failureNote(turn.Calls, turn.change, change != "") + change
}

// unchanged reports whether the turn asked for a change (as the model
// chose, see intent) that no call made, none having failed either.
func (a *Agent) unchanged(turn Turn) bool {
	return turn.change && a.outcomeNote(turn) == ""
}

// listingNote returns the names in the folders the turn listed that
// answer leaves out, one folder a line ("scripts/: clean.py, report.sh"),
// when the turn read no file; "" when there is none. It follows the
// answer: names and no words, the same in any language. The 0.5B
// answered a French "what is in the scripts folder?" with one of its two
// files, and a Japanese "how many meeting notes are there, and their
// names?" with the count alone. Put first for the model to continue, the
// names made it copy the listing whole, and not answer a question about
// a value in the folder's files from the search's lines.
func listingNote(calls []ToolRecord, answer string) string {
	var lines []string
	for _, r := range calls {
		if r.Name == readFileTool && r.OK() {
			return "" // the answer is about what a file says
		}
		if r.Name != listTool || !r.OK() || r.Result.Data == nil {
			continue
		}
		l, ok := tools.ParseListing(*r.Result.Data)
		if !ok || len(l.Names) == 0 || !slices.ContainsFunc(l.Names, func(n string) bool {
			return !strings.Contains(answer, strings.TrimSuffix(n, "/"))
		}) {
			continue
		}
		names := l.Names
		if len(names) > maxNoteNames {
			names = append(names[:maxNoteNames:maxNoteNames], fmt.Sprintf("… (+%d)", len(l.Names)-maxNoteNames))
		}
		line := fmt.Sprintf("%s/: %s", strings.TrimSuffix(l.Dir, "/"), strings.Join(names, ", "))
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// maxNoteNames bounds the names of one folder in listingNote.
const maxNoteNames = 40

// answerOf is the answer shown for the model's text, without the lines
// that quote or name what no tool returned, or, after calls, only say
// the request again (repeats) or copy a table query's answer
// (withoutQueryCopies): grounded in the
// turn's calls after note (groundedAnswer), with the names of the
// folders listed that it leaves out (listingNote), and after unchangedNote when
// the change asked for was not made. The model does not continue that
// note: made to, the 0.5B went on "The user denied running the tools",
// which nobody had. An answer whose every line gave a contact or a date
// nothing returned, with no call to show instead, is unheldNote.
func (a *Agent) answerOf(turn Turn, note, text string) string {
	heard := a.heard(turn)
	if len(turn.Calls) > 0 {
		text = withoutUnknownFiles(withoutUnfounded(text, heard), heard)
		// What the calls returned is shown instead of a line that only
		// says the request again (groundedAnswer).
		text = withoutLines(text, func(l string) bool { return repeats(l, turn.request) })
	}
	text = withoutQueryCopies(text, queryNote(turn.Calls))
	given := text
	text = withoutUnheld(text, heard)
	changed := a.changeNote(turn.Calls) != ""
	if !changed && misquotes(text, turn.Calls) {
		text = "" // what the calls returned is shown instead (groundedAnswer)
	}
	text = withoutMoot(text, turn.Calls, changed)
	if changed {
		text = withoutReplaced(text, turn.Calls)
	}
	s := groundedAnswer(note, text, turn.request, turn.Calls)
	if names := listingNote(turn.Calls, s); names != "" {
		s = strings.TrimSpace(s + "\n\n" + names)
	}
	if a.unchanged(turn) {
		s = strings.TrimSpace(unchangedNote + s)
	}
	if s == "" && text != given {
		s = unheldNote
	}
	return s
}

// unheldNote is the answer whose every line gave a phone number, an
// email address or a date that nothing of the conversation held, and no
// call returned anything to show instead (withoutUnheld).
const unheldNote = "No file or tool gave the phone number, email address or date the model wrote, so it is not shown."

// unchangedNote begins the answer to a request for a change that no call
// made: the 0.5B, asked in Chinese to delete a sentence of the README,
// called no tool and answered that it had deleted it.
const unchangedNote = "No file was changed.\n\n"

// changeNote returns what the turn's calls changed, as their results
// say it: the first lines of the result of each call of a tool that
// changes something (risk High or more) that succeeded, so that the
// answer to a change reports it, not instructions to make it. The 0.5B
// answered "To add a .gitignore … you can use the following command" to
// a .gitignore it had just written.
func (a *Agent) changeNote(calls []ToolRecord) string {
	var b strings.Builder
	for _, r := range calls {
		if !r.OK() || !changes(a.reg, r.Name) {
			continue
		}
		b.WriteString(firstLines(r.Result.Text()) + "\n\n")
	}
	return b.String()
}

// changes reports whether the tool of reg named name changes something
// (risk High or more: a file edit, a command); false for a tool reg
// does not have.
func changes(reg *tools.Registry, name string) bool {
	t, ok := reg.Lookup(name)
	return ok && t.Risk >= tools.High
}

// maxNoteLines bounds the lines of one result in offgrid's own accounts
// (changeNote, resultsNote).
const maxNoteLines = 8

// firstLines returns the first maxNoteLines lines of a result's text,
// and, when there are more, "…" and how many there are.
func firstLines(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) > maxNoteLines {
		lines = append(lines[:maxNoteLines], fmt.Sprintf("… (%s lines in all)", thousands(len(lines))))
	}
	return strings.Join(lines, "\n")
}

// resultsNote returns offgrid's account of what the turn's successful
// calls returned: each call and the first lines of its result. It is
// the answer when the model wrote none that could be shown: the 0.5B,
// asked how many TODO lines a search showed, repeated the answer
// prompt's instruction and nothing else (see withoutEchoes).
func resultsNote(calls []ToolRecord) string {
	var b strings.Builder
	for _, r := range calls {
		if !r.OK() {
			continue
		}
		what := r.Name
		if t := callTarget(r); t != "" {
			what += " " + t
		}
		out := firstLines(r.Result.Text())
		if out == "" {
			fmt.Fprintf(&b, "`%s` succeeded with no output.\n\n", what)
			continue
		}
		fence := codeFence(out)
		fmt.Fprintf(&b, "`%s` returned:\n%s\n%s\n%s\n\n", what, fence, out, fence)
	}
	return strings.TrimSpace(b.String())
}

// failureNote returns offgrid's account of the turn's calls that failed
// and were not made good, as the start of its answer: the reads of files
// the request names that offgrid made for the model (Options.ReadFirst)
// unless a later call on the same file succeeded, for a request for a
// change (change) the calls the user denied unless the same call on the
// same target succeeded, and, when no call of the turn succeeded, every
// failed call. Once offgrid's search and read had succeeded, the 0.5B's
// denied edit was left out, and the answer said no more than that no
// file was changed; but a write the model tried after listing a folder
// it was asked about is its own detour, and its denial is not the
// answer.
// Once a change was made (made), offgrid's read of a file that did not
// exist is not told either: it was the file to be made, or a name the
// model put right (the 0.5B's German meeting note began "`read_file
// 2024-06-17.md` failed (not_found)" above "Created
// docs/meeting-notes/2024-06-17.md").
// It returns "" when there is none.
func failureNote(calls []ToolRecord, change, made bool) string {
	succeeded := slices.ContainsFunc(calls, ToolRecord.OK)
	var lines []string
	for _, r := range calls {
		if r.OK() || succeeded && !r.ByAgent && !(r.Denied && change) {
			continue
		}
		if moot(r, made) {
			continue
		}
		if slices.ContainsFunc(calls, func(o ToolRecord) bool {
			return o.OK() && callTarget(o) == callTarget(r) && (r.ByAgent || o.Name == r.Name)
		}) {
			continue // the model read or made it after all
		}
		line := failureLine(r)
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	const most = 3
	if len(lines) > most {
		lines = append(lines[:most], fmt.Sprintf("(and %d more failed calls)", len(lines)-most))
	}
	return strings.Join(lines, "\n") + "\n\n"
}

// moot reports whether r is a failure that a change of the turn made
// moot: a read offgrid made for the model (read-first) of a file that did
// not exist, the turn having made a change (made), as a new file is
// read first and then written. Neither offgrid's account (failureNote)
// nor the answer (withoutMoot) tells it.
func moot(r ToolRecord, made bool) bool {
	return made && r.ByAgent && !r.OK() && r.Result.ErrorType == tools.TypeNotFound
}

// withoutMoot drops the lines of an answer that repeat the message of a
// moot failure (see moot): having written docs/runbook.md, the 0.5B
// answered on "Reading the file docs/runbook.md failed: not_found:
// docs/runbook.md does not exist; …", copied from the request it was
// shown, where read-first had put it.
func withoutMoot(text string, calls []ToolRecord, made bool) string {
	var msgs []string
	for _, r := range calls {
		// Its first clause: "docs/runbook.md does not exist", before
		// what the folder holds, which a copy may cut.
		msg, _, _ := strings.Cut(strings.TrimSpace(r.Result.Message()), ";")
		if msg, _, _ = strings.Cut(msg, "\n"); moot(r, made) && msg != "" {
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(l, m) }) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// withoutReplaced drops the lines of an answer to a change that show a
// file as it was before the change: a line, in a fenced block or not,
// that the change took out (goneLines), and a run of numbered lines
// ("5: - Soil sensor …") that gives any line a number it no longer has,
// with the line that heads it. Having raised a minimum order from 50 to
// 60 zł in a changelog, the 0.5B answered with the file as read-first
// had shown it, the line of 50 zł and all, under "The file CHANGELOG.md
// holds:"; having added a line to a changelog, with the old numbering
// of every line after it.
func withoutReplaced(text string, calls []ToolRecord) string {
	files := edited(calls)
	if len(files) == 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	type numberedLine struct {
		n    int
		text string // trimmed
		ok   bool   // the line is numbered, "5: text"
	}
	parsed := make([]numberedLine, len(lines))
	for i, l := range lines {
		n, t, ok := tools.NumberedLine(strings.TrimSpace(l))
		parsed[i] = numberedLine{n, strings.TrimSpace(t), ok}
	}
	stale := func(l numberedLine) bool {
		for _, f := range files {
			if l.ok && l.text != "" && f.before[l.n] == l.text && f.after[l.n] != l.text {
				return true
			}
		}
		return false
	}
	drop := make([]bool, len(lines))
	for i := 0; i < len(lines); {
		if !parsed[i].ok {
			i++
			continue
		}
		j, old := i, false // a run of numbered lines, blank lines within it
		for ; j < len(lines) && (parsed[j].ok || strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && parsed[j+1].ok); j++ {
			old = old || stale(parsed[j])
		}
		if old {
			for k := i; k < j; k++ {
				drop[k] = true
			}
			if h := i - 1; h >= 0 && strings.HasSuffix(strings.TrimSpace(lines[h]), ":") {
				drop[h] = true // "The file CHANGELOG.md holds:"
			}
		}
		i = j
	}
	gone := goneLines(files)
	kept := lines[:0]
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if parsed[i].ok {
			t = parsed[i].text
		}
		if !drop[i] && !gone[t] {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// editedFile is a file the turn read and then changed: its lines as read,
// and as the changes left them, by number (trimmed; a read of part of a
// file gives that part).
type editedFile struct{ before, after map[int]string }

// goneLines returns the lines (trimmed, not blank) that a change took
// out of a file: the file held each as read and holds it no longer.
func goneLines(files map[string]*editedFile) map[string]bool {
	gone := map[string]bool{}
	for _, f := range files {
		held := map[string]bool{}
		for _, t := range f.after {
			held[t] = true
		}
		for _, t := range f.before {
			if t != "" && !held[t] {
				gone[t] = true
			}
		}
	}
	return gone
}

// edited replays the turn's successful replace_lines, insert_lines and
// write_file calls on the lines of the files read before them, by path.
// A file read again starts again from that read.
func edited(calls []ToolRecord) map[string]*editedFile {
	put := func(content string) []string { // the lines a call writes, trimmed
		ls := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		for i := range ls {
			ls[i] = strings.TrimSpace(ls[i])
		}
		return ls
	}
	files := map[string]*editedFile{}
	read := map[string]map[int]string{} // the lines as last read or replayed
	for _, r := range calls {
		if !r.OK() {
			continue
		}
		p := path.Clean(r.argPath())
		var args struct {
			LineStart  int    `json:"line_start"`
			LineEnd    int    `json:"line_end"`
			NewContent string `json:"new_content"`
			Content    string `json:"content"`
		}
		json.Unmarshal(r.Arguments, &args)
		var next map[int]string
		lines := read[p]
		switch r.Name {
		case readFileTool:
			if r.Result.Data != nil {
				read[p] = linesByNumber(*r.Result.Data)
				delete(files, p)
			}
			continue
		case "replace_lines", "insert_lines":
			if lines == nil {
				continue
			}
			first, last := args.LineStart, args.LineEnd // the lines taken out
			if r.Name == "insert_lines" {
				last = first - 1
			}
			var in []string
			if args.NewContent != "" {
				in = put(args.NewContent)
			}
			next = map[int]string{}
			for n, t := range lines {
				switch {
				case n < first:
					next[n] = t
				case n > last:
					next[n+len(in)-(last-first+1)] = t
				}
			}
			for i, t := range in {
				next[first+i] = t
			}
		case "write_file":
			if lines == nil {
				continue
			}
			next = map[int]string{}
			for i, t := range put(args.Content) {
				next[i+1] = t
			}
		default:
			continue
		}
		if files[p] == nil {
			files[p] = &editedFile{before: lines}
		}
		files[p].after, read[p] = next, next
	}
	return files
}

// failureLine says what one failed or denied call was and why it failed.
func failureLine(r ToolRecord) string {
	what := r.Name
	if t := callTarget(r); t != "" {
		what += " " + t
	}
	if r.Denied {
		return fmt.Sprintf("`%s` was not run: permission was denied.", what)
	}
	msg := strings.TrimSpace(r.Result.Message())
	if msg == "" {
		msg = "it failed"
	}
	return fmt.Sprintf("`%s` failed (%s): %s", what, r.Result.ErrorType, strings.TrimSuffix(shorten(msg, 200), "."))
}

// callTarget is what a call worked on, for people: its path, command,
// pattern or query argument, "" when it has none of them.
func callTarget(r ToolRecord) string {
	var args map[string]any
	if json.Unmarshal(r.Arguments, &args) != nil {
		return ""
	}
	for _, k := range []string{"path", "file", "command", "pattern", "query", "url", "id"} {
		if v, ok := args[k].(string); ok && v != "" {
			return shorten(v, 80)
		}
	}
	return ""
}

// The answer prompt's instructions (answerMessages), which an answer
// never repeats (see grounded).
const (
	failedInstruction = "A call that failed returned nothing: what it would have returned is not known. Say what failed and why, and never make up what it would have returned."
	doneInstruction   = "The tools have already done what the user asked: reply with what they found or did, not with instructions."
	// unchangedInstruction takes doneInstruction's place when a change
	// was asked for and no call made one (unchanged): told that the tools
	// had done what was asked, the 0.5B, which had written a file back as
	// it was, answered "the version is 2.3.2" of a file that says 2.3.1.
	unchangedInstruction = "No file was changed: answer from what the results show, and never say that a file was changed."
	// deniedSentence ends doneInstruction, as measured, when nobody was asked
	// (see answerMessages).
	deniedSentence = "A tool the user denied did not run, so that was not done."
)

// echoed reports whether line repeats a sentence of offgrid's own
// instructions: the 0.5B answered a change it had made with "The tools
// have already done what the user asked: reply with …".
func echoed(line string) bool {
	line = strings.TrimSpace(line)
	if len(line) < 20 {
		return false
	}
	for _, s := range instructionSentences() {
		if len(s) >= 20 && (strings.Contains(line, s) || strings.Contains(s, line)) {
			return true
		}
	}
	for _, in := range []string{failedInstruction, doneInstruction + " " + deniedSentence} {
		if len(line) >= 40 && strings.Contains(in, strings.TrimSuffix(line, "…")) {
			return true
		}
	}
	return false
}

// withoutEchoes returns text without its lines that repeat offgrid's
// instructions (echoed) or the request (repeats), and without its
// sentences made of an instruction's words (garbled) or, when no call
// was denied, that speak of denials in deniedSentence's words.
func withoutEchoes(text, request string, denied bool) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if echoed(l) || repeats(l, request) {
			continue
		}
		var b strings.Builder
		for _, s := range strings.SplitAfter(l, ". ") {
			if !garbled(s) && (denied || !deniedEcho(s)) {
				b.WriteString(s)
			}
		}
		if s := strings.TrimRight(b.String(), " "); s != "" || strings.TrimSpace(l) == "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, "\n")
}

// garbled reports whether sentence is made of four or more words all of
// which are words of one sentence of offgrid's instructions: the 0.5B
// ended changes nobody denied with "The user denied did not run.", from
// deniedSentence.
func garbled(sentence string) bool {
	return slices.ContainsFunc(instructionSentences(), func(s string) bool { return madeOf(sentence, s) })
}

// instructionSentences returns the sentences of the answer prompt's
// instructions, which an answer never repeats (echoed, garbled).
func instructionSentences() []string {
	var out []string
	for _, in := range []string{failedInstruction, doneInstruction, deniedSentence, unchangedInstruction} {
		for _, s := range strings.SplitAfter(in, ". ") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// repeats reports whether line only repeats the request, or a part of it
// of 20 letters or more, spaces, punctuation and case aside, or is made
// of its words (madeOf): the 0.5B, shown a file that did not hold the
// answer, answered a question with the question.
func repeats(line, request string) bool {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	l, r := key(line), key(request)
	return l != "" && (l == r || utf8.RuneCountInString(l) >= 20 && strings.Contains(r, l)) || madeOf(line, request)
}

// madeOf reports whether text is four words or more, every one a word of
// from (words.Keys), in any order: it says nothing from did not. Asked
// in French at what temperature the oven bakes baguettes, the 0.5B read
// the settings and answered "Dans les reglages, le four a combien pour
// la baguette ? Il est a combien pour la baguette ?"; asked in Czech
// what the last meeting decided, "Na poslední poradě rozhodlo poslední
// poradě."
func madeOf(text, from string) bool {
	ks := words.Keys(text)
	if len(ks) < 4 {
		return false
	}
	fk := words.Keys(from)
	return !slices.ContainsFunc(ks, func(k string) bool { return !slices.Contains(fk, k) })
}

// deniedEcho reports whether sentence holds three words in a row of
// deniedSentence: said of a turn in which nothing was denied ("The user
// denied running the tools because …" after a change that was made), it
// is false.
func deniedEcho(sentence string) bool {
	ks, ds := words.Keys(sentence), words.Keys(deniedSentence)
	for i := 0; i+3 <= len(ds); i++ {
		for j := 0; j+3 <= len(ks); j++ {
			if slices.Equal(ks[j:j+3], ds[i:i+3]) {
				return true
			}
		}
	}
	return false
}

// grounded returns the answer made of offgrid's failure note and the
// model's text after it, without lines that repeat offgrid's
// instructions or the request (withoutEchoes; denied: a call of the turn
// was denied): the note alone when that text shows a block of
// content (```), which no tool returned; the model's text alone when
// there is no note.
func grounded(note, text, request string, denied bool) string {
	text = strings.TrimSpace(withoutEchoes(text, request, denied))
	if note == "" {
		return text
	}
	if strings.Contains(text, "```") {
		text = ""
	}
	return strings.TrimSpace(strings.TrimSpace(note) + "\n\n" + text)
}

// groundedAnswer is the answer to a turn: grounded, and when that leaves
// nothing to show, what the calls returned (resultsNote), so that a turn
// never ends with an empty answer that the tools had something for; the
// model's text as it is when there is nothing else.
func groundedAnswer(note, text, request string, calls []ToolRecord) string {
	if s := grounded(note, text, request, slices.ContainsFunc(calls, func(r ToolRecord) bool { return r.Denied })); s != "" {
		return s
	}
	if s := resultsNote(calls); s != "" {
		return s
	}
	return strings.TrimSpace(text)
}

// Quotes no tool returned: after list_tasks returned no tasks, the 0.5B
// answered that the to-do item asked about was "Check the planters for
// any signs of damage or failure.", a line no file or tool held. A line
// of an answer that quotes words (between quotation marks or backticks)
// most of which nothing of the conversation holds is dropped; when
// nothing is left, the answer is what the calls returned (resultsNote).

// quoted matches a quotation: between straight, curly, angle, low or
// corner quotation marks, or backticks, on one line.
var quoted = regexp.MustCompile("\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|«([^»\n]+)»|„([^“”\n]+)[“”]|「([^」\n]+)」|『([^』\n]+)』|`([^`\n]+)`")

// minQuoted is the fewest words a quotation holds to be checked: shorter
// ones name things (a path, a key, a version the answer proposes).
const minQuoted = 4

// heard returns what the conversation up to the turn's answer holds, one
// text a line: the user's messages and the tools' results, and the
// turn's request, calls' arguments and results.
func (a *Agent) heard(turn Turn) string {
	var b strings.Builder
	for _, m := range a.history {
		if m.Role == RoleUser || m.Role == RoleTool {
			b.WriteString(m.Content + "\n")
		}
	}
	b.WriteString(turn.request + "\n")
	for _, c := range turn.Calls {
		b.WriteString(string(c.Arguments) + "\n" + c.Result.Text() + "\n")
	}
	return b.String()
}

// Files no tool named: asked which GitHub Actions workflow files a
// repository has, the 0.5B searched for "example" and answered that it
// has one, `actions.yml`; the repository has ci.yml. A line of an
// answer that names a file of the working directory (tools.FileNames,
// a relative path whose name has a dot: "actions.yml", "docs/ci.md";
// not "</tool_call>") that nothing of the conversation holds, by its
// name without the folders, in any case, is dropped, as a line quoting
// what no tool returned is. An absolute path ("/path/to/config.json")
// is no file of the working directory, and a fenced block is an example
// to run or write, not checked: dropped, its lines left the fences
// empty.

// withoutUnknownFiles returns text without its lines, outside fenced
// blocks, that name a file the conversation, heard, does not hold.
func withoutUnknownFiles(text, heard string) string {
	heard = strings.ToLower(heard)
	unknown := func(f string) bool {
		name := strings.ToLower(path.Base(f))
		return !strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "~") && strings.Contains(name, ".") && !strings.Contains(heard, name)
	}
	return withoutLines(text, func(l string) bool { return slices.ContainsFunc(tools.FileNames(l), unknown) })
}

// Contacts and dates no tool returned: asked for the butter supplier's
// phone number in a folder of French notes, the 0.5B answered "077 888
// 9999", which no file held; asked in Korean on which day a school is
// closed, "2023년 10월 15일", which no file held either. A line of an
// answer, outside fenced blocks, that gives a phone number or an email
// address (contact.Find), or a date with its year (calendar.Days), that
// nothing of the conversation holds in any format (contact.Held,
// calendar.Held) is dropped, whether or not the turn called a tool: only
// a tool or the user can tell the model a number. A date worked out
// from one (three days after the clock's) is dropped too: an answer
// without it is less, one with an invented date is wrong.

// withoutUnheld returns text without its lines, outside fenced blocks,
// that give a contact or a date the conversation, heard, does not hold.
func withoutUnheld(text, heard string) string {
	if len(contact.Find(text)) == 0 && len(calendar.Days(text)) == 0 {
		return text
	}
	unheldContact := func(c string) bool { return !contact.Held(c, heard) }
	unheldDay := func(d calendar.Day) bool { return !calendar.Held(d, heard) }
	return withoutLines(text, func(l string) bool {
		return slices.ContainsFunc(contact.Find(l), unheldContact) || slices.ContainsFunc(calendar.Days(l), unheldDay)
	})
}

// withoutLines returns text without its lines outside fenced blocks
// (```) that drop reports.
func withoutLines(text string, drop func(line string) bool) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	fenced := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		} else if !fenced && drop(l) {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// misquotes reports whether text shows a line of the file the turn read
// otherwise than the file holds it: as read_file shows it ("8:
// __version__ = \"2.3.2\"") but not as the file holds it, space around
// it aside; or as a setting ("iva: 5", "- **port** = 8080") whose key a
// line of the file sets to another value (settingOf). The 0.5B, which
// had written app/__init__.py back unchanged for a version bump,
// answered with the file "as it is", its version bumped; asked in
// Italian to lower the VAT to 5 % in a shop's config, it wrote nothing
// and showed the file holding "iva: 5" (it holds "iva: 10"). It is
// checked only while the file is as read (the caller's part: no change
// made) and when the turn read one file: of two, which one a line is of
// is not known.
func misquotes(text string, calls []ToolRecord) bool {
	var path string
	lines := map[int]string{}       // by number, as the file holds them
	values := map[string][]string{} // the values the file's settings hold, by key
	for _, r := range calls {
		if r.Name != readFileTool || !r.OK() || r.Result.Data == nil {
			continue
		}
		p := r.argPath()
		if path != "" && p != path {
			return false
		}
		path = p
		for n, held := range linesByNumber(*r.Result.Data) {
			lines[n] = held
			if k, v, ok := settingOf(held); ok {
				values[k] = append(values[k], v)
			}
		}
	}
	for _, l := range strings.Split(text, "\n") {
		n, shown, ok := tools.NumberedLine(strings.TrimSpace(l))
		if held, read := lines[n]; ok && read && held != strings.TrimSpace(shown) {
			return true
		}
		if ok {
			l = shown
		}
		if k, v, ok := settingOf(l); ok && len(values[k]) > 0 && !slices.ContainsFunc(values[k], func(held string) bool { return sameSetting(v, held) }) {
			return true
		}
	}
	return false
}

// linesByNumber returns the lines of a file as read_file shows it
// ("1: text"), trimmed, by number.
func linesByNumber(data string) map[int]string {
	lines := map[int]string{}
	for _, l := range strings.Split(data, "\n") {
		if n, t, ok := tools.NumberedLine(l); ok {
			lines[n] = strings.TrimSpace(t)
		}
	}
	return lines
}

// settingOf returns the key, in lower case, and the value of a line that
// sets one ("iva: 10", "PORT = 8080", "- **retries**: 3", "`iva: 5`"): a
// key of a letter or underscore then letters, digits, "_", "-" or ".",
// before the first ":" or "=", and a value after it; false for any other
// line (prose, "3:30 pm", "The file config/negozio.yaml:").
func settingOf(line string) (key, value string, ok bool) {
	line = strings.TrimSpace(strings.NewReplacer("`", "", "**", "").Replace(line))
	line = strings.TrimSpace(strings.TrimLeft(line, "-*•"))
	i := strings.IndexAny(line, ":=")
	if i <= 0 {
		return "", "", false
	}
	key, value = strings.TrimSpace(line[:i]), strings.Trim(strings.TrimSpace(line[i+1:]), `"',`)
	if value == "" || !settingKey.MatchString(key) {
		return "", "", false
	}
	return strings.ToLower(key), value, true
}

// settingKey matches a setting's key (settingOf).
var settingKey = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_.-]*$`)

// sameSetting reports whether a setting's value shown is the value held:
// the same, or one of them the other followed by more than letters and
// digits ("10 %" of "10", "10  # percent" of "10"); "5" is not "15".
func sameSetting(shown, held string) bool {
	prefix := func(a, b string) bool {
		rest, ok := strings.CutPrefix(a, b)
		if !ok {
			return false
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return rest == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}
	shown, held = strings.ToLower(shown), strings.ToLower(held)
	return prefix(shown, held) || prefix(held, shown)
}

// withoutUnfounded returns text without its lines that quote what no
// tool returned (unfounded), given what the conversation holds (heard).
func withoutUnfounded(text, heard string) string {
	if !quoted.MatchString(text) {
		return text
	}
	known := map[string]bool{}
	for _, k := range words.Keys(heard) {
		known[k] = true
	}
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !unfounded(l, known) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// unfounded reports whether line quotes minQuoted or more distinct words
// fewer than half of which are known. A quotation in a script written
// without spaces is not checked: it may translate what a tool returned.
func unfounded(line string, known map[string]bool) bool {
	for _, m := range quoted.FindAllStringSubmatch(line, -1) {
		var q string
		for _, g := range m[1:] {
			if g != "" {
				q = g
				break
			}
		}
		if strings.ContainsFunc(q, words.Unspaced) {
			continue
		}
		ks := words.Keys(q)
		slices.Sort(ks)
		ks = slices.Compact(ks)
		if len(ks) < minQuoted {
			continue
		}
		found := 0
		for _, k := range ks {
			if known[k] {
				found++
			}
		}
		if 2*found < len(ks) {
			return true
		}
	}
	return false
}
