package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentIntent: the choice of what a request needs is put to the model
// with the options and examples as a fixed head (cached like a system
// prompt), is read from its one-word reply, and fails open on anything
// else; a request naming a file, even a missing one, needs the files, and
// so does a choice of no files that the model was less than even sure
// of. What the folder holds is said before the examples, in the cached
// head.
func TestAgentIntent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, request, reply string
		want                 intent
		probs                []float64 // how sure the model was of each reply
		sure                 bool      // Options.SureChange
	}{
		{"read", "Où est définie la fonction main ?", "read", intent{known: true, label: "read", topic: tools.TopicFiles}, nil, false},
		{"list", "¿Qué hay en la carpeta docs?", "list", intent{known: true, label: "list", topic: tools.TopicFiles, list: true}, nil, false},
		{"change", "把端口改成 9090", "change", intent{known: true, label: "change", topic: tools.TopicFiles, change: true}, nil, false},
		{"clock", "Wie spät ist es?", "clock", intent{known: true, label: "clock", topic: tools.TopicClock}, nil, false},
		{"none", "What is 7 squared?", "none", intent{known: true, label: "none"}, nil, false},
		// A named file: the model chooses again, among the options that
		// need the files.
		{"none, but a file is named", "Translate notes.txt into French.", "none\nchange", intent{known: true, label: "change", topic: tools.TopicFiles, change: true}, nil, false},
		{"none, a missing file named", "Translate missing.txt into French.", "none\nread", intent{known: true, label: "read", topic: tools.TopicFiles}, nil, false},
		{"unreadable", "Hmm.", "!nogrammarperhaps files", intent{}, nil, false},
		// Less than even sure of an option that needs no files, in a
		// folder of files: the model chooses again among those that do.
		{"unsure none", "what does make lint run?", "none\nread", intent{known: true, label: "read", topic: tools.TopicFiles}, []float64{0.39}, false},
		{"unsure tasks", "how many TODO comments are left?", "tasks\nread", intent{known: true, label: "read", topic: tools.TopicFiles}, []float64{0.42}, false},
		// Unsure, with no file named: reading or listing, not a change.
		{"unsure, no change", "このリポジトリのテストファイルを全部挙げてください。", "none\n!nogrammarchange", intent{known: true, label: "none"}, []float64{0.37}, false},
		{"sure none", "What is 7 squared?", "none", intent{known: true, label: "none"}, []float64{0.61}, false},
		{"unsure read", "Qui s'occupe du grill ?", "read", intent{known: true, label: "read", topic: tools.TopicFiles}, []float64{0.3}, false},
		// SureChange: a change less than 0.7 sure, no file named, is
		// chosen again among the other options; then, less than even
		// sure of one that needs no files, among those that do.
		{"unsure change", "In Go, which keyword declares a function?", "change\nnone", intent{known: true, label: "none"}, []float64{0.66, 0.9}, true},
		{"unsure change, then unsure none", "¿Quién es nuestro fontanero?", "change\nnone\nread", intent{known: true, label: "read", topic: tools.TopicFiles}, []float64{0.6, 0.4}, true},
		{"unsure change, a file named", "Mark the milk done in notes.txt.", "change", intent{known: true, label: "change", topic: tools.TopicFiles, change: true}, []float64{0.57}, true},
		{"sure change", "Décale la fête à 17:30.", "change", intent{known: true, label: "change", topic: tools.TopicFiles, change: true}, []float64{0.89}, true},
		{"unsure change, no sure-change", "In Go, which keyword declares a function?", "change", intent{known: true, label: "change", topic: tools.TopicFiles, change: true}, []float64{0.66}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := &fakeEngine{t: t, replies: strings.Split(tc.reply, "\n"), probs: tc.probs}
			files := func(ctx context.Context, max int) ([]string, bool, error) { return tools.Files(ctx, dir, max) }
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{ToolsByTopic: true, SureChange: tc.sure, Files: files})
			if err != nil {
				t.Fatal(err)
			}
			var turn Turn
			got := a.intent(context.Background(), &turn, tc.request, tools.Mentioned(dir, tc.request), func(Event) {})
			// A choice made keeps what the folder holds, as it was told.
			if want := map[bool]string{true: "notes.txt"}[got.known]; got.folder != want {
				t.Errorf("intent's folder %q, want %q", got.folder, want)
			}
			got.folder = ""
			if got != tc.want {
				t.Errorf("intent %+v, want %+v", got, tc.want)
			}
			if eng.calls != len(strings.Split(tc.reply, "\n")) {
				t.Errorf("%d choices made, want %d", eng.calls, len(strings.Split(tc.reply, "\n")))
			}
			for i := 1; len(tc.probs) > 0 && i < eng.calls; i++ {
				if strings.Contains(eng.reqs[i].Grammar.GBNF, `"change"`) {
					t.Errorf("unsure with no file named, choice %d admits a change: %s", i+1, eng.reqs[i].Grammar.GBNF)
				}
			}
			prompt, req := eng.prompts[0], eng.reqs[0]
			for _, o := range a.intentOptions() {
				if !strings.Contains(prompt, o.label+": "+o.text) {
					t.Errorf("the prompt lacks the option %q:\n%s", o.label, prompt)
				}
			}
			if !strings.Contains(prompt[:req.Prefix], "The folder holds notes.txt.") {
				t.Errorf("the cached head does not say what the folder holds:\n%s", prompt)
			}
			// Everything before the request is the cached head.
			at := strings.LastIndex(prompt, tc.request)
			if req.Prefix <= 0 || req.Prefix > at || !strings.Contains(prompt[:req.Prefix], intentExamples[len(intentExamples)-1].request) {
				t.Errorf("the cached head is %d bytes; the request starts at %d:\n%s", req.Prefix, at, prompt)
			}
		})
	}
}
