package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// Limits of a file Options.Rewrite has the model write whole, and of the
// part it writes of a longer one: a file of more than rewriteWhole lines
// that a search found a line of is shown from rewriteAround lines before
// that line to as many after it. The 0.5B wrote a 76-line file back
// unchanged when asked to change one price in it, and changed the price
// in the 7 lines around the line the search found (with 4 lines on each
// side, it added a copy of the item instead).
const (
	maxRewriteLines = 200
	maxRewriteBytes = 8 << 10
	rewriteWhole    = 24
	rewriteAround   = 3
)

// rewrite has the model write a whole file (Options.Rewrite), in a
// prompt of its own, from the one file the request names and offgrid has
// read: that file's new content, for a request to change it, or the
// content of a new file the request names, for one to copy or write it
// ("Copy notes.txt into backup.txt"); or, naming no other file, the
// content of the new file the request asks for ("Create hi.txt saying
// hello"). It returns the call that makes the
// file so: for a change, a replace_lines or insert_lines call of the
// lines that differ; for a new file, write_file. It returns no call when
// the request is neither, the file does not qualify, the tools are not
// offered, or the model's content is unreadable, the file unchanged or,
// for a change that takes nothing out, shorter by more than half. It
// reports kept when the model wrote a whole file it was shown back as it
// was: shown the file and the request, it saw nothing to change.
func (a *Agent) rewrite(ctx context.Context, turn *Turn, request string, in intent, named []tools.Mention, on func(Event)) (calls []grammar.Call, kept bool, err error) {
	if !a.opts.Rewrite || !in.change {
		return nil, false, nil
	}
	var rec *ToolRecord
	var unread []string // the files the request names that could not be read
	for i := range turn.Calls {
		r := &turn.Calls[i]
		if r.ByAgent && r.Name == readFileTool && !r.OK() {
			unread = append(unread, callTarget(*r))
		}
		if !r.ByAgent || r.Name != readFileTool || !r.OK() {
			continue // a file that could not be read is not rewritten
		}
		if rec != nil {
			return nil, false, nil // more than one file
		}
		rec = r
	}
	if a.opts.ToolChoice == grammar.None {
		return nil, false, nil
	}
	fresh := newFiles(named) // files the request names that do not exist
	create := len(fresh) > 0 && a.offers("write_file")
	var newFile string // the file to create, if any
	if create {
		newFile = a.chooseFile(ctx, turn, request, fresh, on)
		create = newFile != ""
		// The other files named that do not exist could not be read
		// either: "Copy notes.txt into backup.txt" with no notes.txt.
		// (newFiles gives a file in the one folder named by its name
		// too: that is the same file.)
		for _, f := range fresh {
			if f != newFile && !strings.HasSuffix(newFile, "/"+f) && !strings.HasSuffix(f, "/"+newFile) {
				unread = append(unread, f)
			}
		}
	}
	var prompt, source, target string // source: the file read, if any
	var all, old []string             // the file's lines, and the part shown
	first := 1                        // the number of old's first line
	numbered := ""                    // the file as read_file shows it: "1: text"
	switch {
	case rec == nil && create && (namedAfter(newFile, unread) || a.fromUnread(ctx, turn, request, unread, on)):
		return nil, false, nil
	case rec == nil && create:
		// A new file from the request alone.
		target = newFile
		prompt = fmt.Sprintf("%s\n\nReply with the whole content of the new file %s in one ``` block, and nothing else.", request, target)
	case rec == nil || !rec.OK() || rec.Result.Data == nil || len(*rec.Result.Data) > maxRewriteBytes:
		return nil, false, nil
	default:
		var ok bool
		// A table whose read ends with its figures (a CSV or TSV file
		// with a numeric column) is not rewritten whole: asked a
		// question about a table that the intent took for a change,
		// the 0.5B dropped or changed a row in 3 of 7 such turns
		// (stop 82).
		var figures string
		if numbered, figures = tools.SplitTableNote(*rec.Result.Data); figures != "" {
			return nil, false, nil
		}
		if all, ok = tools.Unnumbered(numbered); !ok || len(all) > maxRewriteLines {
			return nil, false, nil
		}
		source, old = rec.argPath(), all
		switch {
		case create:
			target = newFile
			prompt = linesPrompt(source, numbered, request, "the whole content of the new file "+target)
		case len(fresh) == 0 && a.offers("replace_lines") && a.offers("insert_lines"):
			target = source
			if l, ok := editWindow(all, foundLine(turn.Calls, source)); ok {
				first, old = l, windowOf(all, l)
				prompt = windowPrompt(source, numbered, first, len(old), request)
			} else {
				prompt = linesPrompt(source, numbered, request, "the whole new content of "+target)
			}
		default:
			return nil, false, nil
		}
	}
	updated, ok, err := a.writeLines(ctx, turn, prompt, source, first, old, on)
	if err != nil {
		return nil, false, err
	}
	if target != source {
		if !ok || len(updated) == 0 {
			return nil, false, nil
		}
		content, _ := json.Marshal(struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}{target, strings.Join(updated, "\n") + "\n"})
		return []grammar.Call{{Name: "write_file", Arguments: content}}, false, nil
	}
	if ok && 2*len(updated) < len(old) {
		on(Event{Type: EventWarning, Text: fmt.Sprintf("the model's rewrite of %s drops most of its lines; it is not used", source)})
		return nil, false, nil
	}
	if ok {
		if call, ok := lineEdit(source, first, old, keepLayout(old, updated)); ok {
			return []grammar.Call{call}, false, nil
		}
	}
	// The model wrote what it was shown back as it was, or wrote no
	// lines: shown the lines with the request's number set, it may
	// choose the change (ValueEdit); one line at a time, after lines
	// written back as they were, it may see it (EditLine).
	if calls, err := a.valueEdit(ctx, turn, request, rec, on); err != nil || len(calls) > 0 {
		return calls, false, err
	}
	if !ok {
		return nil, false, nil
	}
	if calls, err := a.editLine(ctx, turn, request, rec, on); err != nil || len(calls) > 0 {
		return calls, false, err
	}
	// Shown the whole file, the model kept it as it was; shown a part,
	// the change may be elsewhere.
	return nil, len(old) == len(all), nil
}

// linesPrompt asks for what, in one fenced block with line numbers, of
// the file source shown whole (numbered: as read_file shows it).
func linesPrompt(source, numbered, request, what string) string {
	return fmt.Sprintf("%s\n\n%s\n\nReply with %s, with line numbers, in one %s block, and nothing else.",
		shownFile(source, numbered), request, what, codeFence(numbered))
}

// shownFile shows the model the file source whole, numbered as
// read_file shows it, in a fenced block.
func shownFile(source, numbered string) string {
	fence := codeFence(numbered)
	return fmt.Sprintf("The file %s holds (with line numbers):\n%s\n%s%s", source, fence, numbered, fence)
}

// windowPrompt asks for count lines of the file source, from first, as
// they must be after the change.
func windowPrompt(source, numbered string, first, count int, request string) string {
	lines := strings.SplitAfter(numbered, "\n")
	part := strings.Join(lines[first-1:first-1+count], "")
	fence := codeFence(part)
	return fmt.Sprintf("Lines %d-%d of the file %s (with line numbers):\n%s\n%s%s\n\n%s\n\nReply with these lines as they must be after the change, with line numbers, in one %s block, and nothing else.",
		first, first+count-1, source, fence, part, fence, request, fence)
}

// windowOf returns the lines of the part of the file all that is
// rewritten from line first: 2*rewriteAround+1 lines, or to the end.
func windowOf(all []string, first int) []string {
	return all[first-1 : min(len(all), first-1+2*rewriteAround+1)]
}

// writeLines has the model reply to prompt with one fenced block and
// returns its lines: for lines of the file source shown numbered (old,
// the first numbered first), unnumbered; for a new file, as they are.
// It reports false when the reply has no block, or numbers some lines
// and not others.
func (a *Agent) writeLines(ctx context.Context, turn *Turn, prompt, source string, first int, old []string, on func(Event)) ([]string, bool, error) {
	req := CompletionRequest{
		Messages:   []Message{{Role: RoleUser, Content: prompt}},
		Format:     a.opts.Format,
		MaxTokens:  len(prompt)/2 + 256,
		ToolChoice: grammar.None,
		Block:      !a.opts.NoGrammar,
		Repeats:    source != "", // a file's lines may repeat
	}
	diverge := a.opts.Diverge && source != "" && req.Block
	if diverge {
		req.Alternatives = divergeAlternatives
	}
	comp, err := a.complete(ctx, turn, on, req)
	if err != nil {
		return nil, false, err
	}
	updated, ok := blockLines(comp, source != "", first, old)
	if !ok {
		return nil, false, nil
	}
	if diverge && slices.Equal(keepLayout(old, updated), old) {
		if lines, ok, err := a.diverge(ctx, turn, req, comp, first, old, on); err != nil || ok {
			return lines, ok, err
		}
	}
	return updated, true, nil
}

// blockLines returns the lines of the fenced block of comp, a reply that
// writes lines old of a file shown numbered, the first numbered first,
// or, not numbered, a new file. It reports false when the reply has no
// block, or numbers some lines and not others.
func blockLines(comp Completion, numbered bool, first int, old []string) ([]string, bool) {
	// A new file the model began to write again and again ends with its
	// first copy, where the loop was cut, before the closing fence.
	block, ok := fencedLines(comp.Content, comp.StopReason == StopRepetition)
	if !ok {
		return nil, false
	}
	// The lines of a file shown numbered come numbered; without numbers
	// they are taken as they are, unless some are numbered and others
	// not. A new file from the request alone is taken as it is.
	updated := block
	if numbered {
		if updated, ok = tools.UnnumberedFrom(strings.Join(block, "\n")+"\n", first); !ok {
			if slices.ContainsFunc(block, isNumbered) {
				return nil, false
			}
			updated = block
		}
	}
	for len(updated) > 0 && updated[len(updated)-1] == "" && (len(old) == 0 || old[len(old)-1] != "") {
		updated = updated[:len(updated)-1] // a blank line before the closing fence
	}
	return updated, true
}

// editWindow returns the first line of the part of a file of lines old
// the model rewrites: rewriteAround lines before line at (1-based) to as
// many after it. It reports false for a short file, or no line.
func editWindow(old []string, at int) (int, bool) {
	if len(old) <= rewriteWhole || at < 1 || at > len(old) {
		return 0, false
	}
	return max(1, min(at-rewriteAround, len(old)-2*rewriteAround)), true
}

// foundLine returns the first line of the file path that offgrid's own
// search of the turn (SearchFirst) shows, the best one when its lines
// are ranked, or 0.
func foundLine(calls []ToolRecord, path string) int {
	for _, c := range calls {
		if c.ByAgent && c.Name == searchTool && c.OK() {
			if _, n := firstMatch(c.Result, path); n > 0 {
				return n
			}
		}
	}
	return 0
}

// onlyReads reports whether a request that needs information from the
// files (in) asked for nothing but the reads offgrid made, all of which
// succeeded.
func onlyReads(in intent, calls []ToolRecord) bool {
	if !in.known || in.change || in.topic != tools.TopicFiles || len(calls) == 0 {
		return false
	}
	for _, c := range calls {
		if !c.ByAgent || !c.OK() {
			return false
		}
	}
	return true
}

// offers reports whether the tool name is offered this turn.
func (a *Agent) offers(name string) bool { return hasTool(a.offered, name) }

// fencedLines returns the lines of the first fenced block of reply (a
// line of three or more backticks, maybe with a language, to the next
// line of as many, or with open to the end); false when there is none or
// it is not closed.
func fencedLines(reply string, open bool) ([]string, bool) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		if n < 3 || strings.Contains(t[n:], "`") {
			continue
		}
		fence := t[:n]
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				return lines[i+1 : j], true
			}
		}
		if open {
			return lines[i+1:], true
		}
		return nil, false
	}
	return nil, false
}

// lineEdit returns the replace_lines or insert_lines call that turns the
// lines old of the file path, the first numbered first, into updated: the
// lines between their common head and tail. It reports false when they
// are the same.
func lineEdit(path string, first int, old, updated []string) (grammar.Call, bool) {
	head := 0
	for head < len(old) && head < len(updated) && old[head] == updated[head] {
		head++
	}
	tail := 0
	for tail < len(old)-head && tail < len(updated)-head && old[len(old)-1-tail] == updated[len(updated)-1-tail] {
		tail++
	}
	gone, added := old[head:len(old)-tail], updated[head:len(updated)-tail]
	if len(gone) == 0 && len(added) == 0 {
		return grammar.Call{}, false
	}
	var args []byte
	if len(gone) == 0 {
		args, _ = json.Marshal(struct {
			Path       string `json:"path"`
			LineStart  int    `json:"line_start"`
			NewContent string `json:"new_content"`
		}{path, first + head, strings.Join(added, "\n")})
		return grammar.Call{Name: "insert_lines", Arguments: args}, true
	}
	args, _ = json.Marshal(struct {
		Path       string `json:"path"`
		LineStart  int    `json:"line_start"`
		LineEnd    int    `json:"line_end"`
		NewContent string `json:"new_content"`
	}{path, first + head, first - 1 + len(old) - tail, strings.Join(added, "\n")})
	return grammar.Call{Name: "replace_lines", Arguments: args}, true
}

// keepLayout returns updated, the model's rewrite of the lines old, with
// what it changed only in layout taken back from old: blank lines it
// dropped or added, and space it trimmed from a line's end. The lines
// that are not blank are matched by their longest common subsequence;
// between two matches, lines that are all blank on both sides are old's,
// and a change keeps old's blank lines around it. Asked what PUT and
// PATCH differ in, the 0.5B chose a change, copied the 19 lines of
// scripts/deploy.sh without two blank lines, and offgrid replaced lines
// 4-19 with them; a file copied so is kept. (A request to add or delete
// blank lines alone is thereby not made by a rewrite: the model answers
// that no file was changed.)
func keepLayout(old, updated []string) []string {
	key := func(l string) string { return strings.TrimRight(l, " \t\r") }
	var oi, ui []int // the lines that are not blank
	for i, l := range old {
		if strings.TrimSpace(l) != "" {
			oi = append(oi, i)
		}
	}
	for j, l := range updated {
		if strings.TrimSpace(l) != "" {
			ui = append(ui, j)
		}
	}
	// lcs[i][j] is the length of the longest common subsequence of the
	// lines oi[i:] and ui[j:] (files are at most maxRewriteLines long).
	n, m := len(oi), len(ui)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if key(old[oi[i]]) == key(updated[ui[j]]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := make([]string, 0, max(len(old), len(updated)))
	// between adds the lines between two matches (or an end).
	between := func(gone, added []string) {
		goneBlank, addedBlank := blankRun(gone, false) == len(gone), blankRun(added, false) == len(added)
		switch {
		case goneBlank && addedBlank:
			out = append(out, gone...) // layout alone
		case goneBlank || addedBlank:
			out = append(out, added...) // lines added, or deleted
		default:
			// A change, with old's blank lines around it.
			lead, trail := blankRun(gone, false), blankRun(gone, true)
			added = added[blankRun(added, false) : len(added)-blankRun(added, true)]
			out = append(append(append(out, gone[:lead]...), added...), gone[len(gone)-trail:]...)
		}
	}
	po, pu := 0, 0 // the first lines after the last match
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case key(old[oi[i]]) == key(updated[ui[j]]):
			between(old[po:oi[i]], updated[pu:ui[j]])
			out = append(out, old[oi[i]])
			po, pu = oi[i]+1, ui[j]+1
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	between(old[po:], updated[pu:])
	return out
}

// blankRun returns how many blank lines ls begins with, or ends with.
func blankRun(ls []string, end bool) int {
	n := 0
	for n < len(ls) {
		l := ls[n]
		if end {
			l = ls[len(ls)-1-n]
		}
		if strings.TrimSpace(l) != "" {
			break
		}
		n++
	}
	return n
}

// newFiles returns the files named that do not exist and may be made in
// the working directory: not paths outside it, not folders ("bin/"). A
// bare file name may also go in the one folder the request names, which
// is a name of its own: "create a note 2024-06-17.md under
// docs/meeting-notes/" names docs/meeting-notes/2024-06-17.md, but "add a
// .gitignore that ignores bin/" does not name bin/.gitignore; the model
// chooses (chooseFile).
func newFiles(named []tools.Mention) []string {
	var dirs []string
	for _, m := range named {
		if m.Dir {
			dirs = append(dirs, m.Path)
		}
	}
	var out []string
	for _, m := range named {
		p := m.Path
		if m.Missing && !m.Outside() && !strings.HasSuffix(p, "/") {
			out = append(out, p)
			if len(dirs) == 1 && !strings.Contains(p, "/") {
				out = append(out, path.Join(dirs[0], p))
			}
		}
	}
	return out
}

// chooseFileExamples are requests that name several new files and the
// one each asks to write, in languages that put it first and last: told
// only which names to choose from, the 0.5B chose the first one named,
// and wrote coverage.out for a Japanese request for a .gitignore that
// ignores it.
var chooseFileExamples = []struct{ request, file string }{
	{"Add a .dockerignore that leaves out node_modules/ and debug.log", ".dockerignore"},
	{"vendor/ と app.log を除外する .npmignore を作って", ".npmignore"},
	{"Kopiere todo.txt nach archiv/todo-2024.txt", "archiv/todo-2024.txt"},
	{"Crée dans docs/ un fichier faq.md avec trois questions", "docs/faq.md"},
	{"Put a Makefile in the root with a build target for ./tools/", "Makefile"},
}

// chooseFile returns the one of names, files that do not exist yet, that
// request asks to create: the only one, or the model's choice under a
// grammar ("" when it cannot be had). "Add a .gitignore that ignores
// coverage.out" names two.
func (a *Agent) chooseFile(ctx context.Context, turn *Turn, request string, names []string, on func(Event)) string {
	if len(names) == 1 {
		return names[0]
	}
	if a.opts.NoGrammar {
		return ""
	}
	msgs := fewShot("A user's request names files that do not exist yet. Reply with the name of the one file it asks to create or write.",
		chooseFileExamples, func(ex struct{ request, file string }) (string, string) { return ex.request, ex.file }, request)
	name, _ := a.choose(ctx, turn, on, msgs, names) // no name: no file written
	return name
}

// fromUnreadExamples are requests for a new file that name another file
// that could not be read, and whether the new file's content is to come
// from that file.
var fromUnreadExamples = []struct{ request, unread, answer string }{
	{"Write a script clean.sh that empties /tmp/cache", "/tmp/cache", "no"},
	{"Copy notes.txt into backup.txt", "notes.txt", "yes"},
	{"Ajoute /var/log/app.log à un nouveau .gitignore", "/var/log/app.log", "no"},
	{"Back up config.yaml as config.bak", "config.yaml", "yes"},
	{"Erstelle README.md: das Tool liest beim Start /etc/app.conf", "/etc/app.conf", "no"},
	{"把 ../report.md 的要点总结到 summary.md", "../report.md", "yes"},
}

// fromUnread reports whether the new file a request asks for is to be
// made from a file it names that offgrid could not read (unread: its
// read failed, or it does not exist), as the model chooses under a
// grammar: a copy, a backup or a summary of it, which the request alone
// cannot give. Asked to "make a backup of ../secrets.env as
// secrets.bak", whose read was refused, the 0.5B wrote a shell script
// into secrets.bak, and the answer said it was created. It reports
// false, the file written from the request, when every named file was
// read, or the model does not choose yes ("add /var/log/app.log to a new
// .gitignore" names a file that is not read).
func (a *Agent) fromUnread(ctx context.Context, turn *Turn, request string, unread []string, on func(Event)) bool {
	if len(unread) == 0 || a.opts.NoGrammar {
		return false
	}
	ask := func(request, unread string) string { return request + "\n\nCould not be read: " + unread }
	msgs := fewShot("A user asks for a new file, and names another file that could not be read. Reply yes if the new file's content must come from that file (a copy, a backup, a summary, its lines), no if the request itself says what the new file holds.",
		fromUnreadExamples, func(ex struct{ request, unread, answer string }) (string, string) {
			return ask(ex.request, ex.unread), ex.answer
		}, ask(request, strings.Join(unread, ", ")))
	yes, err := a.choose(ctx, turn, on, msgs, []string{"yes", "no"})
	return err == nil && yes == "yes"
}

// namedAfter reports whether the new file is named after a file in
// unread, the files that could not be read: the same name but for the
// extensions, in any case ("secrets.bak" after "../secrets.env",
// "hosts.txt" after "/etc/hosts"). Such a file is a copy, a backup or a
// part of the other, whatever the request's words, and the request alone
// cannot give its content: asked to back up ../secrets.env as
// secrets.bak, the 0.5B chose (fromUnread) that it was not, and wrote a
// script into it. A note named after what it is about ("nginx.md" on
// /etc/nginx/nginx.conf) is not written from the request either; the
// turn goes on, and its answer tells that the read failed.
func namedAfter(file string, unread []string) bool {
	stem := func(p string) string {
		base := path.Base(strings.ReplaceAll(p, "\\", "/"))
		if i := strings.Index(base[min(1, len(base)):], "."); i >= 0 {
			base = base[:i+min(1, len(base))] // ".env.local" keeps ".env"
		}
		return strings.ToLower(base)
	}
	s := stem(file)
	return slices.ContainsFunc(unread, func(u string) bool { return stem(u) == s })
}

// isNumbered reports whether line is numbered as read_file shows a line.
func isNumbered(line string) bool {
	_, _, ok := tools.NumberedLine(line)
	return ok
}
