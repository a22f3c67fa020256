package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgentEditLine: a change the model's rewrite left undone is made as
// the one line edit it chooses, at a line that holds a name the request
// holds: a line deleted, changed, or lines added after one (what it
// copied of the lines around left out). Choosing no change, writing the
// line as it was, or a request that names nothing a line holds, changes
// nothing and the model answers.
func TestAgentEditLine(t *testing.T) {
	const notes = "Buy milk\nCall Bob\nShip it\n"
	copied := "```\n1: Buy milk\n2: Call Bob\n3: Ship it\n```"
	for _, tc := range []struct {
		name, request string
		replies       []string // intent, rewrite, [line], edit, [line(s)], answer
		want          string   // notes.txt afterwards
		chose         bool     // the model chose the line
	}{
		{"deleted", "In notes.txt, Bob moved away: drop him.",
			[]string{"change", copied, "delete it", "Done."}, "Buy milk\nShip it\n", false},
		{"changed", "In notes.txt, the Milk is oat milk now.",
			[]string{"change", copied, "change it", "```\n1: Buy oat milk\n```", "Done."}, "Buy oat milk\nCall Bob\nShip it\n", false},
		{"added", "Note in notes.txt that we must call Ann after Bob.",
			[]string{"change", copied, "add new lines after it", "```\n2: Call Bob\n3: Call Ann\n4: Ship it\n```", "Done."}, "Buy milk\nCall Bob\nCall Ann\nShip it\n", false},
		{"the line chosen", "In notes.txt, about Bob and the Milk: Bob moved away.",
			[]string{"change", copied, "Call Bob", "delete it", "Done."}, "Buy milk\nShip it\n", true},
		{"no change", "Does notes.txt say to call Bob?",
			[]string{"change", copied, "no change", "Yes."}, notes, false},
		{"the line as it was", "In notes.txt, the Milk is oat milk now.",
			[]string{"change", copied, "change it", "```\n1: Buy milk\n```", "I could not."}, notes, false},
		{"no line named", "Tidy up notes.txt, please.",
			[]string{"change", copied, "I could not."}, notes, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := editTurn(t, "notes.txt", notes, tc.request, tc.replies, tc.want, Options{EditLine: true})
			if chose := slices.ContainsFunc(eng.prompts, func(p string) bool { return strings.Contains(p, "Copy the one line") }); chose != tc.chose {
				t.Errorf("the model chose the line: %v, want %v", chose, tc.chose)
			}
		})
	}
}

// editTurn runs one turn of an agent that reads the file name (holding
// content) in a temporary folder and rewrites it, with the options of
// opts added, on the model's replies; it checks that the file then holds
// want and that every reply was used, and returns the engine.
func editTurn(t *testing.T, name, content, request string, replies []string, want string, opts Options) *fakeEngine {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	os.WriteFile(path, []byte(content), 0o644)
	opts.ReadFirst, opts.Rewrite, opts.ReadAnswer, opts.AnswerAfterChange, opts.Answer = true, true, true, true, AnswerSeparate
	a, eng := dirAgent(t, dir, replies, opts)
	if _, err := a.Send(context.Background(), request, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("%s = %q, want %q", name, b, want)
	}
	if len(eng.prompts) != len(replies) {
		t.Fatalf("%d completions, want %d", len(eng.prompts), len(replies))
	}
	return eng
}

func TestNamedLines(t *testing.T) {
	all := []string{"## [Unreleased]", "### Added", "- CSV export", "", "## [1.4.2] - 2024-06-10", "### Fixed", "- Vents stall."}
	for _, tc := range []struct {
		request string
		want    []int
	}{
		{"CHANGELOG の 1.4.2 の Fixed に追加して", []int{5, 6}},
		{"Note under Unreleased that we added a flag.", []int{1}},
		{"note that we added a flag", nil},
	} {
		if got := namedLines(all, tc.request); !slices.Equal(got, tc.want) {
			t.Errorf("namedLines(%q) = %v, want %v", tc.request, got, tc.want)
		}
	}
}

func TestLineChoices(t *testing.T) {
	all := []string{"## Fixed", "- a", "", "## Fixed", "  - b"}
	choices, at := lineChoices(all, []int{4, 1, 5})
	want := []string{"## Fixed (line 4)", "## Fixed (line 1)", "- b"}
	if !slices.Equal(choices, want) || at["## Fixed (line 4)"] != 4 || at["- b"] != 5 {
		t.Errorf("lineChoices = %q, %v; want %q", choices, at, want)
	}
}
