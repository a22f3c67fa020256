package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestLineEdit(t *testing.T) {
	for _, tc := range []struct {
		old, updated string
		want         string // the call, "" for none
	}{
		{"a\nb\nc", "a\nB\nc", `replace_lines {"path":"f","line_start":2,"line_end":2,"new_content":"B"}`},
		{"a\nb\nc", "a\nb\nc\nd", `insert_lines {"path":"f","line_start":4,"new_content":"d"}`},
		{"a\nb\nc", "top\na\nb\nc", `insert_lines {"path":"f","line_start":1,"new_content":"top"}`},
		{"a\nb\nc", "a\nc", `replace_lines {"path":"f","line_start":2,"line_end":2,"new_content":""}`},
		{"a\nb\nc", "x\ny", `replace_lines {"path":"f","line_start":1,"line_end":3,"new_content":"x\ny"}`},
		{"a\na\na", "a\na\na\na", `insert_lines {"path":"f","line_start":4,"new_content":"a"}`},
		{"a\nb", "a\nb", ""},
	} {
		call, ok := lineEdit("f", 1, strings.Split(tc.old, "\n"), strings.Split(tc.updated, "\n"))
		got := ""
		if ok {
			got = call.Name + " " + string(call.Arguments)
		}
		if got != tc.want {
			t.Errorf("%q → %q: %s, want %s", tc.old, tc.updated, got, tc.want)
		}
	}
}

func TestKeepLayout(t *testing.T) {
	for _, tc := range []struct {
		old, updated, want string
	}{
		// Copied without its blank lines, with trailing space trimmed or
		// a blank line added: the file as it was.
		{"#!/bin/sh\nset -eu\n\nHOST=a\n\necho hi", "#!/bin/sh\nset -eu\nHOST=a\necho hi", "#!/bin/sh\nset -eu\n\nHOST=a\n\necho hi"},
		{"a  \nb", "a\nb", "a  \nb"},
		{"a\nb", "a\n\nb", "a\nb"},
		{"a\n\n\nb", "a\n \nb", "a\n\n\nb"},
		// A change is kept, and the blank lines around it.
		{"x: 1\n\ny: 2\n\nz: 3", "x: 1\ny: 5\nz: 3", "x: 1\n\ny: 5\n\nz: 3"},
		{"a\nb\nc", "a\nc", "a\nc"},
		{"a\n\n- worm bin\n\nb", "a\n\nb", "a\n\nb"},
		{"a\nb", "a\nb\nc", "a\nb\nc"},
		{"a\nb", "b\na", "b\na"},
		// A blank line that takes the place of one that was not is the
		// model's.
		{"a\nold\nb", "a\n\nb", "a\n\nb"},
		{"", "a", "a"},
		{"a\n\nb: 1\n\nc", "a\n\n\nb: 2\n\n\nc", "a\n\nb: 2\n\nc"},
		// Lines added keep the blank lines the model put around them.
		{"# Log\n## 1.0\n- a", "# Log\n\n## 1.1\n- b\n\n## 1.0\n- a", "# Log\n\n## 1.1\n- b\n\n## 1.0\n- a"},
	} {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, "\n")
		}
		if got := strings.Join(keepLayout(split(tc.old), split(tc.updated)), "\n"); got != tc.want {
			t.Errorf("%q → %q: %q, want %q", tc.old, tc.updated, got, tc.want)
		}
	}
}

func TestFencedLines(t *testing.T) {
	for _, tc := range []struct {
		reply string
		open  bool
		want  string
		ok    bool
	}{
		{"```\na\nb\n```", false, "a|b", true},
		{"Here it is:\n```json\n{}\n```\nDone.", false, "{}", true},
		{"````\n```\nx\n```\n````", false, "```|x|```", true},
		{"```\nnot closed", false, "", false},
		{"```\nnot closed", true, "not closed", true},
		{"```\na\n```\nb", true, "a", true},
		{"no block", true, "", false},
	} {
		lines, ok := fencedLines(tc.reply, tc.open)
		if got := strings.Join(lines, "|"); ok != tc.ok || got != tc.want {
			t.Errorf("%q: %q %v, want %q %v", tc.reply, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAgentRewrite(t *testing.T) {
	const notes = "Buy milk\nCall Bob\nShip it\n"
	for _, tc := range []struct {
		name, request string
		replies       []string
		want          string // notes.txt afterwards
		prompts       int    // completions made
		rewrite       bool   // the first prompt is the rewrite
		noGrammar     bool
	}{
		{"changed", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\n1: Buy oat milk\n2: Call Bob\n3: Ship it\n```", "Done."}, "Buy oat milk\nCall Bob\nShip it\n", 3, true, false},
		{"changed, no numbers", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\nBuy oat milk\nCall Bob\nShip it\n\n```", "Done."}, "Buy oat milk\nCall Bob\nShip it\n", 3, true, false},
		{"numbered in part", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\n1: Buy oat milk\nCall Bob\nShip it\n```", "I could not."}, notes, 3, true, false},
		{"appended", "Add the line 'Rest' at the end of notes.txt.",
			[]string{"change", "```text\n1: Buy milk\n2: Call Bob\n3: Ship it\n4: Rest\n```", "Done."}, notes + "Rest\n", 3, true, false},
		{"unchanged", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\nBuy milk\nCall Bob\nShip it\n```", "I could not."}, notes, 3, true, false},
		{"copied with blank lines added", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\nBuy milk\n\nCall Bob\n\nShip it\n```", "I could not."}, notes, 3, true, false},
		{"changed, blank lines added", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\n1: Buy oat milk\n2: \n3: Call Bob\n4: \n5: Ship it\n```", "Done."}, "Buy oat milk\nCall Bob\nShip it\n", 3, true, false},
		{"lines dropped unasked", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "```\nBuy oat milk\n```", "I could not."}, notes, 3, true, false},
		{"no block (without the grammar)", "In notes.txt, change 'Buy milk' to 'Buy oat milk'.",
			[]string{"change", "Sure, I changed it.", "I could not."}, notes, 3, true, true},
		{"copied", "Copy notes.txt into a new file backup.txt.",
			[]string{"change", "```\n1: Buy milk\n2: Call Bob\n3: Ship it\n```", "Done."}, notes, 3, true, false},
		{"created", "Create a file data.json with the content {\"ok\": true}",
			[]string{"change", "```json\n{\"ok\": true}\n```", "Done."}, notes, 3, true, false},
		{"created, numbered as asked", "Create steps.txt with the lines 1: install and 2: run",
			[]string{"change", "```\n1: install\n2: run\n```", "Done."}, notes, 3, true, false},
		// Stopped where it began to repeat itself, the block has no end.
		{"created, looping", "Create runbook.md: to restart, run systemctl restart app",
			[]string{"change", "!nogrammar```markdown\n# Runbook\n\n" + strings.Repeat("Run `systemctl restart app` on the host.\n\n", 4), "Done."}, notes, 3, true, false},
		{"a question", "What does notes.txt say?", []string{"read", "Buy milk, call Bob, ship it."}, notes, 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "notes.txt")
			os.WriteFile(path, []byte(notes), 0o644)
			a, eng := dirAgent(t, dir, tc.replies, Options{
				ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate, NoGrammar: tc.noGrammar})
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.want {
				t.Errorf("notes.txt = %q, want %q", b, tc.want)
			}
			if len(eng.prompts) != tc.prompts {
				t.Fatalf("%d completions, want %d", len(eng.prompts), tc.prompts)
			}
			if tc.name == "created" {
				if b, err := os.ReadFile(filepath.Join(dir, "data.json")); string(b) != "{\"ok\": true}\n" {
					t.Errorf("data.json = %q, %v", b, err)
				}
				// A new file is not read first: its read would fail.
				if slices.ContainsFunc(turn.Calls, func(r ToolRecord) bool { return r.Name == "read_file" }) || strings.Contains(eng.prompts[2], "failed") {
					t.Errorf("the new file was read first: calls %+v, answer's prompt:\n%s", turn.Calls, eng.prompts[2])
				}
			}
			if tc.name == "created, numbered as asked" {
				if b, err := os.ReadFile(filepath.Join(dir, "steps.txt")); string(b) != "1: install\n2: run\n" {
					t.Errorf("steps.txt = %q, %v", b, err)
				}
			}
			if tc.name == "created, looping" {
				if b, err := os.ReadFile(filepath.Join(dir, "runbook.md")); string(b) != "# Runbook\n\nRun `systemctl restart app` on the host.\n" {
					t.Errorf("runbook.md = %q, %v", b, err)
				}
			}
			if tc.name == "copied" {
				if b, err := os.ReadFile(filepath.Join(dir, "backup.txt")); string(b) != notes {
					t.Errorf("backup.txt = %q, %v; want %q", b, err, notes)
				}
			}
			// The first prompt is the choice of what the request needs.
			if got := strings.Contains(eng.prompts[1], "Reply with the whole"); got != tc.rewrite {
				t.Errorf("second prompt a rewrite: %v, want %v:\n%s", got, tc.rewrite, eng.prompts[1])
			}
		})
	}
}

func TestAgentReadAnswer(t *testing.T) {
	for _, tc := range []struct {
		request  string
		choice   string // what the model chose the request needs
		separate bool   // answered in a prompt without tools
	}{
		{"How old is bob according to people.csv?", "read", true},
		{"¿Qué dicen notes.txt y people.csv?", "read", true},
		{"Change line 1 of notes.txt to 'x'.", "change", false},           // a change
		{"Copy notes.txt into backup.txt.", "change", false},              // a new file
		{"What time is it, and what does notes.txt say?", "clock", false}, // the clock
		{"What does missing.txt say?", "read", false},                     // the read failed
	} {
		t.Run(tc.request, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "people.csv"), []byte("name,age\nbob,27\n"), 0o644)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: []string{tc.choice, "Answer."}}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
				ReadFirst: true, ReadAnswer: true, Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			separate := strings.Contains(eng.prompts[1], "Answer the user's question from these results") && !strings.Contains(eng.prompts[1], "<tools>")
			if separate != tc.separate || !strings.HasSuffix(turn.Content, "Answer.") {
				t.Errorf("answered without tools: %v, want %v; answer %q; prompt:\n%s", separate, tc.separate, turn.Content, eng.prompts[1])
			}
		})
	}
}

// TestAgentRewriteWindow: of a long file that offgrid's search found a
// line of, the model rewrites the lines around that line, not the whole
// file, and the lines it changed are replaced where they are.
func TestAgentRewriteWindow(t *testing.T) {
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, "item "+strconv.Itoa(i)+": 1.00")
	}
	lines[29] = "Huila coffee: 10.50"
	text := strings.Join(lines, "\n") + "\n"
	var window []string // lines 27-33 as the model rewrites them
	for n := 27; n <= 33; n++ {
		l := lines[n-1]
		if n == 30 {
			l = "Huila coffee: 11.25"
		}
		window = append(window, strconv.Itoa(n)+": "+l)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.txt")
	os.WriteFile(path, []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("Our shop.\n"), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{t: t, replies: []string{"change", "Huila coffee price", "```\n" + strings.Join(window, "\n") + "\n```", "Done."}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
		ToolsByTopic: true, SearchFirst: true, ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate,
		Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), "Le Huila coûte maintenant 11.25, mets à jour le prix.", nil); err != nil {
		t.Fatal(err)
	}
	lines[29] = "Huila coffee: 11.25"
	if b, _ := os.ReadFile(path); string(b) != strings.Join(lines, "\n")+"\n" {
		t.Errorf("prices.txt =\n%s", b)
	}
	if len(eng.prompts) < 3 || !strings.Contains(eng.prompts[2], "Lines 27-33 of the file prices.txt") || strings.Contains(eng.prompts[2], "26: ") {
		t.Errorf("the rewrite's prompt does not show lines 27-33 alone:\n%s", eng.prompts[2])
	}
}

func TestEditWindow(t *testing.T) {
	long := make([]string, 40)
	for _, tc := range []struct {
		lines, at, first int
		ok               bool
	}{
		{40, 30, 27, true},
		{40, 1, 1, true},
		{40, 40, 34, true},
		{40, 0, 0, false},
		{rewriteWhole, 10, 0, false}, // short: whole
	} {
		first, ok := editWindow(long[:tc.lines], tc.at)
		if first != tc.first || ok != tc.ok {
			t.Errorf("editWindow(%d lines, %d) = %d, %v; want %d, %v", tc.lines, tc.at, first, ok, tc.first, tc.ok)
		}
	}
}

// TestAgentRewriteChoosesFile: of two new files a request names, the one
// the model chooses, under a grammar of their names, is written.
func TestAgentRewriteChoosesFile(t *testing.T) {
	dir := t.TempDir()
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The other file named is not the new file's source (fromUnread).
	eng := &fakeEngine{t: t, replies: []string{"change", ".gitignore", "no", "```\nbin/\ncoverage.out\n```", "Done."}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
		ToolsByTopic: true, ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate,
		Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), "coverage.out を無視する .gitignore を作って", nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != "bin/\ncoverage.out\n" {
		t.Errorf(".gitignore = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "coverage.out")); err == nil {
		t.Error("coverage.out was written")
	}
	if len(eng.prompts) < 3 || !strings.Contains(eng.prompts[1], chooseFileExamples[0].request) {
		t.Fatalf("the choice's prompt lacks its examples:\n%s", eng.prompts[1])
	}
	if !strings.Contains(eng.prompts[2], "Could not be read: coverage.out") {
		t.Errorf("the third prompt, want fromUnread's choice on coverage.out:\n%s", eng.prompts[2])
	}
}

func TestNewFiles(t *testing.T) {
	for _, tc := range []struct {
		named []tools.Mention
		want  string
	}{
		{[]tools.Mention{{Path: "a.txt", Missing: true}, {Path: "b.txt"}}, "a.txt"},
		{[]tools.Mention{{Path: "docs/", Dir: true}, {Path: "2024-06-17.md", Missing: true}}, "2024-06-17.md docs/2024-06-17.md"},
		{[]tools.Mention{{Path: "a/", Dir: true}, {Path: "b/", Dir: true}, {Path: "x.md", Missing: true}}, "x.md"},
		{[]tools.Mention{{Path: "docs", Dir: true}, {Path: "notes/x.md", Missing: true}}, "notes/x.md"},
		{[]tools.Mention{{Path: "/etc/x", Missing: true}, {Path: "../y.txt", Missing: true}, {Path: "bin/", Missing: true}}, ""},
	} {
		if got := strings.Join(newFiles(tc.named), " "); got != tc.want {
			t.Errorf("newFiles(%+v) = %q, want %q", tc.named, got, tc.want)
		}
	}
}

// TestAgentChangeReadsOutsideFirst: a change that names a path outside
// the working directory reads it first all the same, though nothing of
// that name is there: the read is refused, and the refusal reaches the
// model and the answer. A new file is then written from the request
// alone only when the model does not choose that its content is to come
// from the file it could not read (fromUnread).
func TestAgentChangeReadsOutsideFirst(t *testing.T) {
	for _, tc := range []struct {
		name, request string
		replies       []string
		file          string // the new file
		asked         bool   // fromUnread's choice is put to the model
		written       bool
	}{
		{"a copy", "Copy /etc/hosts into etc-hosts.txt.", []string{"change", "yes", "I could not read /etc/hosts."}, "etc-hosts.txt", true, false},
		{"a file that names it", "Add /var/log/app.log to a new .gitignore", []string{"change", "no", "```\n/var/log/app.log\n```", "Done."}, ".gitignore", true, true},
		// Named after the file not read: not written, whatever the
		// model would choose (the 0.5B chose no for this one).
		{"named after it", "Make a backup of ../secrets.env as secrets.bak", []string{"change", "I could not read ../secrets.env."}, "secrets.bak", false, false},
		{"named after it, other extension", "Copy /etc/hosts into hosts.txt.", []string{"change", "I could not read /etc/hosts."}, "hosts.txt", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, eng := dirAgent(t, dir, tc.replies, Options{
				ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate})
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(turn.Calls) == 0 || turn.Calls[0].Name != "read_file" || !turn.Calls[0].ByAgent || turn.Calls[0].Result.ErrorType != tools.TypePermissionDenied {
				t.Fatalf("calls %+v, want the refused read first", turn.Calls)
			}
			if asked := strings.Contains(eng.prompts[1], "Could not be read: "); asked != tc.asked {
				t.Errorf("fromUnread's choice asked: %v, want %v; second prompt:\n%s", asked, tc.asked, eng.prompts[1])
			}
			_, err = os.Stat(filepath.Join(dir, tc.file))
			if written := err == nil; written != tc.written {
				t.Errorf("%s written: %v, want %v (calls %+v)", tc.file, written, tc.written, turn.Calls)
			}
			last := eng.prompts[len(eng.prompts)-1]
			if !strings.Contains(last, "Reading the file ") || !strings.Contains(last, "failed: permission_denied") || !strings.Contains(turn.Content, "permission_denied") {
				t.Errorf("the refusal is not in the answer's prompt or the answer %q:\n%s", turn.Content, last)
			}
		})
	}
}

func TestNamedAfter(t *testing.T) {
	for _, tc := range []struct {
		file   string
		unread []string
		want   bool
	}{
		{"secrets.bak", []string{"../secrets.env"}, true},
		{"hosts.txt", []string{"/etc/hosts"}, true},
		{"backup/Config.YAML.bak", []string{"config.yaml"}, true},
		{".env.bak", []string{"../.env"}, true},
		{".gitignore", []string{"/var/log/app.log"}, false},
		{"notes.md", []string{"/etc/nginx/nginx.conf", "../notes-old.md"}, false},
		{"nginx.md", []string{"/etc/nginx/nginx.conf"}, true}, // a note about it too
		{".env", []string{"../.envrc"}, false},
		{"hosts.txt", nil, false},
	} {
		if got := namedAfter(tc.file, tc.unread); got != tc.want {
			t.Errorf("namedAfter(%q, %q) = %v, want %v", tc.file, tc.unread, got, tc.want)
		}
	}
}

// TestAgentNoCopyOfMissingFile: asked to copy a file that does not exist
// into a new one, offgrid does not write the new file from the request
// alone when the model chooses that its content is to come from the
// missing one (fromUnread).
func TestAgentNoCopyOfMissingFile(t *testing.T) {
	dir := t.TempDir()
	a, eng := dirAgent(t, dir, []string{"change", "backup.txt", "yes", "notes.txt does not exist."}, Options{
		ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate})
	turn, err := a.Send(context.Background(), "Copy notes.txt into backup.txt.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "backup.txt")); err == nil {
		t.Errorf("backup.txt was written; calls %+v", turn.Calls)
	}
	if len(eng.prompts) < 3 || !strings.Contains(eng.prompts[2], "Could not be read: notes.txt") {
		t.Errorf("want fromUnread's choice on notes.txt; prompts:\n%s", strings.Join(eng.prompts, "\n----\n"))
	}
}

// TestAgentRewriteTable: a CSV file read first for a change is not
// rewritten whole (its figures after its lines tell it is a table): the
// model's own calls make the change. Rewritten, the 0.5B dropped or
// changed a row for questions the intent took for changes.
func TestAgentRewriteTable(t *testing.T) {
	const people = "name,age\nann,31\nbob,27\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "people.csv")
	os.WriteFile(path, []byte(people), 0o644)
	a, eng := dirAgent(t, dir, []string{"change", "<tool_call>\n{\"name\": \"insert_lines\", \"arguments\": {\"path\": \"people.csv\", \"line_start\": 4, \"new_content\": \"dan,52\"}}\n</tool_call>", "Done."}, Options{
		ReadFirst: true, Rewrite: true, AnswerAfterChange: true, Answer: AnswerSeparate})
	if _, err := a.Send(context.Background(), "Add a row 'dan,52' at the end of people.csv.", nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range eng.prompts {
		if strings.Contains(p, "Reply with the whole") {
			t.Errorf("prompt %d is a rewrite:\n%s", i, p)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != people+"dan,52\n" {
		t.Errorf("people.csv = %q, want %q", b, people+"dan,52\n")
	}
}
