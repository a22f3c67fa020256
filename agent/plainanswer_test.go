package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestAgentPlainAnswer(t *testing.T) {
	const searched = "Qu'est-ce qu'on a décidé pour la pompe ?"
	for _, tc := range []struct {
		name, request string
		plain         bool
		replies       []string // intent, the search words, the answer
		want, not     []string // in the answer's prompt, and not
	}{
		{"searched and read, plain", searched, true, []string{"read", "pump decision", "A 24V pump."},
			[]string{plainIntro, "\nnotes/meeting.md: - Decision: a 24V pump.\n", "The file notes/meeting.md:\n## Pump\n- Decision: a 24V pump.", "A 24V pump is on order."},
			[]string{"pump decision", "grep_search", "1: ", ":2: ", "Searching the files"}},
		{"the assist off", searched, false, []string{"read", "pump decision", "A 24V pump."},
			[]string{"pump decision", "2: - Decision: a 24V pump."}, []string{plainIntro}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, map[string]string{
				"notes/meeting.md": "## Pump\n- Decision: a 24V pump.\n",
				"notes/order.md":   "A 24V pump is on order.\n",
				"README.md":        "Our notes.\n",
			})
			eng := &fakeEngine{t: t, replies: tc.replies}
			a := searchingAgent(t, dir, reg, eng, tc.plain)
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if turn.Content != tc.replies[len(tc.replies)-1] {
				t.Errorf("answer %q, want the model's %q", turn.Content, tc.replies[len(tc.replies)-1])
			}
			prompt := eng.prompts[len(eng.prompts)-1]
			for _, s := range tc.want {
				if !strings.Contains(prompt, s) {
					t.Errorf("the answer's prompt lacks %q:\n%s", s, prompt)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(prompt, s) {
					t.Errorf("the answer's prompt holds %q:\n%s", s, prompt)
				}
			}
			// The request once, as the user wrote it, last.
			if strings.Count(prompt, tc.request) != 1 && tc.plain {
				t.Errorf("the request is not shown once:\n%s", prompt)
			}
		})
	}
}

// TestPlainAnswerApplies: only a turn whose calls all read or searched
// and succeeded is answered plain; a failure or a denial keeps the
// prompt that says what failed (answerMessages).
func TestPlainAnswerApplies(t *testing.T) {
	read := ToolRecord{Name: "read_file", Arguments: []byte(`{"path":"a.txt"}`), Result: tools.OK("1: x\n")}
	search := ToolRecord{Name: "grep_search", Arguments: []byte(`{"pattern":"x y"}`), Result: tools.OK("a.txt:1: x\n")}
	failed := ToolRecord{Name: "read_file", Arguments: []byte(`{"path":"b.txt"}`), Result: tools.Fail(tools.TypeNotFound, "b.txt does not exist")}
	denied := read
	denied.Denied = true
	nothing := ToolRecord{Name: "grep_search", Arguments: []byte(`{"pattern":"z"}`), Result: tools.OK("No line contains \"z\" in **.\n")}
	listed := ToolRecord{Name: "ls", Arguments: []byte(`{}`), Result: tools.OK("a.txt\n")}
	for _, tc := range []struct {
		name  string
		calls []ToolRecord
		want  bool
	}{
		{"a read and a search", []ToolRecord{search, read}, true},
		{"a search", []ToolRecord{search}, true},
		{"a search that found nothing", []ToolRecord{nothing, read}, false},
		// A file the request names, read first, keeps the usual prompt.
		{"a read alone", []ToolRecord{read}, false},
		{"no calls", nil, false},
		{"a read that failed", []ToolRecord{search, failed}, false},
		{"a denied read", []ToolRecord{search, denied}, false},
		{"another tool", []ToolRecord{search, listed}, false},
	} {
		a, err := New(NewCompleter(&fakeEngine{t: t}, hermesInfo), tools.NewRegistry(), testPolicy(t, permission.Config{AllowAll: true}), nil, Options{PlainAnswer: true})
		if err != nil {
			t.Fatal(err)
		}
		a.history = []Message{{Role: RoleUser, Content: "what is x?\n\nThe file a.txt holds:\n1: x"}}
		msgs, ok := a.plainAnswer(0, Turn{Calls: tc.calls, request: "what is x?"})
		if ok != tc.want {
			t.Errorf("%s: applies %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if ok && (len(msgs) != 2 || msgs[1].Content != "what is x?" || !strings.Contains(msgs[0].Content, "\n\na.txt: x")) {
			t.Errorf("%s: prompt %q", tc.name, msgs)
		}
		if ok && len(tc.calls) == 2 && !strings.Contains(msgs[0].Content, "\n\na.txt: x\n\nThe file a.txt:\nx") {
			t.Errorf("%s: the file is not shown plain after the lines: %q", tc.name, msgs[0].Content)
		}
	}
}

func TestPlainRead(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1: a\n2: \n3: c\n", "a\n\nc\n"},
		{"1: day,mm\n2: mon,3\n[table: 1 row, 2 columns]\n", "day,mm\nmon,3\n[table: 1 row, 2 columns]\n"},
		// A part of a file keeps its numbers: a question may be about one.
		{"2999: x\n3000: y\n", "2999: x\n3000: y\n"},
		{"1: a\n[stopped at line 1 of 9 to keep the result short; continue with offset=2]\n", "1: a\n[stopped at line 1 of 9 to keep the result short; continue with offset=2]\n"},
		{"1: a very long line [line cut at 4 KiB]\n", "1: a very long line [line cut at 4 KiB]\n"},
		{"", ""},
	} {
		if got := plainRead(tc.in); got != tc.want {
			t.Errorf("plainRead(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
