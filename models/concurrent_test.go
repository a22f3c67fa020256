package models

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/inference/promptcache"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// runChild, when set, makes TestConcurrentRuns one of the runs: it reads
// its setup (a concurrentSetup) from the variable and prints a
// concurrentReport.
const runChild = "OFFGRID_TEST_CONCURRENT_RUN"

type concurrentSetup struct {
	Store, Cache, Source string
	SHA256               string
}

type concurrentReport struct {
	Rounds, Hits int
	Errors       []string
}

// cacheLayout is the prompt cache layout the runs share.
const cacheLayout = "test layout"

// cacheEntry is the prefix and state of the i-th shared prompt cache
// entry: every run saves the same state for the same prefix.
func cacheEntry(i int) ([]inference.Token, []byte) {
	prefix := make([]inference.Token, 64)
	for j := range prefix {
		prefix[j] = inference.Token(i*100 + j)
	}
	return prefix, bytes.Repeat([]byte{byte('a' + i)}, 1<<20)
}

// TestConcurrentRuns: two processes using one model store and one prompt
// cache at once (listing, resolving the default, verifying and importing
// the same model again, as a second pull does; saving, loading and
// evicting the same cache entries) meet no error and leave both intact:
// every model verifies, every cache entry loads whole, and no temporary
// file is left.
func TestConcurrentRuns(t *testing.T) {
	if v := os.Getenv(runChild); v != "" {
		var s concurrentSetup
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			panic(err)
		}
		b, _ := json.Marshal(concurrentRun(s, 800*time.Millisecond))
		os.Stdout.Write(append([]byte("\n"), append(b, '\n')...))
		os.Exit(0)
	}
	dir := t.TempDir()
	setup := concurrentSetup{Store: filepath.Join(dir, "models"), Cache: filepath.Join(dir, "prompts"), Source: filepath.Join(dir, "tiny.gguf")}
	if err := synth.Write(setup.Source, synth.Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	st := NewStore(setup.Store)
	for _, name := range []string{"tiny", "shared"} {
		m, err := st.Import(context.Background(), name, setup.Source, "")
		if err != nil {
			t.Fatal(err)
		}
		setup.SHA256 = m.SHA256
	}
	if err := st.SetDefault("tiny"); err != nil {
		t.Fatal(err)
	}
	env, _ := json.Marshal(setup)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentRuns$")
		cmd.Env = append(os.Environ(), runChild+"="+string(env))
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, outs[i])
		}
		out := bytes.TrimRight(outs[i].Bytes(), "\n")
		var r concurrentReport
		if err := json.Unmarshal(out[bytes.LastIndexByte(out, '\n')+1:], &r); err != nil {
			t.Fatalf("run %d printed %q: %v", i, out, err)
		}
		t.Logf("run %d: %d rounds, %d cache hits", i, r.Rounds, r.Hits)
		if r.Rounds == 0 {
			t.Errorf("run %d did nothing", i)
		}
		for _, e := range r.Errors {
			t.Errorf("run %d: %s", i, e)
		}
	}
	// Both are intact afterwards.
	if r := concurrentRun(setup, 0); len(r.Errors) > 0 {
		t.Errorf("after the runs: %s", strings.Join(r.Errors, "; "))
	}
	for _, d := range []string{setup.Store, setup.Cache} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if atomicfile.IsTempName(e.Name()) || strings.HasPrefix(e.Name(), ".tmp-") {
				t.Errorf("%s left in %s", e.Name(), d)
			}
		}
	}
}

// concurrentRun is one run of TestConcurrentRuns: for d (at least one
// round), it goes through the store and the prompt cache and reports
// every error and inconsistency met.
func concurrentRun(s concurrentSetup, d time.Duration) concurrentReport {
	var r concurrentReport
	fail := func(format string, args ...any) { r.Errors = append(r.Errors, fmt.Sprintf(format, args...)) }
	st := NewStore(s.Store)
	cache := promptcache.New(s.Cache, s.SHA256, promptcache.Options{MaxBytes: 4 << 20, Warn: func(err error) { fail("prompt cache: %v", err) }})
	ctx := context.Background()
	for end := time.Now().Add(d); r.Rounds == 0 || time.Now().Before(end); r.Rounds++ {
		list, err := st.List()
		if err != nil || len(list) != 2 || list[0].Name != "shared" || list[1].Name != "tiny" {
			fail("list: %v, %+v", err, list)
		}
		if p, err := st.Resolve(DefaultRef); err != nil || p != st.Path("tiny") {
			fail("resolve the default: %q, %v", p, err)
		}
		for _, name := range []string{"tiny", "shared"} {
			if _, err := st.Verify(ctx, name); err != nil {
				fail("verify %s: %v", name, err)
			}
		}
		if r.Rounds%4 == 0 && d > 0 {
			// A second pull of a model already there (same hash).
			if _, err := st.Import(ctx, "shared", s.Source, s.SHA256); err != nil {
				fail("import again: %v", err)
			}
		}
		for i := range 6 {
			prefix, state := cacheEntry(i)
			got, ok := cache.Load(cacheLayout, prefix)
			switch {
			case ok && !bytes.Equal(got, state):
				fail("cache entry %d: %d bytes, not the state saved", i, len(got))
			case ok:
				r.Hits++
			case d > 0:
				cache.Save(cacheLayout, prefix, state)
			}
		}
	}
	return r
}
