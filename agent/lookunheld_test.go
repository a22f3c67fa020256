package agent

import (
	"context"
	"strings"
	"testing"
)

// TestAgentLookUnheld: an answer written without a look at the files
// that gives a phone number nothing returned has offgrid search the
// files and read the best line's file, and the answer is written again
// from them; when the search finds no line, the answer is as before,
// the number dropped.
func TestAgentLookUnheld(t *testing.T) {
	files := map[string]string{
		"contacts/trades.md": "# Trades\n\n- Plumber: Schaller, +33 6 55 20 13 87\n- Electrician: Roth, +33 6 11 22 33 44\n",
		"README.md":          "# House notes\n",
	}
	for _, tc := range []struct {
		name    string
		replies []string // intent, the answer, [the words, the answer again]
		want    string
		calls   []string
	}{
		{"found and read", []string{"none", "The plumber is +33 6 12 34 56 78.", "plumber phone", "Schaller, +33 6 55 20 13 87."},
			"Schaller, +33 6 55 20 13 87.", []string{"grep_search", "read_file"}},
		{"no line found", []string{"none", "The plumber is +33 6 12 34 56 78.", "zzz"},
			"No matches", []string{"grep_search"}},
		{"a number nothing needs", []string{"none", "Two and a half hours are 150 minutes."},
			"150 minutes", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, files)
			eng := &fakeEngine{t: t, replies: tc.replies}
			a := searchingAgent(t, dir, reg, eng, false)
			turn, err := a.Send(context.Background(), "Quel est le numéro du plombier ?", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(turn.Content, tc.want) || strings.Contains(turn.Content, "12 34 56 78") {
				t.Errorf("answer %q, want %q and not the number nothing returned", turn.Content, tc.want)
			}
			var calls []string
			for _, c := range turn.Calls {
				calls = append(calls, c.Name)
			}
			if strings.Join(calls, " ") != strings.Join(tc.calls, " ") {
				t.Errorf("calls %q, want %q", calls, tc.calls)
			}
			if eng.calls != len(tc.replies) {
				t.Errorf("%d completions, want %d", eng.calls, len(tc.replies))
			}
		})
	}
}
