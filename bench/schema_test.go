package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResultsSchema: what offgrid writes is what its schemas describe,
// and a file that is not is refused on reading with the schema's reason.
func TestResultsSchema(t *testing.T) {
	dir := t.TempDir()
	agent := &AgentResults{Version: ResultsVersion, Created: time.Now().UTC(), Suite: "general", Runs: []AgentRun{{
		Model: "m", Profile: "plain", Mode: "auto", Grammar: "on", Results: "compact", Seed: 1, Seconds: 2,
		Tasks: []TaskResult{{ID: "a", Category: "reading", Split: "dev", Lang: "fr", Pass: true, Answer: "ok", Rounds: 1, Seconds: 1,
			Calls: []CallRecord{{Name: "read_file", Arguments: []byte(`{"path":"a.txt"}`), OK: true, Result: "1: x", ByAgent: true}}}},
	}}}
	if err := WriteAgentReports(dir, agent, "offgrid bench agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAgentResults(filepath.Join(dir, "results.json")); err != nil {
		t.Errorf("offgrid's own agent results: %v", err)
	}
	bfcl := &Results{Version: ResultsVersion, Created: time.Now().UTC(), Runs: []Run{{Runner: "offgrid", Model: "m", Grammar: "on", ToolFormat: "hermes",
		Cases: []CaseResult{{ID: "simple_0", Category: "simple", Raw: "x", Calls: []Call{{Name: "f", Arguments: []byte(`{}`)}}, ParseValid: true}}}}}
	if err := WriteResults(filepath.Join(dir, "bfcl.json"), bfcl); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResults(filepath.Join(dir, "bfcl.json")); err != nil {
		t.Errorf("offgrid's own BFCL results: %v", err)
	}
	for name, body := range map[string]string{
		"grammar maybe": `{"version":1,"created":"2026-11-25T00:00:00Z","suite":"s","runs":[{"model":"m","mode":"auto","grammar":"maybe","results":"compact","seed":1,"seconds":1,"tasks":[]}]}`,
		"task sans pass": `{"version":1,"created":"2026-11-25T00:00:00Z","suite":"s","runs":[{"model":"m","mode":"auto","grammar":"on","results":"compact","seed":1,"seconds":1,
			"tasks":[{"id":"a","category":"c","answer":"","calls":[],"rounds":0,"invalid_calls":0,"prompt_tokens_decoded":0,"generated_tokens":0,"seconds":0}]}]}`,
		"bad date": `{"version":1,"created":"yesterday","suite":"s","runs":[]}`,
	} {
		p := filepath.Join(dir, "bad.json")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadAgentResults(p); !errors.Is(err, ErrResults) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := filepath.Join(dir, "bad-bfcl.json")
	os.WriteFile(p, []byte(`{"version":1,"created":"2026-11-25T00:00:00Z","runs":[{"runner":"x","model":"m","grammar":"on","cases":[{"id":"","category":"simple","raw":"","calls":[]}]}]}`), 0o644)
	if _, err := ReadResults(p); !errors.Is(err, ErrResults) || !strings.Contains(err.Error(), "minLength") && !strings.Contains(err.Error(), "length") {
		t.Errorf("a case without an id: %v", err)
	}
}
