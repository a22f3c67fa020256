package bench

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestAgentCSV(t *testing.T) {
	shown := false
	runs := []AgentRun{{Model: "m", Profile: "plain", Mode: "auto", Grammar: "on", Results: "compact", Seed: 1,
		Tasks: []TaskResult{{ID: "a", Category: "reading", Lang: "fr", Need: "read", Pass: true, Copied: true, AnswerShown: &shown, Rounds: 2, Calls: []CallRecord{{Name: "ls"}}, Seconds: 1.5},
			{ID: "b", Category: "writing", Error: `no "x", sorry`}}}}
	var buf bytes.Buffer
	if err := WriteAgentCSV(&buf, runs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][6] != "a" || rows[1][9] != "fr" || rows[1][11] != "true" || rows[1][14] != "1" || rows[1][18] != "1.500" || rows[2][19] != `no "x", sorry` || rows[1][21] != "true" || rows[1][22] != "false" || rows[2][22] != "" || rows[1][23] != "read" || rows[2][23] != "" {
		t.Errorf("rows %q", rows)
	}
	for _, r := range rows {
		if len(r) != len(rows[0]) {
			t.Errorf("row %q: %d cells, header %d", r, len(r), len(rows[0]))
		}
	}
}

func TestBFCLCSV(t *testing.T) {
	runs := []Run{{Runner: "offgrid", Model: "m", Grammar: "on", Cases: []CaseResult{{ID: "simple_0", Category: "simple", ParseValid: true}}}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, runs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][5] != "simple_0" || rows[1][7] != "true" || len(rows[1]) != len(rows[0]) {
		t.Errorf("rows %q (%v)", rows, err)
	}
}
