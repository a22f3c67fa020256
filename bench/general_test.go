package bench

import (
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestGeneralSuite: every project file of the generalization suite parses
// on its own, every task is in a split, has a fixture and a category, a
// paraphrase group stays in one split and one fixture, no check is
// vacuous; and the whole suite is as large and as multilingual as it
// claims.
func TestGeneralSuite(t *testing.T) {
	entries, err := fs.ReadDir(builtinSuites, "agent/general")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run("file="+e.Name(), func(t *testing.T) {
			data, err := fs.ReadFile(builtinSuites, path.Join("agent/general", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseSuite(data)
			if err != nil {
				t.Fatal(err)
			}
			type place struct{ split, fixture string }
			groups := map[string]place{}
			for _, task := range s.Tasks {
				if task.Split == "" || task.Fixture == "" || task.Category == "" {
					t.Errorf("%s: split %q, fixture %q, category %q: all three are needed", task.ID, task.Split, task.Fixture, task.Category)
				}
				if task.Group == "" {
					continue
				}
				p := place{task.Split, task.Fixture}
				if q, ok := groups[task.Group]; ok && q != p {
					t.Errorf("%s: group %s is in %v and %v", task.ID, task.Group, q, p)
				}
				groups[task.Group] = p
			}
			notVacuous(t, s)
		})
	}
	s, err := GeneralSuite()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Fixtures); n < 4 {
		t.Errorf("%d fixture projects, want at least 4", n)
	}
	if n := len(s.Tasks); n < 150 {
		t.Errorf("%d tasks, want at least 150", n)
	}
	langs := map[string]int{}
	splits := map[string]int{}
	members := map[string]int{}
	for _, task := range s.Tasks {
		langs[task.Language()]++
		splits[task.Split]++
		if task.Group != "" {
			members[task.Group]++
		}
	}
	if other := len(s.Tasks) - langs["en"]; 4*other < len(s.Tasks) {
		t.Errorf("%d of %d tasks are not in English, want at least a quarter", other, len(s.Tasks))
	}
	for _, l := range []string{"fr", "es", "de", "zh", "ja"} {
		if langs[l] == 0 {
			t.Errorf("no task in %s", l)
		}
	}
	if 3*splits["test"] < len(s.Tasks) || 3*splits["dev"] < len(s.Tasks) {
		t.Errorf("splits %v: each should hold at least a third of the tasks", splits)
	}
	var threes []string
	for g, n := range members {
		if n >= 3 {
			threes = append(threes, g)
		}
	}
	if len(threes) < 12 {
		slices.Sort(threes)
		t.Errorf("%d paraphrase groups of three or more (%v), want at least 12", len(threes), threes)
	}
}

func TestInvented(t *testing.T) {
	read := func(path, data string, ok bool) agent.ToolRecord {
		res := tools.OK(data)
		if !ok {
			res = tools.Fail(tools.TypeNotFound, path+" does not exist")
		}
		return agent.ToolRecord{Name: "read_file", Arguments: json.RawMessage(`{"path":"` + path + `"}`), Result: res}
	}
	c := Checks{Invented: []string{`\b[\w.-]+\.(?:csv|md)\b`}}
	for _, tc := range []struct {
		name   string
		calls  []agent.ToolRecord
		answer string
		want   []string
	}{
		{"named in a result", []agent.ToolRecord{read("a.md", "see b.csv", true)}, "b.csv it is", nil},
		{"the file read", []agent.ToolRecord{read("data/c.csv", "1: x", true)}, "c.csv holds x", nil},
		{"a file never seen", []agent.ToolRecord{read("a.md", "x", true)}, "see d.csv", []string{"d.csv"}},
		{"a read that failed names nothing that exists", []agent.ToolRecord{read("e.csv", "", false)}, "e.csv holds 3 rows", nil},
		{"nothing read", nil, "f.md says hi", []string{"f.md"}},
		{"a phone number never seen", []agent.ToolRecord{read("a.md", "Morel: 04 74 55 12 90", true)}, "Morel: 077 888 9999", []string{"077 888 9999"}},
		{"the number read, in another format", []agent.ToolRecord{read("a.md", "Morel: 04 74 55 12 90", true)}, "Morel: +33 474551290", nil},
		{"an address the request gave", nil, "Sent to anna@example.org", nil},
		{"a date never seen", []agent.ToolRecord{read("a.md", "휴원일: 일요일", true)}, "2023년 10월 15일에 쉬어요", []string{"2023-10-15"}},
		{"the date read, in words", []agent.ToolRecord{read("a.md", "C-006,Yuki,2026-02-08", true)}, "depuis le 8 février 2026", nil},
	} {
		o := outcome{request: "Mail anna@example.org", answer: tc.answer, results: turnResults(tc.calls)}
		if got := invented(c, o); !slices.Equal(got, tc.want) {
			t.Errorf("%s: invented %q, want %q", tc.name, got, tc.want)
		}
	}
}
