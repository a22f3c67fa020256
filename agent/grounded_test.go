package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestFailureNote(t *testing.T) {
	read := func(path string, res tools.Result, byAgent bool) ToolRecord {
		args, _ := json.Marshal(map[string]string{"path": path})
		return ToolRecord{Name: "read_file", Arguments: args, Result: res, ByAgent: byAgent}
	}
	outside := tools.Fail(tools.TypePermissionDenied, `path is outside the working directory: "/etc/passwd" is absolute.`)
	missing := tools.Fail(tools.TypeNotFound, "prod.yaml does not exist")
	ok := tools.OK("1: x")
	ls := ToolRecord{Name: "ls", Arguments: json.RawMessage(`{}`), Result: tools.OK("a.txt")}
	denied := ToolRecord{Name: "write_file", Arguments: json.RawMessage(`{"path":"s.txt","content":"42"}`), Denied: true,
		Result: tools.Fail(tools.TypePermissionDenied, "the user denied permission")}
	for _, tc := range []struct {
		name      string
		calls     []ToolRecord
		want      string
		notChange bool // the request did not ask for a change
	}{
		{"none", nil, "", false},
		{"all succeeded", []ToolRecord{read("a.txt", ok, true), ls}, "", false},
		{"the named file outside the root", []ToolRecord{read("/etc/passwd", outside, true), ls},
			"`read_file /etc/passwd` failed (permission_denied): path is outside the working directory: \"/etc/passwd\" is absolute\n\n", false},
		{"the named file read by the model after all", []ToolRecord{read("prod.yaml", missing, true), read("prod.yaml", ok, false)}, "", false},
		{"the named file made by the model", []ToolRecord{read("prod.yaml", missing, true),
			{Name: "write_file", Arguments: json.RawMessage(`{"path":"prod.yaml","content":"x"}`), Result: ok}}, "", false},
		{"the model's own failure, then a success", []ToolRecord{read("b.txt", missing, false), ls}, "", false},
		{"nothing succeeded", []ToolRecord{read("b.txt", missing, false), read("b.txt", missing, false)},
			"`read_file b.txt` failed (not_found): prod.yaml does not exist\n\n", false},
		{"denied", []ToolRecord{denied}, "`write_file s.txt` was not run: permission was denied.\n\n", false},
		{"denied after a read", []ToolRecord{read("s.txt", ok, true), denied}, "`write_file s.txt` was not run: permission was denied.\n\n", false},
		{"denied after a read, no change asked", []ToolRecord{read("s.txt", ok, true), denied}, "", true},
		{"denied, then made", []ToolRecord{denied, {Name: "write_file", Arguments: json.RawMessage(`{"path":"s.txt","content":"4"}`), Result: ok}}, "", false},
		{"the named file missing, another made", []ToolRecord{read("2024-06-17.md", missing, true),
			{Name: "write_file", Arguments: json.RawMessage(`{"path":"notes/2024-06-17.md","content":"x"}`), Result: ok}}, "", false},
		{"the named file missing, nothing made", []ToolRecord{read("2024-06-17.md", missing, true), ls},
			"`read_file 2024-06-17.md` failed (not_found): prod.yaml does not exist\n\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			made := slices.ContainsFunc(tc.calls, func(r ToolRecord) bool { return r.Name == "write_file" && r.OK() })
			if got := failureNote(tc.calls, !tc.notChange, made); got != tc.want {
				t.Errorf("failureNote = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGrounded(t *testing.T) {
	for _, tc := range []struct {
		note, text, want string
		denied           bool
	}{
		{"", " It says hi. ", "It says hi.", false},
		{"`read_file x` failed (not_found): x does not exist\n\n", "Check the name.", "`read_file x` failed (not_found): x does not exist\n\nCheck the name.", false},
		{"`read_file x` failed (not_found): x does not exist\n\n", "It holds:\n```\nroot:x:0:0\n```", "`read_file x` failed (not_found): x does not exist", false},
		{"`read_file x` failed (not_found): x does not exist\n\n", "", "`read_file x` failed (not_found): x does not exist", false},
		// Lines that repeat offgrid's own instructions are dropped.
		{"Created .gitignore (18 bytes)\n\n", "The tools have already done what the user asked: reply with what they found or did, not with instructions.", "Created .gitignore (18 bytes)", false},
		{"", "Done.\nThe tools have already done what the user asked: reply with what they found or did, not with instructions. A tool the user denied did not run, so that was not done.", "Done.", false},
		{"", "Say what failed and why, and never make up what it would have returned.", "", false},
		// And sentences made of an instruction's words.
		{"Replaced line 3 of config.json.\n\n", "The port is now 9090. The user denied did not run.", "Replaced line 3 of config.json.\n\nThe port is now 9090.", false},
		{"", "The user denied permission for rm, so it did not run.", "The user denied permission for rm, so it did not run.", true},
		{"Replaced line 1 of README.md.\n\n", "The user denied running the tools because they found no instructions.", "Replaced line 1 of README.md.", false},
		{"", "Done.\n\nThe user denied did not run.\nIt holds 3 lines.", "Done.\n\nIt holds 3 lines.", false},
		{"", "The tools found two files: a.txt and b.txt.", "The tools found two files: a.txt and b.txt.", false},
		// So are lines that repeat the request, in any language.
		{"", "Mit welchem Mehrwertsteuersatz rechnet unsere Pipeline gerade?", "", false},
		{"", "mit welchem mehrwertsteuersatz rechnet unsere pipeline gerade", "", false},
		{"", "Welchem Mehrwertsteuersatz rechnet unsere Pipeline:\nDer Satz ist 0,19.", "Der Satz ist 0,19.", false},
		{"", "Pipeline.", "Pipeline.", false}, // a word of it is not a repeat
	} {
		if got := grounded(tc.note, tc.text, "Mit welchem Mehrwertsteuersatz rechnet unsere Pipeline gerade?", tc.denied); got != tc.want {
			t.Errorf("grounded(%q, %q) = %q, want %q", tc.note, tc.text, got, tc.want)
		}
	}
}

// TestAgentGroundedAnswer: a request for a file outside the working
// directory is read for the model and refused; the answer begins with
// offgrid's account of the refusal, and the block of made-up content the
// model goes on with is not shown, neither in the answer nor streamed.
func TestAgentGroundedAnswer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	invented := "Here it is:\n```\nroot:x:0:0:root:/root:/bin/bash\n```"
	eng := &fakeEngine{t: t, replies: []string{"read", invented}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
		ReadFirst: true, ReadAnswer: true, Answer: AnswerSeparate,
		Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }})
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	turn, err := a.Send(context.Background(), "Muestra el contenido de /etc/passwd", func(e Event) {
		if e.Type == EventToken {
			streamed.WriteString(e.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	const want = "`read_file /etc/passwd` failed (permission_denied): path is outside the working directory"
	if !strings.HasPrefix(turn.Content, want) || strings.Contains(turn.Content, "root:x") {
		t.Errorf("answer %q, want it to begin %q and hold nothing made up", turn.Content, want)
	}
	if strings.Contains(streamed.String(), "root:x") {
		t.Errorf("streamed %q", streamed.String())
	}
	// The model was shown the refusal.
	if p := eng.prompts[1]; !strings.Contains(p, "Reading the file /etc/passwd failed: permission_denied") {
		t.Errorf("prompt:\n%s", p)
	}
}

// TestAgentChangeNote: the answer to a change begins with what the call
// that made it returned, and a block of instructions the model goes on
// with is not shown.
func TestAgentChangeNote(t *testing.T) {
	dir := t.TempDir()
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := hermes(call("write_file", `{"path":".gitignore","content":"bin/\ncoverage.out\n"}`))
	advice := "To ignore them, run:\n```sh\necho bin/ >> .gitignore\n```"
	eng := &fakeEngine{t: t, replies: []string{write, advice}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
		AnswerAfterChange: true, Answer: AnswerSeparate})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(context.Background(), "bin/ と coverage.out を無視する .gitignore を作って", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Created .gitignore (18 bytes)"; turn.Content != want {
		t.Errorf("answer %q, want %q", turn.Content, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != "bin/\ncoverage.out\n" {
		t.Errorf(".gitignore holds %q", b)
	}
}

// TestAgentResultsNote: when the model's answer is nothing but offgrid's
// own instructions, the answer is what the calls returned, not "".
func TestAgentResultsNote(t *testing.T) {
	dir := t.TempDir()
	var todo strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&todo, "// TODO(%d): handle this case\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "todo.go"), []byte(todo.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	grep := hermes(call("grep_search", `{"pattern":"TODO"}`))
	eng := &fakeEngine{t: t, replies: []string{grep, "", doneInstruction}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{Answer: AnswerSeparate})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(context.Background(), "Use grep_search to find the lines containing TODO. How many are shown?", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`grep_search TODO` returned:", "12 matches for \"TODO\"", "todo.go:1: // TODO(1): handle this case", "… (13 lines in all)"} {
		if !strings.Contains(turn.Content, want) {
			t.Errorf("answer %q lacks %q", turn.Content, want)
		}
	}
	if strings.Contains(turn.Content, "TODO(8)") || strings.Contains(turn.Content, "already done") {
		t.Errorf("answer %q", turn.Content)
	}
}

// TestAnswerUnchanged: the answer to a request for a change that no call
// made begins with offgrid's "No file was changed.", which the model does
// not continue; not when a change succeeded, a call failed, or the
// request asked for no change.
func TestAnswerUnchanged(t *testing.T) {
	a := builtinAgent(t)
	wrote := ToolRecord{Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"x"}`), Result: tools.OK("Created a.txt (1 bytes)")}
	read := ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`), Result: tools.OK("1: x")}
	missing := ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"b.txt"}`), Result: tools.Fail(tools.TypeNotFound, "b.txt does not exist")}
	for _, tc := range []struct {
		name       string
		turn       Turn
		note, want string // what the model continues; the answer to "I did it."
	}{
		{"a change, no call", Turn{change: true}, "", "No file was changed.\n\nI did it."},
		{"a change, only a read", Turn{change: true, Calls: []ToolRecord{read}}, "", "No file was changed.\n\nI did it."},
		{"a change made", Turn{change: true, Calls: []ToolRecord{read, wrote}}, "Created a.txt (1 bytes)\n\n", "Created a.txt (1 bytes)\n\nI did it."},
		{"a change, the read failed", Turn{change: true, Calls: []ToolRecord{missing}}, "`read_file b.txt` failed (not_found): b.txt does not exist\n\n",
			"`read_file b.txt` failed (not_found): b.txt does not exist\n\nI did it."},
		{"a question", Turn{Calls: []ToolRecord{read}}, "", "I did it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			note := a.answerNote(tc.turn)
			if note != tc.note {
				t.Errorf("answerNote = %q, want %q", note, tc.note)
			}
			if got := a.answerOf(tc.turn, note, "I did it."); got != tc.want {
				t.Errorf("answerOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAnswerUnfounded: a line of an answer that quotes words no tool
// returned is dropped, and an answer left empty is what the calls
// returned; quotations of what the request or a result holds, short
// ones, and ones in a script written without spaces stay.
func TestAnswerUnfounded(t *testing.T) {
	a := builtinAgent(t)
	noTasks := ToolRecord{Name: "list_tasks", Arguments: json.RawMessage(`{"status":"in_progress"}`), Result: tools.OK("No in_progress tasks (0 tasks in all).")}
	read := ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"todo.md"}`),
		Result: tools.OK("1: - [ ] Ask Mme Marchal if hanging planters are allowed on the railing\n2: - [ ] Order the strawberry plants")}
	const request = "Mme Marchal says the hanging planters are fine. Find the todo item about that and tell me what it says."
	for _, tc := range []struct {
		name, text, want string
		calls            []ToolRecord
	}{
		{"invented after an empty list", `The todo item about the hanging planters is "Check the planters for any signs of damage or failure."`,
			"`list_tasks` returned:\n```\nNo in_progress tasks (0 tasks in all).\n```", []ToolRecord{noTasks}},
		{"the line of a file read", `The item is "Ask Mme Marchal if hanging planters are allowed on the railing".`,
			`The item is "Ask Mme Marchal if hanging planters are allowed on the railing".`, []ToolRecord{read}},
		{"reworded, most words returned", "It says “ask Marchal whether the planters are allowed on the railing”.",
			"It says “ask Marchal whether the planters are allowed on the railing”.", []ToolRecord{read}},
		{"one line of two dropped", "The item is in todo.md.\nIt reads «Water the tomatoes every second evening please».",
			"The item is in todo.md.", []ToolRecord{read}},
		{"short quotations name things", "Set `retries` to \"5\" in `todo.md`.", "Set `retries` to \"5\" in `todo.md`.", []ToolRecord{read}},
		{"a translation", "待办事项是「询问马沙尔太太栏杆上能否挂花盆」。", "待办事项是「询问马沙尔太太栏杆上能否挂花盆」。", []ToolRecord{read}},
		{"no call, not checked", `A map's zero value is "nil, and writing to it panics at run time".`,
			`A map's zero value is "nil, and writing to it panics at run time".`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := Turn{request: request, Calls: tc.calls}
			if got := a.answerOf(turn, "", tc.text); got != tc.want {
				t.Errorf("answerOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAnswerUnknownFiles: a line of an answer that names a file nothing
// of the conversation holds is dropped; a file the tools or the request
// named, a word with an extension no file has, and an answer to a turn
// without calls are kept.
func TestAnswerUnknownFiles(t *testing.T) {
	a := builtinAgent(t)
	grep := ToolRecord{Name: "grep_search", Arguments: json.RawMessage(`{"pattern":"example"}`),
		Result: tools.OK("2 matches for \"example\" in **:\nREADME.md:17: Examples:\nREADME.md:31: See `config.example.json` for the config file format")}
	ls := ToolRecord{Name: "ls", Arguments: json.RawMessage(`{"path":".github/workflows"}`),
		Result: tools.OK("Directory: .github/workflows\nTYPE  SIZE   MODIFIED          NAME\nFILE  504 B  2026-11-29 21:40  ci.yml\n1 file, 0 dirs, total size 504 B\n")}
	const request = "Which GitHub Actions workflow files does this repo have?"
	for _, tc := range []struct {
		name, text, want string
		calls            []ToolRecord
	}{
		{"a name no tool returned", "This repo has a GitHub Actions workflow file named `actions.yml`.",
			"`grep_search example` returned:\n```\n2 matches for \"example\" in **:\nREADME.md:17: Examples:\nREADME.md:31: See `config.example.json` for the config file format\n```",
			[]ToolRecord{grep}},
		{"the name ls returned, by its path", "It has one: .github/workflows/ci.yml.", "It has one: .github/workflows/ci.yml.", []ToolRecord{grep, ls}},
		{"in any case", "Il y en a un : CI.yml, dans .github/workflows.", "Il y en a un : CI.yml, dans .github/workflows.\n\n.github/workflows/: ci.yml", []ToolRecord{ls}},
		{"one line of two dropped", "The config format is in config.example.json.\nThe workflow is deploy.yml.",
			"The config format is in config.example.json.", []ToolRecord{grep}},
		{"no file named", "The config format is described, e.g. in the README, at line 31.", "The config format is described, e.g. in the README, at line 31.", []ToolRecord{grep}},
		{"a host no tool returned", "Its format is documented at docs.example.com.", "`grep_search example` returned:\n```\n2 matches for \"example\" in **:\nREADME.md:17: Examples:\nREADME.md:31: See `config.example.json` for the config file format\n```", []ToolRecord{grep}},
		{"named by the request", "Yes, release.yml is missing: there is ci.yml.", "Yes, release.yml is missing: there is ci.yml.", []ToolRecord{ls}},
		{"an absolute path is no file of the project", "Run it as logsift --config /path/to/config.json.", "Run it as logsift --config /path/to/config.json.", []ToolRecord{grep}},
		{"a fenced example, not checked", "Run:\n```sh\nlogsift --config my-config.json\n```\nSee config.example.json.", "Run:\n```sh\nlogsift --config my-config.json\n```\nSee config.example.json.", []ToolRecord{grep}},
		{"checked after a fenced block", "```\nci.yml\n```\nAnd release.yml.", "```\nci.yml\n```", []ToolRecord{ls}},
		{"no call, not checked", "Add a .github/workflows/test.yml file.", "Add a .github/workflows/test.yml file.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request
			if tc.name == "named by the request" {
				req = "Is there a release.yml workflow?"
			}
			turn := Turn{request: req, Calls: tc.calls}
			if got := a.answerOf(turn, "", tc.text); got != tc.want {
				t.Errorf("answerOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAnswerUnheldContacts: a line of an answer that gives a phone
// number, an email address or a date nothing of the conversation holds
// is dropped, with or without calls; one a result or the request holds,
// in another format, and one in a fenced example stay.
func TestAnswerUnheldContacts(t *testing.T) {
	a := builtinAgent(t)
	read := ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"notes/fournisseurs.txt"}`),
		Result: tools.OK("3: Beurre : Laiterie Morel, tél. 04.74.55.12.90\n4: Farine : Moulin Giraud, commandes@moulin-giraud.fr")}
	const request = "Quel est le numéro du fournisseur de beurre ?"
	for _, tc := range []struct {
		name, request, text, want string
		calls                     []ToolRecord
	}{
		{"a number no tool returned", request, "Le fournisseur de beurre est la Laiterie Morel.\nSon numéro : 077 888 9999.",
			"Le fournisseur de beurre est la Laiterie Morel.", []ToolRecord{read}},
		{"the number read, in another format", request, "Laiterie Morel : +33 4 74 55 12 90.", "Laiterie Morel : +33 4 74 55 12 90.", []ToolRecord{read}},
		{"an address no tool returned", request, "Écrivez à beurre@laiterie-morel.fr.",
			"`read_file notes/fournisseurs.txt` returned:\n```\n3: Beurre : Laiterie Morel, tél. 04.74.55.12.90\n4: Farine : Moulin Giraud, commandes@moulin-giraud.fr\n```", []ToolRecord{read}},
		{"the address read, in another case", request, "Moulin Giraud: Commandes@Moulin-Giraud.fr", "Moulin Giraud: Commandes@Moulin-Giraud.fr", []ToolRecord{read}},
		{"no call", "What is the butter supplier's number?", "Call them at (555) 123-4567.\nThey open at 7.", "They open at 7.", nil},
		{"no call, nothing left", "What is the butter supplier's number?", "Call them at (555) 123-4567.", unheldNote, nil},
		{"given by the request", "Add Anna, 06 12 34 56 78, to the contacts.", "Anna's number is 0612345678.", "Anna's number is 0612345678.", nil},
		{"a date no tool returned", "우리 학원 무슨 요일에 쉬어요?", "우리 학원은 2023년 10월 15일에 쉬어요.\n일요일에 쉬어요.", "일요일에 쉬어요.", []ToolRecord{read}},
		{"a date read, in another format", "Depuis quand Yuki est cliente ?", "Depuis le 8 février 2026.", "Depuis le 8 février 2026.",
			[]ToolRecord{{Name: "read_file", Arguments: json.RawMessage(`{"path":"data/customers.csv"}`), Result: tools.OK("7: C-006,Yuki Tanaka,Berlin,2026-02-08")}}},
		{"a date whose year was added", "quando é o mutirão?", "O mutirão é dia 12/11/2024.", "O mutirão é dia 12/11/2024.",
			[]ToolRecord{{Name: "read_file", Arguments: json.RawMessage(`{"path":"atas/2024-10-08-reuniao.md"}`), Result: tools.OK("6: - Mutirão de revisão: sábado 12/11")}}},
		{"a fenced example, not checked", "How do I check an address in Go?", "```go\nmail.ParseAddress(\"anna@example.com\")\n```", "```go\nmail.ParseAddress(\"anna@example.com\")\n```", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := Turn{request: tc.request, Calls: tc.calls}
			if got := a.answerOf(turn, "", tc.text); got != tc.want {
				t.Errorf("answerOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAnswerRestated: a line of an answer that only says the request's
// words again, in any order, is dropped, and what the calls returned is
// shown when nothing is left; a line that adds a word stays, and so does
// an answer without calls.
func TestAnswerRestated(t *testing.T) {
	a := builtinAgent(t)
	read := ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"config/reglages.yaml"}`),
		Result: tools.OK("15: four:\n16:   temperature_baguette: 250")}
	const request = "dans les reglages, le four il est a combien pour la baguette ?"
	for _, tc := range []struct {
		name, text, want string
		calls            []ToolRecord
	}{
		{"the request again, shuffled", "Dans les reglages, le four a combien pour la baguette ? Il est a combien pour la baguette ?",
			"`read_file config/reglages.yaml` returned:\n```\n15: four:\n16:   temperature_baguette: 250\n```", []ToolRecord{read}},
		{"one line of two", "Le four est à 250 °C pour la baguette.\nIl est a combien pour la baguette ?", "Le four est à 250 °C pour la baguette.", []ToolRecord{read}},
		{"a word more", "Pour la baguette, le four est a 250.", "Pour la baguette, le four est a 250.", []ToolRecord{read}},
		{"too short to tell", "Pour la baguette.", "Pour la baguette.", []ToolRecord{read}},
		{"no call", "Le four il est a combien pour la baguette ?", "Le four il est a combien pour la baguette ?", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := Turn{request: request, Calls: tc.calls}
			if got := a.answerOf(turn, "", tc.text); got != tc.want {
				t.Errorf("answerOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAgentListingNote: an answer about a folder offgrid listed ends
// with the folder's names that it leaves out.
func TestAgentListingNote(t *testing.T) {
	for _, tc := range []struct {
		name, request string
		replies       []string
		want          string // the answer
	}{
		{"a name left out", "Il y a quoi dans le dossier scripts ?",
			[]string{"list", "Il y a clean.py."}, "Il y a clean.py.\n\nscripts/: clean.py, old/, report.sh"},
		{"every name given", "What's in the scripts folder?",
			[]string{"list", "clean.py, report.sh and the folder old."}, "clean.py, report.sh and the folder old."},
		{"a file read", "Que dit scripts/clean.py ?",
			[]string{"read", "Il nettoie."}, "Il nettoie."},
		{"a change not made", "Supprime le dossier scripts",
			[]string{"change", hermes(call("ls", `{"path":"scripts"}`)), "Voilà."}, "No file was changed.\n\nVoilà.\n\nscripts/: clean.py, old/, report.sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "scripts", "old"), 0o755)
			os.WriteFile(filepath.Join(dir, "scripts", "clean.py"), []byte("print('clean')\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "scripts", "report.sh"), []byte("echo report\n"), 0o644)
			a, eng := dirAgent(t, dir, tc.replies, Options{ReadFirst: true, ReadAnswer: true, Answer: AnswerSeparate})
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if turn.Content != tc.want {
				t.Fatalf("answer %q, want %q", turn.Content, tc.want)
			}
			// The model answers before the names are added.
			if answer := eng.prompts[len(eng.prompts)-1]; strings.Contains(answer, "scripts/: ") {
				t.Errorf("the answer's prompt holds the names:\n%s", answer)
			}
		})
	}
}

func TestListingNote(t *testing.T) {
	ls := func(data string) ToolRecord { return ToolRecord{Name: listTool, Result: tools.OK(data)} }
	scripts := ls("Directory: scripts\nTYPE  SIZE    MODIFIED          NAME\nFILE  1.4 KB  2026-11-27 23:19  clean.py\nDIR   -       2026-11-27 23:19  old/\n1 file, 1 dir, total size 1.4 KB\n")
	var many strings.Builder
	many.WriteString("Directory: .\nTYPE  SIZE  MODIFIED          NAME\n")
	for i := range maxNoteNames + 2 {
		fmt.Fprintf(&many, "FILE  1 B   2026-11-27 23:19  f%02d.txt\n", i)
	}
	read := ToolRecord{Name: readFileTool, Result: tools.OK("1: x\n")}
	for _, tc := range []struct {
		name, answer string
		calls        []ToolRecord
		want         string
	}{
		{"one folder", "", []ToolRecord{scripts}, "scripts/: clean.py, old/"},
		{"a name left out", "clean.py", []ToolRecord{scripts}, "scripts/: clean.py, old/"},
		{"every name given", "clean.py and old", []ToolRecord{scripts}, ""},
		{"listed twice", "", []ToolRecord{scripts, scripts}, "scripts/: clean.py, old/"},
		{"a file read", "", []ToolRecord{scripts, read}, ""},
		{"empty folder", "", []ToolRecord{ls("Directory: empty\n(empty directory)\n0 files, 0 dirs, total size 0 B\n")}, ""},
		{"a file listed", "", []ToolRecord{ls("File: a.txt\nTYPE  SIZE  MODIFIED          NAME\nFILE  1 B   2026-11-27 23:19  a.txt\n")}, ""},
		{"failed", "", []ToolRecord{{Name: listTool, Result: tools.Fail(tools.TypeNotFound, "nope does not exist")}}, ""},
		{"many names", "", []ToolRecord{ls(many.String())}, "./: f00.txt, f01.txt, "},
	} {
		got := listingNote(tc.calls, tc.answer)
		if tc.name == "many names" {
			if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, fmt.Sprintf("f%02d.txt, … (+2)", maxNoteNames-1)) {
				t.Errorf("%s: %q", tc.name, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWithoutMoot(t *testing.T) {
	first := ToolRecord{Name: readFileTool, Arguments: json.RawMessage(`{"path":"docs/runbook.md"}`), ByAgent: true,
		Result: tools.Fail(tools.TypeNotFound, "docs/runbook.md does not exist; docs holds decisions.md, deployment.md")}
	mine := first
	mine.ByAgent = false
	copied := "Reading the file docs/runbook.md failed: not_found: docs/runbook.md does not exist; docs holds decisions.md"
	for _, tc := range []struct {
		name, text string
		calls      []ToolRecord
		made       bool
		want       string
	}{
		{"copied after the file was made", "The runbook says how to restart.\n" + copied, []ToolRecord{first}, true, "The runbook says how to restart."},
		{"cut short", "Writing the file failed: docs/runbook.md does not exist", []ToolRecord{first}, true, ""},
		{"nothing made", copied, []ToolRecord{first}, false, copied},
		{"the model's own read", copied, []ToolRecord{mine}, true, copied},
		{"no failure", "Done.", nil, true, "Done."},
	} {
		if got := withoutMoot(tc.text, tc.calls, tc.made); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWithoutReplaced: after a change, a line the change took out of a
// file read before it is dropped from the answer, and so is a run of the
// file's numbered lines that numbers any line as it was before, with its
// heading; a line the file still holds elsewhere, or the change put back,
// is kept, and so are numbered lines the change did not move.
func TestWithoutReplaced(t *testing.T) {
	data := "1: # Changes\n2: \n3: - Order at least 50 zl.\n4: - Fixed.\n5: - Fixed."
	read := ToolRecord{Name: readFileTool, Arguments: json.RawMessage(`{"path":"CHANGELOG.md"}`), Result: tools.Result{Success: true, Data: &data}}
	edit := func(name, args string) ToolRecord {
		return ToolRecord{Name: name, Arguments: json.RawMessage(args), Result: tools.Result{Success: true}}
	}
	shown := "The file CHANGELOG.md holds:\n1: # Changes\n3: - Order at least 50 zl.\n```\n- Order at least 50 zl.\n- Fixed.\n```"
	top := "Done.\n\nThe file CHANGELOG.md holds:\n1: # Changes\n2: \n3: - Order at least 50 zl.\nThat is all."
	for _, tc := range []struct {
		name  string
		text  string
		calls []ToolRecord
		want  string
	}{
		{"replaced", shown, []ToolRecord{read, edit("replace_lines", `{"path":"./CHANGELOG.md","line_start":3,"line_end":3,"new_content":"- Order at least 60 zl."}`)},
			"```\n- Fixed.\n```"},
		{"a line held twice", shown, []ToolRecord{read, edit("replace_lines", `{"path":"CHANGELOG.md","line_start":4,"line_end":4,"new_content":"- Fixed it."}`)}, shown},
		{"put back at another number", shown, []ToolRecord{read, edit("replace_lines", `{"path":"CHANGELOG.md","line_start":2,"line_end":3,"new_content":"- Order at least 50 zl.\n- New."}`)},
			"```\n- Order at least 50 zl.\n- Fixed.\n```"},
		{"put back at its number", shown, []ToolRecord{read, edit("replace_lines", `{"path":"CHANGELOG.md","line_start":2,"line_end":3,"new_content":"\n- Order at least 50 zl."}`)}, shown},
		{"written whole", shown, []ToolRecord{read, edit("write_file", `{"path":"CHANGELOG.md","content":"# Changes\n- Fixed.\n"}`)},
			"```\n- Fixed.\n```"},
		{"lines inserted before", top, []ToolRecord{read, edit("insert_lines", `{"path":"CHANGELOG.md","line_start":2,"new_content":"- New."}`)},
			"Done.\n\nThat is all."},
		{"lines inserted after", top, []ToolRecord{read, edit("insert_lines", `{"path":"CHANGELOG.md","line_start":4,"new_content":"- New."}`)}, top},
		{"another file", shown, []ToolRecord{read, edit("replace_lines", `{"path":"notes.md","line_start":3,"line_end":3,"new_content":"x"}`)}, shown},
		{"changed before it was read", shown, []ToolRecord{edit("replace_lines", `{"path":"CHANGELOG.md","line_start":3,"line_end":3,"new_content":"x"}`), read}, shown},
	} {
		if got := withoutReplaced(tc.text, tc.calls); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestAgentAnswerAfterReplaced: the answer to a change does not show the
// line the change took out as if the file still held it.
func TestAgentAnswerAfterReplaced(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte("# Changes\n- Order at least 50 zl.\n"), 0o644)
	replies := []string{"change", "```\n1: # Changes\n2: - Order at least 60 zl.\n```", "The file CHANGELOG.md holds:\n1: # Changes\n2: - Order at least 50 zl."}
	a, _ := dirAgent(t, dir, replies, Options{ReadFirst: true, Rewrite: true, ReadAnswer: true, AnswerAfterChange: true, Answer: AnswerSeparate})
	turn, err := a.Send(context.Background(), "In CHANGELOG.md, raise the minimum order to 60 zl.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(turn.Content, "50 zl") || !strings.Contains(turn.Content, "60 zl") {
		t.Fatalf("answer %q, want the change to 60 zl and not the line of 50 zl", turn.Content)
	}
}

// TestAgentUnchangedAnswerPrompt: when the model writes the file it was
// asked to change back as it was, the answer's prompt says that no file
// was changed, not that the tools did what the user asked.
func TestAgentUnchangedAnswerPrompt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "version.py"), []byte("__version__ = \"2.3.1\"\n"), 0o644)
	replies := []string{"change", "```\n1: __version__ = \"2.3.1\"\n```", "It is 2.3.1."}
	a, eng := dirAgent(t, dir, replies, Options{ReadFirst: true, Rewrite: true, ReadAnswer: true, Answer: AnswerSeparate})
	turn, err := a.Send(context.Background(), "Sube la versión de parche en version.py", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "No file was changed.\n\nIt is 2.3.1."; turn.Content != want {
		t.Fatalf("answer %q, want %q", turn.Content, want)
	}
	answer := eng.prompts[len(eng.prompts)-1]
	if !strings.Contains(answer, unchangedInstruction) || strings.Contains(answer, doneInstruction) {
		t.Errorf("the answer's prompt:\n%s", answer)
	}
}

// TestMisquotes: an answer that shows a line of the file read, numbered
// as read_file numbers it, but not as the file holds it.
func TestMisquotes(t *testing.T) {
	read := func(path, data string) ToolRecord {
		return ToolRecord{Name: readFileTool, Arguments: json.RawMessage(`{"path":"` + path + `"}`), Result: tools.OK(data)}
	}
	v := read("app/__init__.py", "1: \"\"\"Stockroom.\"\"\"\n2: \n3: __version__ = \"2.3.1\"\n4: def create_app():\n5:     return None\n")
	cfg := read("config/negozio.yaml", "1: negozio: Forno Bellavista\n2: iva: 10\n3: chiusura: \"19:00\"\n4: max_ordini_giorno: 40  # al giorno\n")
	for _, tc := range []struct {
		name  string
		text  string
		calls []ToolRecord
		want  bool
	}{
		{"as read", "The file holds:\n1: \"\"\"Stockroom.\"\"\"\n2:\n3: __version__ = \"2.3.1\"", []ToolRecord{v}, false},
		{"a line changed", "No change needed:\n3: __version__ = \"2.3.2\"\n4: def create_app():", []ToolRecord{v}, true},
		{"indented otherwise", "  5: return None", []ToolRecord{v}, false},
		{"a number the file does not have", "9: something else", []ToolRecord{v}, false},
		{"no numbered line", "The version is 2.3.1.", []ToolRecord{v}, false},
		{"two files read", "3: __version__ = \"2.3.2\"", []ToolRecord{v, read("b.txt", "1: b\n")}, false},
		{"the same file twice", "3: __version__ = \"2.3.2\"", []ToolRecord{v, v}, true},
		{"nothing read", "3: x", nil, false},
		{"a time of day", "The meeting is at:\n3:30 pm", []ToolRecord{v}, false},
		{"a setting shown with another value", "The file config/negozio.yaml:\nnegozio: Forno Bellavista\niva: 5", []ToolRecord{cfg}, true},
		{"a setting as a list item, in bold", "- **IVA**: 5 %", []ToolRecord{cfg}, true},
		{"a setting numbered", "2: iva: 5", []ToolRecord{read("c.yaml", "1: iva: 10\n")}, true},
		{"a setting as held", "Nella configurazione:\n- `iva: 10`\n- chiusura: 19:00", []ToolRecord{cfg}, false},
		{"a value with its unit", "iva: 10 %", []ToolRecord{cfg}, false},
		{"a value held with a comment", "max_ordini_giorno = 40", []ToolRecord{cfg}, false},
		{"one of a key's values", "name: b", []ToolRecord{read("c.yaml", "1: - name: a\n2: - name: b\n")}, false},
		{"a key the file does not set", "tva: 5", []ToolRecord{cfg}, false},
		{"prose with a colon", "Note: the VAT is set in the config.", []ToolRecord{cfg}, false},
		{"5 is not 15", "iva = 5", []ToolRecord{read("c.ini", "1: iva = 15\n")}, true},
	} {
		if got := misquotes(tc.text, tc.calls); got != tc.want {
			t.Errorf("%s: misquotes = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The answer is then what the calls returned, the file as it is.
	a := builtinAgent(t)
	got := a.answerOf(Turn{change: true, Calls: []ToolRecord{v}}, "", "Here it is:\n3: __version__ = \"2.3.2\"")
	if !strings.HasPrefix(got, "No file was changed.\n\n`read_file app/__init__.py` returned:") || strings.Contains(got, "2.3.2") {
		t.Errorf("answerOf = %q", got)
	}
}

// builtinAgent returns an Agent with the built-in tools of a temporary
// directory and nothing else: enough for what answerOf does with a
// turn's calls.
func builtinAgent(t *testing.T) *Agent {
	t.Helper()
	reg, err := tools.Builtin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Agent{reg: reg}
}
