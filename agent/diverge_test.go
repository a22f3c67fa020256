package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
)

func TestForks(t *testing.T) {
	step := func(text string, alts ...inference.Alt) inference.Step {
		return inference.Step{Text: text, Prob: 0.5, Alts: alts}
	}
	alt := func(text string, p float64) inference.Alt { return inference.Alt{Text: text, Prob: p} }
	steps := []inference.Step{
		step("```", alt("``", 0.9)), // the opening fence
		step("yaml\n", alt("\n", 0.8)),
		step("1", alt("2", 0.7)), // the line's number
		step(":", alt(".", 0.6)),
		step(" retries", alt(" tries", 0.1)),
		step(":", alt("=", 0.05)),
		step(" 3", alt(" 5", 0.3), alt("<|im_end|>", 0.2), alt("`", 0.15), alt("\xe4", 0.12)),
		step("\n"),
		step("```", alt("2", 0.9)), // the closing fence
	}
	got := forks(steps, []string{"<|im_end|>"})
	want := []fork{
		{"```yaml\n1: retries:", " 5", 0.3},
		{"```yaml\n1:", " tries", 0.1},
		{"```yaml\n1: retries", "=", 0.05},
	}
	if len(got) != len(want) {
		t.Fatalf("forks = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fork %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestAgentDiverge: a file written back as it was is written again from
// the model's most probable fork, then from the next when the first
// changes nothing; without a fork of divergeMin or more, or with the
// assist off, nothing is changed.
func TestAgentDiverge(t *testing.T) {
	const conf = "name: pump\nretries: 3\n"
	copied := "```yaml\n1: name: pump\n2: retries: 3\n```"
	for _, tc := range []struct {
		name    string
		diverge bool
		replies []string // intent, rewrite, [rewrites from a fork], answer
		forks   []fakeFork
		want    string
	}{
		{"from the fork", true, []string{"change", copied, "\n```", "Done."},
			[]fakeFork{{"3\n", "5", 0.3}}, "name: pump\nretries: 5\n"},
		{"the second fork", true, []string{"change", copied, "\n```", "\n```", "Done."},
			[]fakeFork{{"\n```", " ", 0.3}, {"3\n", "5", 0.25}}, "name: pump\nretries: 5\n"},
		{"a fork too improbable", true, []string{"change", copied, "No file was changed."},
			[]fakeFork{{"3\n", "5", 0.1}}, conf},
		{"no fork", true, []string{"change", copied, "No file was changed."}, nil, conf},
		{"off", false, []string{"change", copied, "No file was changed."}, []fakeFork{{"3\n", "5", 0.3}}, conf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.yaml")
			os.WriteFile(path, []byte(conf), 0o644)
			a, eng := dirAgent(t, dir, tc.replies, Options{
				ReadFirst: true, Rewrite: true, Diverge: tc.diverge, ReadAnswer: true, AnswerAfterChange: true, Answer: AnswerSeparate})
			eng.forks = map[int][]fakeFork{1: tc.forks}
			if _, err := a.Send(context.Background(), "In config.yaml the pump should try 5 times.", nil); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.want {
				t.Errorf("config.yaml = %q, want %q", b, tc.want)
			}
			if len(eng.reqs) != len(tc.replies) {
				t.Fatalf("%d completions, want %d", len(eng.reqs), len(tc.replies))
			}
			if asked := eng.reqs[1].Alternatives > 0; asked != tc.diverge {
				t.Errorf("the rewrite asked for alternatives: %v, want %v", asked, tc.diverge)
			}
		})
	}
}
