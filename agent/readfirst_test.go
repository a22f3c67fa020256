package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentReadFirst: with ReadFirst, the files a request names are read
// by offgrid before the model's first reply and shown in the request;
// the reads go through the permission policy and count as reads for
// write_file.
func TestAgentReadFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		request string
		cfg     permission.Config
		want    []string // in the first prompt
		notWant []string
		reads   int
	}{
		{"file", "What does notes.txt say?", permission.Config{AllowAll: true},
			[]string{"What does notes.txt say?\n\nThe file notes.txt holds:\n", "1: Buy milk"}, nil, 1},
		{"two files", "Copy notes.txt into todo.txt.", permission.Config{AllowAll: true},
			[]string{"The file notes.txt holds:\n", "1: Buy milk", "The file todo.txt holds:\n", "1: TODO: ship"}, nil, 2},
		{"denied", "What does notes.txt say?", permission.Config{AllowAll: true, Deny: []string{"read_file"}},
			[]string{"Reading the file notes.txt failed: "}, []string{"Buy milk"}, 1},
		// A folder named with no file is listed (listFolders).
		{"directory", "What is in ./docs?", permission.Config{AllowAll: true}, []string{"The folder ./docs holds:\n"}, []string{"The file"}, 1},
		{"missing", "What does missing.txt say?", permission.Config{AllowAll: true},
			[]string{"Reading the file missing.txt failed: not_found"}, []string{"holds:"}, 1}, // read, so that the failure is known
		{"outside", "What does /etc/hosts say?", permission.Config{AllowAll: true},
			[]string{"Reading the file /etc/hosts failed: permission_denied"}, []string{"holds:"}, 1},
		{"no tools", "What does notes.txt say?", permission.Config{AllowAll: true}, nil, []string{"holds:", "Buy milk"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "todo.txt"), []byte("TODO: ship\n"), 0o644)
			os.Mkdir(filepath.Join(dir, "docs"), 0o755)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: []string{"It says: Buy milk."}}
			opts := Options{ReadFirst: true, Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }}
			if tc.name == "no tools" {
				opts.ToolChoice = grammar.None
			}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, tc.cfg), nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			var byAgent int
			turn, err := a.Send(context.Background(), tc.request, func(e Event) {
				if e.Type == EventToolCall && e.ByAgent {
					byAgent++
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(turn.Calls) != tc.reads || byAgent != tc.reads {
				t.Fatalf("%d calls, %d call events by the agent, want %d", len(turn.Calls), byAgent, tc.reads)
			}
			for _, c := range turn.Calls {
				if c.Name != "read_file" && c.Name != "ls" || !c.ByAgent {
					t.Errorf("call %+v, want a read_file or ls by the agent", c)
				}
			}
			if got := roles(a.History()); got != "user,assistant" {
				t.Errorf("history %s, want the reads in the request", got)
			}
			prompt := eng.prompts[0]
			for _, w := range tc.want {
				if !strings.Contains(prompt, w) {
					t.Errorf("the first prompt lacks %q:\n%s", w, prompt)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(prompt, w) {
					t.Errorf("the first prompt holds %q:\n%s", w, prompt)
				}
			}
		})
	}
}

// TestAgentReadFirstThenWrite: a file offgrid read for the model counts
// as read, so that the model may replace it at once, and the read is not
// one of the model's rounds or calls; the model's own read of it again
// is taken for a repeat.
func TestAgentReadFirstThenWrite(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("Buy milk\n"), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{t: t, replies: []string{
		hermes(call("write_file", `{"path": "notes.txt", "content": "Buy oat milk\n"}`)),
		"Done.",
		hermes(call("read_file", `{"path": "notes.txt"}`)),
		"It says: Buy oat milk.",
	}}
	// offgrid's reads do not count against the model's limits.
	opts := Options{ReadFirst: true, OnRepeat: RepeatAnswer, Limits: Limits{MaxIterations: 1, MaxToolCalls: 1},
		Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(context.Background(), "In notes.txt, change Buy milk to Buy oat milk.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Calls) != 2 || !turn.Calls[1].OK() {
		t.Fatalf("calls %+v", turn.Calls)
	}
	if b, _ := os.ReadFile(notes); string(b) != "Buy oat milk\n" {
		t.Fatalf("notes.txt holds %q", b)
	}
	// The next request reads the file again (a new turn); the model's own
	// read of it is a repeat, answered from what it has.
	turn, err = a.Send(context.Background(), "What does notes.txt say now?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Calls) != 1 || turn.Content != "It says: Buy oat milk." {
		t.Fatalf("turn %+v", turn)
	}
	if !strings.Contains(eng.prompts[2], "1: Buy oat milk") {
		t.Errorf("the second request lacks the new content:\n%s", eng.prompts[2])
	}
}

// TestAgentReadFirstLists: a request for the names of files (the model
// chose "list"), or one naming folders and no file that is not for a
// change, has the folders it names listed by offgrid and is answered
// from the listing; a request that names a file too has only that read.
func TestAgentReadFirstLists(t *testing.T) {
	for _, tc := range []struct {
		name, request, choice string
		calls                 []string // by offgrid, in order
	}{
		{"folder", "¿Qué hay en la carpeta scripts?", "list", []string{"ls"}},
		{"folder and file", "Are deploy.sh and the docs folder there?", "list", []string{"read_file", "ls"}},
		// A request that names folders and no file gets them listed,
		// whatever the model chose, but for a change.
		{"read", "Summarize what is in scripts", "read", []string{"ls"}},
		{"read a file", "Summarize deploy.sh and the docs folder", "read", []string{"read_file"}},
		{"change", "Add a cleanup script to scripts", "change", nil},
		{"tasks", "Add a task 'write docs', then list my tasks.", "tasks", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
			os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
			os.WriteFile(filepath.Join(dir, "scripts", "deploy.sh"), []byte("echo deploy\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "deploy.sh"), []byte("echo root\n"), 0o644)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: []string{tc.choice, "scripts holds deploy.sh.", "scripts holds deploy.sh."}}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
				ToolsByTopic: true, ReadFirst: true, ReadAnswer: true,
				Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) },
			})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range turn.Calls {
				if !c.ByAgent || !c.OK() {
					t.Errorf("call %+v, want one by offgrid that succeeded", c)
				}
				got = append(got, c.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.calls, ",") {
				t.Fatalf("offgrid called %v, want %v", got, tc.calls)
			}
			if len(tc.calls) == 0 {
				return
			}
			if !strings.Contains(eng.prompts[1], "deploy.sh") || slices.Contains(tc.calls, "ls") != strings.Contains(eng.prompts[1], "The folder ") {
				t.Errorf("the answer's prompt lacks the listing:\n%s", eng.prompts[1])
			}
			if turn.Content != "scripts holds deploy.sh." && tc.choice != "change" {
				t.Errorf("answer %q", turn.Content)
			}
		})
	}
}
