package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentLocate: a request about the files that names none has the
// model choose one of the project's paths, which offgrid reads before
// the model answers; a request that names a file, or a choice that
// cannot be read, goes on without it.
func TestAgentLocate(t *testing.T) {
	for _, tc := range []struct {
		name, request string
		replies       []string
		read          string // the file read for the model, "" for none
	}{
		{"chosen", "¿En qué puerto escucha el servicio?", []string{"read", "config/settings.yaml", "Port 8042."}, "config/settings.yaml"},
		{"named", "What does notes.txt say?", []string{"read", "Buy milk."}, "notes.txt"},
		{"not about the files", "What is 7 squared?", []string{"none", "49."}, ""},
		{"no choice", "Where is the port set?", []string{"read", "!nogrammarsomewhere", "<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>", "Nothing."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "config"), 0o755)
			os.WriteFile(filepath.Join(dir, "config", "settings.yaml"), []byte("port: 8042\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\n"), 0o644)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: tc.replies}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
				ToolsByTopic: true, ReadFirst: true, ReadAnswer: true, Locate: true, LookFirst: true,
				Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) },
				Files:    func(ctx context.Context, max int) ([]string, bool, error) { return tools.Files(ctx, dir, max) },
			})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			var read string
			for _, r := range turn.Calls {
				if r.ByAgent && r.Name == "read_file" {
					read = strings.TrimSuffix(strings.TrimPrefix(string(r.Arguments), `{"path":"`), `"}`)
				}
			}
			if read != tc.read || eng.calls != len(tc.replies) {
				t.Errorf("read %q, want %q; %d of %d replies used", read, tc.read, eng.calls, len(tc.replies))
			}
			if tc.name == "chosen" && !strings.Contains(eng.prompts[1], "config/settings.yaml\nnotes.txt\n") {
				t.Errorf("the choice does not list the paths:\n%s", eng.prompts[1])
			}
		})
	}
}

// TestProjectFiles: the project's files are listed once a turn, and the
// first max of them are given with whether there are more.
func TestProjectFiles(t *testing.T) {
	var all []string
	for i := range 250 {
		all = append(all, fmt.Sprintf("f%03d.txt", i))
	}
	listed := 0
	a, _ := dirAgent(t, t.TempDir(), []string{"Hi."}, Options{Files: func(ctx context.Context, max int) ([]string, bool, error) {
		listed++
		return all[:min(max, len(all))], max < len(all), nil
	}})
	ctx := context.Background()
	for _, c := range []struct {
		max  int
		n    int
		more bool
	}{{maxWalk, 250, false}, {200, 200, true}, {250, 250, false}} {
		paths, more, err := a.projectFiles(ctx, c.max)
		if err != nil || len(paths) != c.n || more != c.more {
			t.Errorf("projectFiles(%d) = %d paths, more %v, %v; want %d, %v", c.max, len(paths), more, err, c.n, c.more)
		}
	}
	if listed != 1 {
		t.Errorf("listed %d times in a turn, want 1", listed)
	}
	if _, err := a.Send(ctx, "Hello", nil); err != nil {
		t.Fatal(err)
	}
	a.projectFiles(ctx, 10)
	if listed != 2 {
		t.Errorf("listed %d times after a new turn, want 2", listed)
	}
}
