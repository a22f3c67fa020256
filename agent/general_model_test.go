//go:build cgo

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/internal/calendar"
	"github.com/offgrid-ai/offgrid/tools"
)

// generalAgent is catalogAgent driven by the default model's profile, as
// offgrid run drives it: the model's own choice of what a request needs
// decides the tools offered, the rewrite and the answer from the files
// read; the assists see the directory's files.
func generalAgent(t *testing.T) (*Agent, string) {
	t.Helper()
	p, err := LookupProfile("qwen2.5-coder-0.5b")
	if err != nil {
		t.Fatal(err)
	}
	var dir string
	a, dir := catalogAgent(t, func(o *Options) {
		if *o, err = p.Apply(*o); err != nil {
			t.Fatal(err)
		}
		// dir is known once catalogAgent returns: looked up at each call.
		o.Files = func(ctx context.Context, max int) ([]string, bool, error) { return tools.Files(ctx, dir, max) }
	})
	return a, dir
}

// TestDefaultModelSearchesFirst: a question about the notes that names
// no file, in French, is searched for before the first reply, and the
// answer holds what the notes say; the 0.5B answered such questions from
// nothing, or read a file it guessed.
func TestDefaultModelSearchesFirst(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.MkdirAll(filepath.Join(dir, "projects", "summer-party"), 0o755)
	os.WriteFile(filepath.Join(dir, "projects", "summer-party", "plan.md"), []byte(
		"# Summer party\n\n## Who does what\n- Drinks: Lena\n- Grill: Malik\n- Music: Jonas\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Our notes\n\nMeetings, plans and recipes of the house.\n"), 0o644)
	// Asked bare ("Qui s'occupe du grill pour la fête ?"), the 0.5B
	// chooses that the request needs no files, and nothing is searched:
	// the intent gate still fails closed there (see #31's note).
	turn, err := a.Send(t.Context(), "Dans nos notes, qui s'occupe du grill pour la fête ?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !offgridSearched(turn, "") || !strings.Contains(turn.Content, "Malik") {
		t.Fatalf("answer %q; calls:\n%s\nwant a search of offgrid's and Malik named", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelSearchesInFilesLanguage: a question about notes
// written in Portuguese, in a folder the model names Portuguese
// (FilesLanguage), is searched for with the request's own words too,
// and the note that holds them is read; searched for the model's words
// alone ("reservate salao ensaios"), the README was read.
func TestDefaultModelSearchesInFilesLanguage(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.FilesLanguage = true
	os.MkdirAll(filepath.Join(dir, "atas"), 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Coral da Vila\n\nNotas do coral: ensaios, repertório e apresentações.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "atas", "2025-03-02-ensaio.md"), []byte(
		"# Ensaio de 02/03/2025\n\nPresentes: Helena, Otávio, Lúcia\n\n- O ensaio geral fica no sábado às 15h.\n- A Lúcia é a responsável por reservar o salão paroquial para os ensaios.\n- Otávio leva o teclado para a apresentação de abril.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "repertorio.txt"), []byte("Asa Branca\nAquarela do Brasil\nO Trenzinho do Caipira\n"), 0o644)
	turn, err := a.Send(t.Context(), "quem é a responsável por reservar o salão dos ensaios?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !offgridSearched(turn, "responsável") || !offgridRead(turn, "atas/2025-03-02-ensaio.md") || !strings.Contains(turn.Content, "Lúcia") {
		t.Fatalf("answer %q; calls:\n%s\nwant a search for the request's words, the note read and Lúcia named", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelSearchesFolderNamed: a question about a value in a
// folder that names no file is searched for in that folder, and the
// answer holds the value the file sets; given only the folder's listing,
// the 0.5B answered "The port set in the config folder is 80".
func TestDefaultModelSearchesFolderNamed(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "server.yaml"), []byte(
		"# Service settings\nserver:\n  host: 0.0.0.0\n  port: 7310\n  workers: 4\n\nlogging:\n  level: warn\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Ledger\n\nA small bookkeeping service. Settings live in config/.\n"), 0o644)
	turn, err := a.Send(t.Context(), "What port is set in the config folder?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !offgridSearched(turn, `"config/**"`) || !strings.Contains(turn.Content, "7310") {
		t.Fatalf("answer %q; calls:\n%s\nwant a search of config/ and 7310", turn.Content, callsOf(turn))
	}
}

// offgridSearched reports whether offgrid's own grep_search ran in the
// turn and succeeded, with arguments holding args ("" for any).
func offgridSearched(turn Turn, args string) bool {
	for _, r := range turn.Calls {
		if r.ByAgent && r.Name == "grep_search" && r.OK() && strings.Contains(string(r.Arguments), args) {
			return true
		}
	}
	return false
}

// offgridRead reports whether offgrid's own read_file of path ran in
// the turn and succeeded.
func offgridRead(turn Turn, path string) bool {
	for _, r := range turn.Calls {
		if r.ByAgent && r.Name == "read_file" && r.OK() && r.argPath() == path {
			return true
		}
	}
	return false
}

// callsOf describes a turn's calls for failure messages.
func callsOf(turn Turn) string {
	var s []string
	for _, r := range turn.Calls {
		s = append(s, fmt.Sprintf("%s %s: %s", r.Name, r.Arguments, r.Summary()))
	}
	return strings.Join(s, "\n")
}

// TestDefaultModelListsInFrench: a request in French to list a folder,
// with none of the English words the tools were once offered for, calls
// a listing tool and names the folder's files.
func TestDefaultModelListsInFrench(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "installation.md"), []byte("# Installation\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "docs", "faq.md"), []byte("# FAQ\n"), 0o644)
	turn, err := a.Send(t.Context(), "Quels fichiers y a-t-il dans le dossier docs ?", nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, r := range turn.Calls {
		listed = listed || r.OK() && (r.Name == "ls" || r.Name == "grep_search") && strings.Contains(string(r.Arguments), "docs")
	}
	if !listed || !strings.Contains(turn.Content, "installation.md") || !strings.Contains(turn.Content, "faq.md") {
		t.Fatalf("answer %q; calls:\n%s\nwant a listing of docs and both its files named", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelListsFilesBelowFolders: asked in Chinese for every test
// file of a project, the default model names the test files that lie
// below its folders. Shown only the top folder's listing (cmd/,
// internal/, docs/), the 0.5B named a tests/test_requirements.txt that
// does not exist.
func TestDefaultModelListsFilesBelowFolders(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	for _, p := range []string{"go.mod", "cmd/app/main.go", "internal/store/store.go", "internal/store/store_test.go", "internal/web/web_test.go", "docs/design.md"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("package x\n"), 0o644)
	}
	turn, err := a.Send(t.Context(), "列出这个项目里所有的测试文件。", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(turn.Content, "store_test.go") || !strings.Contains(turn.Content, "web_test.go") {
		t.Fatalf("answer %q; calls:\n%s\nwant both test files named", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelDeniedReadIsGrounded: asked for a file outside the
// working directory, the default model's answer names the refusal and
// shows none of the file's lines; before offgrid wrote the answer's start
// from the refusal, it answered "The contents of /etc/passwd are:" and
// invented lines.
func TestDefaultModelDeniedReadIsGrounded(t *testing.T) {
	t.Parallel() // see loadDefault
	passwd := regexp.MustCompile(`(?m)^\s*\w+:x:\d+:`)
	for _, request := range []string{"Show me the contents of /etc/passwd", "¿Qué hay en ../secret.env?"} {
		t.Run(request, func(t *testing.T) {
			a, _ := generalAgent(t)
			turn, err := a.Send(t.Context(), request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(turn.Content, "permission_denied") || !strings.Contains(turn.Content, "outside the working directory") {
				t.Errorf("answer %q does not name the refusal; calls:\n%s", turn.Content, callsOf(turn))
			}
			if passwd.MatchString(turn.Content) || strings.Contains(turn.Content, "```") || strings.Contains(turn.Content, "=") {
				t.Errorf("answer %q shows content no tool returned", turn.Content)
			}
		})
	}
}

// TestDefaultModelNoCopyOfUnreadFile: asked to copy a file outside the
// working directory into a new one, the default model writes no new
// file, and the answer names the refusal; before fromUnread, offgrid had
// it write hosts.txt from the request alone ("/etc/hosts").
func TestDefaultModelNoCopyOfUnreadFile(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	turn, err := a.Send(t.Context(), "Copy /etc/hosts into hosts.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hosts.txt")); err == nil {
		b, _ := os.ReadFile(filepath.Join(dir, "hosts.txt"))
		t.Errorf("hosts.txt was written (%q); calls:\n%s", b, callsOf(turn))
	}
	if !strings.Contains(turn.Content, "permission_denied") {
		t.Errorf("answer %q does not name the refusal; calls:\n%s", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelMissingFileIsGrounded: asked what a missing file says,
// the answer names the missing file and holds none of the YAML the model
// made up before.
func TestDefaultModelMissingFileIsGrounded(t *testing.T) {
	t.Parallel() // see loadDefault
	a, _ := generalAgent(t)
	turn, err := a.Send(t.Context(), "What does config/prod.yaml say?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(turn.Content, "not_found") || !strings.Contains(turn.Content, "config/prod.yaml") {
		t.Errorf("answer %q does not name the missing file; calls:\n%s", turn.Content, callsOf(turn))
	}
	if regexp.MustCompile(`(?m)^\s*[a-z_]+:\s+\S`).MatchString(turn.Content) || strings.Contains(turn.Content, "```") {
		t.Errorf("answer %q shows content no tool returned", turn.Content)
	}
}

// TestDefaultModelConfigEdit: an edit asked for without the word
// "change" ("Disable …") is made exactly: one line, the others intact.
func TestDefaultModelConfigEdit(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	const config = "server:\n  port: 8080\n  debug: true\n  workers: 4\n"
	path := filepath.Join(dir, "config.yaml")
	os.WriteFile(path, []byte(config), 0o644)
	turn, err := a.Send(t.Context(), "Disable debug in config.yaml.", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(config, "debug: true", "debug: false", 1); string(b) != want {
		t.Fatalf("config.yaml holds %q, want %q; calls:\n%s", b, want, callsOf(turn))
	}
}

// TestDefaultModelDeniedEditIsReported: a change the user's policy
// denies is reported as denied, the file is left as it was, and the
// answer does not claim the change; once offgrid's own search and read
// had succeeded, the denial was left out and the answer said only that
// no file was changed.
func TestDefaultModelDeniedEditIsReported(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	pol, err := permission.New(permission.Config{MaxRisk: tools.Medium})
	if err != nil {
		t.Fatal(err)
	}
	a.policy = pol
	const settings = "# Settings of the weather station\nstation: roof\npoll_interval_seconds: 60\nlog_level: info\n"
	writeFiles(t, dir, map[string]string{"config/settings.yaml": settings, "README.md": "# Weather station\n\nReads the sensors on the roof.\n"})
	path := filepath.Join(dir, "config", "settings.yaml")
	turn, err := a.Send(t.Context(), "En config/settings.yaml, pon poll_interval_seconds a 120.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != settings {
		t.Fatalf("settings.yaml changed to %q", b)
	}
	denied := false
	for _, r := range turn.Calls {
		denied = denied || r.Denied
	}
	if !denied {
		t.Fatalf("no change was tried; calls:\n%s", callsOf(turn))
	}
	if !strings.Contains(turn.Content, "permission was denied") {
		t.Errorf("answer %q does not name the denial; calls:\n%s", turn.Content, callsOf(turn))
	}
	if regexp.MustCompile(`(?i)\b(is now|now set|has been (set|changed|updated)|he cambiado|ahora es)\b`).MatchString(turn.Content) {
		t.Errorf("answer %q claims the change", turn.Content)
	}
}

// TestDefaultModelQuestionKeepsFile: a question about a file is
// answered and the file is left as it was. The 0.5B chose a change for
// this Italian question, then replaced the notes with one line.
func TestDefaultModelQuestionKeepsFile(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	const notes = "# Riunione 2 marzo 2026\nPresenti: Marco, Giulia, Luca.\n\n## Decisione\nSi è deciso di cambiare fornitore di internet: passiamo a FibraNet dal 1 aprile.\n\n## Chi fa cosa\n- Giulia disdice il vecchio contratto entro il 15 marzo.\n- Marco confronta i preventivi per l'assicurazione.\n- Luca aggiorna il foglio delle spese.\n"
	for name, content := range map[string]string{
		"notes/riunione-2026-03-02.md": notes,
		"notes/todo.md":                "## Todo\n\n- confrontare i preventivi\n",
		"README.md":                    "# Casa Rossi - cartella di gestione\nSpese di casa, note delle riunioni, configurazione e script di backup.\n",
		"budget/2026-spese.csv":        "data,categoria,importo\n2026-01-03,spesa,45.20\n2026-01-07,bollette,120.00\n2026-01-12,trasporti,12.50\n",
		"config/app.toml":              "lingua = \"it\"\nvaluta = \"EUR\"\nsoglia_avviso = 300\n",
		"scripts/backup.sh":            "#!/bin/sh\nmkdir -p /mnt/backup && cp -r budget notes config /mnt/backup/\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	path := filepath.Join(dir, "notes", "riunione-2026-03-02.md")
	turn, err := a.Send(t.Context(), "Chi deve disdire il vecchio contratto di internet, e entro quando?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != notes {
		t.Fatalf("the notes changed to %q; calls:\n%s", b, callsOf(turn))
	}
	for _, r := range turn.Calls {
		if r.Name == "replace_lines" || r.Name == "insert_lines" || r.Name == "write_file" {
			t.Errorf("a question led to %s; calls:\n%s", r.Name, callsOf(turn))
		}
	}
	if !strings.Contains(turn.Content, "Giulia") || !strings.Contains(turn.Content, "15") {
		t.Errorf("answer %q does not say Giulia, by the 15th; calls:\n%s", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelGeneralQuestionKeepsScript: a general question in a
// project's folder leaves its files as they were. The 0.5B chose a
// change for it, was shown the script offgrid's search found, copied it
// back without two of its blank lines, and offgrid replaced lines 4-19
// of it (keepLayout).
func TestDefaultModelGeneralQuestionKeepsScript(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	const script = "#!/bin/sh\n# Deploy stockroom to the production VM.\nset -eu\n\nHOST=stock-01.internal\nTARGET=/srv/stockroom\nPORT=8042\n\n" +
		"echo \"Running tests...\"\npytest -q\n\necho \"Copying release to $HOST...\"\n" +
		"ssh \"$HOST\" \"rm -rf $TARGET.prev && cp -a $TARGET $TARGET.prev\"\nrsync -a --delete --exclude .git ./ \"$HOST:$TARGET/\"\n\n" +
		"echo \"Restarting service...\"\nssh \"$HOST\" \"sudo systemctl restart stockroom\"\n\nsleep 3\n" +
		"ssh \"$HOST\" \"curl -fsS http://localhost:$PORT/api/v1/health\"\necho \"Deployed.\"\n"
	writeFiles(t, dir, map[string]string{"scripts/deploy.sh": script, "README.md": "# Stockroom\n\nA small inventory API for the warehouse team.\n"})
	path := filepath.Join(dir, "scripts", "deploy.sh")
	turn, err := a.Send(t.Context(), "quick question, no need to look at any files: in a REST API, what's the difference between PUT and PATCH?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != script {
		t.Fatalf("deploy.sh changed to %q; calls:\n%s", b, callsOf(turn))
	}
	if !strings.Contains(turn.Content, "PATCH") {
		t.Errorf("answer %q does not speak of PATCH; calls:\n%s", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelIntent: the default model's choice of what a request
// needs (intent.go), on requests in six languages that are none of the
// choice's examples. The gate fails open, so a miss costs a prompt's
// tools or an assist, not the task; most must still be right.
func TestDefaultModelIntent(t *testing.T) {
	t.Parallel() // see loadDefault
	a, _ := generalAgent(t)
	const maxMisses = 3
	misses := 0
	for _, tc := range []struct{ request, want string }{
		{"What is 12 times 12?", "none"},
		{"What is the capital of France?", "none"},
		{"Translate 'good morning' into Spanish.", "none"},
		{"Hallo!", "none"},
		{"Quels fichiers y a-t-il dans le dossier src ?", "list"},
		{"¿Dónde se define la función main?", "read"},
		{"How many rows does sales.csv have?", "read"},
		{"Which file sets the timeout?", "read"},
		{"What did we decide about the venue? It's somewhere in the meeting notes.", "read"},
		{"notes.txt の2行目を「Call Alice」に直して", "change"},
		{"Fix the typo in the README.", "change"},
		{"Turn off debug mode in the config.", "change"},
		{"把 config.yaml 里的端口改成 9090", "change"},
		{"Create a .gitignore that ignores __pycache__ and .env", "change"},
		{"Lösche die Zeile mit 'Buy milk' aus notes.txt.", "change"},
		{"What day of the week is it today?", "clock"},
		{"Wie spät ist es?", "clock"},
		{"今日は何曜日ですか？", "clock"},
		{"Add a task: call the plumber", "tasks"},
		{"Run the tests.", "command"},
	} {
		var turn Turn
		got := a.intent(t.Context(), &turn, tc.request, nil, func(Event) {}).label
		if got != tc.want {
			misses++
			t.Logf("%q: chose %s, want %s", tc.request, got, tc.want)
		}
	}
	if misses > maxMisses {
		t.Errorf("%d of 20 choices wrong, want at most %d", misses, maxMisses)
	}
}

// TestDefaultModelTableQuery: with table-query (in the 0.5B's profile),
// a Spanish question for a sum over a CSV file's rows of one value is
// answered with the sum offgrid computed from the query the model chose;
// without it, the 0.5B answered such questions with a row's figure or a
// wrong sum.
func TestDefaultModelTableQuery(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	var b strings.Builder
	b.WriteString("date,zone,temp_max_c,water_l\n")
	for day := 1; day <= 6; day++ {
		fmt.Fprintf(&b, "2024-06-%02d,A,%d.5,%d.5\n2024-06-%02d,B,%d.0,%d.0\n", day, 24+day, 6+day, day, 23+day, 3+day)
	}
	os.WriteFile(filepath.Join(dir, "readings.csv"), []byte(b.String()), 0o644)
	turn, err := a.Send(t.Context(), "Según readings.csv, ¿cuántos litros de agua recibió la zona A en total?", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Zone A: 7.5 + 8.5 + … + 12.5 = 60.0.
	if !strings.Contains(turn.Content, "sum of water_l, only where zone = A: 60.0 (6 of 12 rows)") {
		t.Fatalf("answer %q; calls:\n%s\nwant the query's sum, 60.0", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelTableThreshold: a German question for the rows under
// a number the question writes is answered with the rows offgrid
// selected by the query the model chose; without a comparison among the
// queries, the 0.5B chose none for such a question and named a row above
// the number.
func TestDefaultModelTableThreshold(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.WriteFile(filepath.Join(dir, "lager.csv"), []byte("artikel,name,stueck,preis\nA-01,Schraube M4,120,0.10\nA-02,Mutter M4,3,0.05\nA-03,Scharnier,14,2.40\nA-04,Dübel 6mm,0,0.08\nA-05,Winkel,8,1.20\nA-06,Haken,45,0.60\n"), 0o644)
	turn, err := a.Send(t.Context(), "Welche Artikel in lager.csv haben weniger als 10 Stück?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(turn.Content, "list, only where stueck < 10 (3 of 6 rows)") {
		t.Fatalf("answer %q; calls:\n%s\nwant the rows of A-02, A-04 and A-05", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelNamesEveryNote: asked in Japanese how many meeting
// notes there are and for their names, the answer names every file of
// the folder; the 0.5B gave the count alone, and offgrid now adds the
// names an answer about a listed folder leaves out.
func TestDefaultModelNamesEveryNote(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	names := []string{"2026-01-11-house-meeting.md", "2026-02-08-house-meeting.md", "2026-03-08-house-meeting.md", "2026-03-22-party-planning.md"}
	os.MkdirAll(filepath.Join(dir, "meetings"), 0o755)
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, "meetings", n), []byte("# "+n+"\n\nPresent: Anna, Tom\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# House notes\n"), 0o644)
	turn, err := a.Send(t.Context(), "meetings フォルダに会議メモは何件ある？ファイル名も全部教えて。", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(turn.Content, n) {
			t.Fatalf("answer %q leaves out %s; calls:\n%s", turn.Content, n, callsOf(turn))
		}
	}
}

// TestDefaultModelWritesNewNote: a German request for a new runbook
// with a short note is written with what the note says. The 0.5B wrote
// its last steps again and again until the token limit cut the file's
// block off, and nothing was written; the reply now stops where it
// repeats itself.
func TestDefaultModelWritesNewNote(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "deployment.md"), []byte("# Deployment\n\nThe service runs on stock-01.internal.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Stockroom\n\nA small inventory API.\n"), 0o644)
	turn, err := a.Send(t.Context(), "Leg bitte eine docs/runbook.md an, mit einer kurzen Notiz: Zum Neustarten des Dienstes auf stock-01.internal einloggen und `sudo systemctl restart stockroom` ausführen.", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "docs", "runbook.md"))
	if err != nil || !strings.Contains(string(b), "systemctl restart stockroom") {
		t.Fatalf("docs/runbook.md: %q, %v; answer %q; calls:\n%s", b, err, turn.Content, callsOf(turn))
	}
	// The file to create is not read first; offgrid's account begins the
	// answer, and no failed read is told in it (the model copied one
	// from the request it was shown).
	for _, c := range turn.Calls {
		if c.ByAgent && c.Name == "read_file" && strings.Contains(string(c.Arguments), "runbook") {
			t.Errorf("the new file was read: %s", c.Arguments)
		}
	}
	if !strings.HasPrefix(turn.Content, "Created docs/runbook.md") {
		t.Errorf("the answer does not begin with the file made: %q", turn.Content)
	}
	if strings.Contains(turn.Content, "does not exist") {
		t.Errorf("the answer tells the read of the file before it was made: %q", turn.Content)
	}
}

// TestDefaultModelClockAnswer: asked in German which weekday it is, the
// answer begins with today's date in German. Given the clock's
// "Saturday", the 0.5B answered a Spanish question "Hoy es lunes." and
// this one in English; the answer now begins with the date offgrid
// writes in the request's language.
func TestDefaultModelClockAnswer(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# greenhouse\n\nSmall controller for our backyard greenhouse.\n"), 0o644)
	before := time.Now()
	turn, err := a.Send(t.Context(), "Welcher Wochentag ist heute? Ich will das Gießprotokoll beschriften.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(turn.Calls, func(r ToolRecord) bool { return r.Name == clockTool }) {
		t.Fatalf("the clock was not read; calls:\n%s", callsOf(turn))
	}
	var dates []string // today's, or tomorrow's at midnight
	for _, now := range []time.Time{before, time.Now()} {
		d, _ := calendar.Date("de", now)
		dates = append(dates, d)
	}
	if !strings.HasPrefix(turn.Content, dates[0]) && !strings.HasPrefix(turn.Content, dates[1]) {
		t.Errorf("the answer does not begin with %q: %q", dates[0], turn.Content)
	}
}

// TestDefaultModelWeekdayFromNowhere: asked in Chinese which weekday it
// is, with chores to plan, the 0.5B chose the task list and answered
// "今天是星期五。" from an empty one, on a Saturday. A weekday that no
// result names has offgrid read the clock; the answer names today's.
func TestDefaultModelWeekdayFromNowhere(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	os.MkdirAll(filepath.Join(dir, "household"), 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Flat notebook\n\nNotes of the flat: meetings, recipes, the household.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "household", "chores.md"), []byte("# Chores\n\n- Kitchen: Anna\n- Bathroom: Tom\n"), 0o644)
	before := time.Now()
	turn, err := a.Send(t.Context(), "今天星期几？我想安排一下这周的家务。", nil)
	if err != nil {
		t.Fatal(err)
	}
	days := calendar.Weekdays(turn.Content)
	today := []time.Weekday{before.Weekday(), time.Now().Weekday()}
	if len(days) == 0 || slices.ContainsFunc(days, func(d time.Weekday) bool { return !slices.Contains(today, d) }) {
		t.Errorf("the answer names %v, want today (%v): %q; calls:\n%s", days, today[0], turn.Content, callsOf(turn))
	}
}

// TestDefaultModelReadsCitedFile: asked for June's lowest humidity in
// the greenhouse fixture of the general suite, the search's best line is
// in docs/wiring.md ("since June 2024"); the 0.5B, given that file,
// answered "According to the data in the `data/readings_2024-06.csv`
// file, the lowest humidity recorded in June was 4.0%" (a figure of the
// search's lines). With read-cited, offgrid reads the file the answer
// names and the model answers from it: 44.
func TestDefaultModelReadsCitedFile(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.ReadCited = true
	writeFixture(t, dir, "greenhouse")
	turn, err := a.Send(t.Context(), "What was the lowest humidity we recorded in June?", nil)
	if err != nil {
		t.Fatal(err)
	}
	read := slices.ContainsFunc(turn.Calls, func(r ToolRecord) bool {
		return r.Name == readFileTool && r.OK() && readPath(r) == "data/readings_2024-06.csv"
	})
	if !read || !strings.Contains(turn.Content, "44") {
		t.Fatalf("answer %q; calls:\n%s\nwant data/readings_2024-06.csv read and 44", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelTableFirst: a question over a folder's tables that
// names none is searched for in the tables (table-first), and the
// table's figure computed (table-query): searched through every file,
// "How many orders did we get in Q3?" read scripts/report.sh, and the
// 0.5B answered 116.
func TestDefaultModelTableFirst(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.TableFirst = true
	writeFixture(t, dir, "datafolder")
	turn, err := a.Send(t.Context(), "How many orders did we get in Q3?", nil)
	if err != nil {
		t.Fatal(err)
	}
	read := slices.ContainsFunc(turn.Calls, func(r ToolRecord) bool {
		return r.Name == readFileTool && r.OK() && readPath(r) == "data/sales-2026-q3.csv"
	})
	if !read || !strings.Contains(turn.Content, "15") {
		t.Fatalf("answer %q; calls:\n%s\nwant data/sales-2026-q3.csv read and 15", turn.Content, callsOf(turn))
	}
}

// TestDefaultModelEditLine: the real 0.5B, asked in Chinese to delete
// the README's sentence on Windows, writes the README back unchanged;
// with EditLine it deletes that line, and only it.
func TestDefaultModelEditLine(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.EditLine = true
	writeFixture(t, dir, "gomodule")
	before, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(t.Context(), "README 里关于 Windows 的那一句删掉吧，我们暂时不打算支持。", nil)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if want := strings.Replace(string(before), "Windows builds are not tested yet.\n", "", 1); string(after) != want {
		t.Fatalf("README.md is now:\n%s\nwant the line on Windows deleted, and only it; calls:\n%s", after, callsOf(turn))
	}
}

// writeFixture writes the files of the general suite's fixture name
// (bench/agent/general/NAME.json) into dir.
func writeFixture(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "bench", "agent", "general", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Fixtures map[string]map[string]string `json:"fixtures"`
	}
	if err := json.Unmarshal(b, &suite); err != nil {
		t.Fatal(err)
	}
	if len(suite.Fixtures[name]) == 0 {
		t.Fatalf("%s.json has no fixture %s", name, name)
	}
	writeFiles(t, dir, suite.Fixtures[name])
}

// TestDefaultModelDiverge: the real 0.5B, asked in Spanish to bump the
// patch version, writes app/__init__.py back unchanged; with Diverge it
// is written again from the version's last figure, where the model most
// nearly wrote another, and only that line changes.
func TestDefaultModelDiverge(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.Diverge = true
	writeFixture(t, dir, "pyservice")
	path := filepath.Join(dir, "app", "__init__.py")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(t.Context(), "Sube la versión de parche en app/__init__.py (la variable __version__), que toca sacar un release.", nil)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if want := strings.Replace(string(before), `__version__ = "2.3.1"`, `__version__ = "2.3.2"`, 1); string(after) != want {
		t.Fatalf("app/__init__.py is now:\n%s\nwant the version 2.3.2, and nothing else changed; calls:\n%s", after, callsOf(turn))
	}
}

// TestDefaultModelValueEdit: asked in Portuguese to move the orders'
// lead time from 48 to 72 hours, the real 0.5B's rewrite of the
// settings writes no readable lines; with value-edit it chooses the line
// with 72, and only that line changes (without the assist, nothing
// does, and the test fails).
func TestDefaultModelValueEdit(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := generalAgent(t)
	a.opts.ValueEdit = true
	writeFixture(t, dir, "boulangerie")
	path := filepath.Join(dir, "config", "reglages.yaml")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(t.Context(), "Muda o prazo mínimo das encomendas de 48 para 72 horas nas configurações.", nil)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if want := strings.Replace(string(before), "delai_minimum_heures: 48", "delai_minimum_heures: 72", 1); string(after) != want {
		t.Fatalf("config/reglages.yaml is now:\n%s\nwant the lead time 72, and nothing else changed; calls:\n%s", after, callsOf(turn))
	}
}
