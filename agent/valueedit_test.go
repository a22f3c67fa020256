package agent

import (
	"slices"
	"strings"
	"testing"
)

// TestAgentValueEdit: a change that writes a number, which the rewrite
// left undone, is made at the line the model chooses among the file's
// lines with the number set; a request without a number a line could
// take asks no choice.
func TestAgentValueEdit(t *testing.T) {
	const conf = "shop:\n  lead_hours: 48\n  retries: 3\n"
	copied := "```\n1: shop:\n2:   lead_hours: 48\n3:   retries: 3\n```"
	for _, tc := range []struct {
		name, request string
		replies       []string // intent, rewrite, [line], answer
		want          string   // conf.yaml afterwards
		asked         bool     // the model chose among lines
	}{
		{"one number", "In conf.yaml, leve o prazo para 72 horas.",
			[]string{"change", copied, "lead_hours: 72", "Done."}, "shop:\n  lead_hours: 72\n  retries: 3\n", true},
		{"old and new", "In conf.yaml die Wiederholungen von 3 auf 5, bitte.",
			[]string{"change", copied, "retries: 5", "Done."}, "shop:\n  lead_hours: 48\n  retries: 5\n", true},
		{"the rewrite unreadable", "In conf.yaml, leve o prazo para 72 horas.",
			[]string{"change", "```\n1: shop:\nlead_hours\n```", "lead_hours: 72", "Done."}, "shop:\n  lead_hours: 72\n  retries: 3\n", true},
		{"no number", "Tidy up conf.yaml, please.",
			[]string{"change", copied, "I could not."}, conf, false},
		{"the number there already", "Set retries in conf.yaml to 3.",
			[]string{"change", copied, "It is 3 already."}, conf, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := editTurn(t, "conf.yaml", conf, tc.request, tc.replies, tc.want, Options{ValueEdit: true})
			asked := slices.ContainsFunc(eng.prompts, func(p string) bool { return strings.Contains(p, "sets a number") })
			if asked != tc.asked {
				t.Errorf("a choice asked: %v, want %v", asked, tc.asked)
			}
		})
	}
}

func TestValueLines(t *testing.T) {
	all := []string{"version: 3", "timeout: 15 # seconds", "pin: 17", "id: P-104", "date: 2026-07-09", "ratio: 1.5"}
	for _, tc := range []struct {
		request string
		near    int
		want    []string
	}{
		{"timeout 30, not 15", 0, []string{"timeout: 30 # seconds"}},
		{"poner a 20", 3, []string{"pin: 20", "timeout: 20 # seconds", "version: 20", "ratio: 20"}},
		{"the ratio should be 2,5", 0, []string{"version: 2.5", "timeout: 2.5 # seconds", "pin: 2.5", "ratio: 2.5"}},
		{"P-104 and 2026-07-09", 0, nil},
		{"把 version 改成 4", 0, []string{"version: 4", "timeout: 4 # seconds", "pin: 4", "ratio: 4"}},
		{"set it to 3", 0, nil}, // version: 3 is there already
	} {
		var got []string
		for _, v := range valueLines(all, tc.request, tc.near) {
			got = append(got, v.text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("valueLines(%q, %d) = %q, want %q", tc.request, tc.near, got, tc.want)
		}
	}
}
