package bench

import (
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/curator"
)

// TestCuratorCases: the suite is what it says: ten files, answers deep,
// deterministic.
func TestCuratorCases(t *testing.T) {
	cs, again := CuratorCases(), CuratorCases()
	if len(cs) != 10 {
		t.Fatalf("%d cases", len(cs))
	}
	for i, c := range cs {
		lines := strings.Split(strings.TrimSuffix(c.Text, "\n"), "\n")
		if len(lines) < 1500 || c.Answer <= 1000 || c.Answer > len(lines) {
			t.Errorf("%s: %d lines, answer on line %d", c.Name, len(lines), c.Answer)
		}
		if c.Text != again[i].Text {
			t.Errorf("%s: not deterministic", c.Name)
		}
	}
}

// TestRunCurator: with no chooser, the ranked curator's best section holds
// the answers a plain head never shows (nine of ten at least), and
// repeats come from the cache.
func TestRunCurator(t *testing.T) {
	rows, err := RunCurator(t.Context(), CuratorCases(), []NamedCurator{{"ranked", curator.New(curator.Options{Picks: 1})}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, r := range rows {
		if r.Found {
			found[r.Method]++
		}
		if r.Method == "ranked" && r.Error != "" {
			t.Errorf("%s: %s", r.Case, r.Error)
		}
	}
	if found["head"] != 0 || found["ranked"] < 9 {
		t.Fatalf("found: %v", found)
	}
	var b strings.Builder
	if err := WriteCuratorTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
}
