package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar/gbnf"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentFindFirst: a request about the files that names none has a
// first reply that must search or list: read_file and the edits are not
// in its grammar; a request that names a file, or is not about the
// files, is left as it was.
func TestAgentFindFirst(t *testing.T) {
	grep := hermes(call("grep_search", `{"pattern":"port"}`))
	read := hermes(call("read_file", `{"path":"app/main.py"}`))
	for _, tc := range []struct {
		name, request string
		replies       []string
		found         bool // the first reply had to find
	}{
		{"names none", "¿En qué puerto escucha el servicio?", []string{"read", grep, "Port 8042."}, true},
		{"names a file", "What port does config/settings.yaml set?", []string{"read", "Port 8042."}, false},
		{"not about the files", "What is 7 squared?", []string{"none", "49."}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "config"), 0o755)
			os.MkdirAll(filepath.Join(dir, "app"), 0o755)
			os.WriteFile(filepath.Join(dir, "config", "settings.yaml"), []byte("port: 8042\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "app", "main.py"), []byte("print('hi')\n"), 0o644)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: tc.replies}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{
				ToolsByTopic: true, ReadFirst: true, ReadAnswer: true, FindFirst: true,
				Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) },
			})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if turn.Content == "" {
				t.Errorf("no answer; calls %+v", turn.Calls)
			}
			if !tc.found {
				return
			}
			if len(turn.Calls) == 0 || turn.Calls[0].Name != "grep_search" || !turn.Calls[0].OK() {
				t.Fatalf("calls %+v", turn.Calls)
			}
			g := eng.reqs[1].Grammar
			gr, err := gbnf.Parse(g.GBNF)
			if err != nil {
				t.Fatal(err)
			}
			if gr.Accepts(g.Root, lazyPart(read, g)) {
				t.Errorf("the first reply's grammar lets it read a guessed path")
			}
			if !gr.Accepts(g.Root, lazyPart(grep, g)) {
				t.Errorf("the first reply's grammar does not let it search")
			}
			if ls := hermes(call("ls", `{}`)); gr.Accepts(g.Root, lazyPart(ls, g)) {
				t.Errorf("the first reply's grammar lets it list instead of searching")
			}
			if !strings.Contains(turn.Content, "8042") {
				t.Errorf("answer %q", turn.Content)
			}
			// The next reply is free again: it may read what it found.
			if g := eng.reqs[2].Grammar; g != nil {
				if gr, err := gbnf.Parse(g.GBNF); err == nil && !gr.Accepts(g.Root, lazyPart(read, g)) {
					t.Errorf("the second reply may not read")
				}
			}
		})
	}
}
