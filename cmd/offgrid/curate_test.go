package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/curator"
	"github.com/offgrid-ai/offgrid/inference"
)

// TestCuratorModel: the default model, asked as --curator model asks it,
// makes a choice the curator can use (a grammar-valid list of sections),
// and the repeated read is answered from the disk cache by a new session.
func TestCuratorModel(t *testing.T) {
	// Parallel with TestRunMCPDefaultModel, after the package's serial tests: by
	// then the agent package's tests may have left the second core idle.
	// (The terminal tests stay serial: they wait on the clock.)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the default-model run")
	}
	var out bytes.Buffer
	env, _ := runEnv(t, "", &out)
	path, err := resolveModel(context.Background(), env, "")
	if err != nil {
		t.Fatalf("the default model is not installed (%v): run 'make model'", err)
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cache := t.TempDir()
	sc := &sessionCurator{cacheDir: cache, threads: 1, useModel: true}
	cm := sc.use(m, path, "")
	defer cm.Close()
	c := bench.CuratorCases()[2] // the application log
	s, err := sc.Curate(t.Context(), c.Question, c.File, c.Text)
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != curator.MethodChooser || s.Err != nil || len(s.Ranges) == 0 || s.Cached {
		t.Fatalf("selection %+v (err %v), want the model's choice", s, s.Err)
	}
	t.Logf("%s: %v (answer on line %d)", c.Question, s.Ranges, c.Answer)

	sc2 := &sessionCurator{cacheDir: cache, threads: 1, useModel: true}
	cm2 := sc2.use(m, path, "")
	defer cm2.Close()
	again, err := sc2.Curate(t.Context(), c.Question, c.File, c.Text)
	if err != nil || !again.Cached || len(again.Ranges) != len(s.Ranges) || again.Ranges[0] != s.Ranges[0] {
		t.Fatalf("repeated read: %+v, %v; want the cached %v", again, err, s.Ranges)
	}
	if cm2.ctx != nil {
		t.Fatal("the repeated read ran the model")
	}
}
