//go:build cgo

package launch

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// testEnv is an Env whose store and cache are temporary directories.
func testEnv(t *testing.T) Env {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"OFFGRID_MODELS": filepath.Join(dir, "models"), "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	return Env{Getenv: func(k string) string { return vars[k] }}
}

// A URL is pulled into the store once; the next lookup of the same URL
// finds it there without a request. A URL that cannot be fetched is
// ErrNotStored, with the command that brings the model in.
func TestLookupURL(t *testing.T) {
	var model bytes.Buffer
	if err := synth.Encode(&model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/m/tiny-model.gguf" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "tiny-model.gguf", time.Time{}, bytes.NewReader(model.Bytes()))
	}))
	defer srv.Close()
	env := testEnv(t)
	var progressed bool
	env.Progress = func(label string) (func(int64, int64), func()) {
		if !strings.HasPrefix(label, "pull ") {
			t.Errorf("progress label %q", label)
		}
		return func(done, total int64) { progressed = done > 0 }, func() {}
	}
	url := srv.URL + "/m/tiny-model.gguf"
	r, err := Lookup(t.Context(), env, url)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "tiny-model" || r.SHA256 == "" || !progressed {
		t.Fatalf("Lookup(URL) = %+v (progress %v)", r, progressed)
	}
	if b, err := os.ReadFile(r.Path); err != nil || !bytes.Equal(b, model.Bytes()) {
		t.Fatalf("stored file: %v", err)
	}
	n := hits.Load()
	again, err := Lookup(t.Context(), env, url)
	if err != nil || again != r || hits.Load() != n {
		t.Fatalf("second Lookup = %+v, %v after %d more requests; want %+v from the store", again, err, hits.Load()-n, r)
	}
	_, err = Lookup(t.Context(), env, srv.URL+"/m/missing.gguf")
	if !errors.Is(err, ErrNotStored) || !strings.Contains(err.Error(), "offgrid models pull "+srv.URL+"/m/missing.gguf") {
		t.Fatalf("Lookup(missing URL) = %v", err)
	}
	// A name neither stored, a file nor in the catalog is the store's error.
	if _, err := Lookup(t.Context(), env, "no-such-model"); err == nil || errors.Is(err, ErrNotStored) {
		t.Fatalf("Lookup(unknown name) = %v", err)
	}
}

// Settings that cannot apply name the setting, so the command line can
// name its flag.
func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		s       Settings
		setting string
	}{
		{Settings{Assist: "+no-such-assist"}, "assist"},
		{Settings{Profile: "no-such-profile"}, "profile"},
		{Settings{Profile: filepath.Join(t.TempDir(), "missing.json")}, "profile"},
		{Settings{ToolChoice: "sometimes"}, "tool-choice"},
		{Settings{Results: "verbose"}, "results"},
		{Settings{OnRepeat: "loop"}, "on-repeat"},
		{Settings{Answer: "shout"}, "answer"},
	} {
		err := tc.s.Check()
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != tc.setting {
			t.Errorf("%+v: Check() = %v, want a SettingError of %q", tc.s, err, tc.setting)
		}
	}
	if err := (Settings{Profile: "qwen2.5", Assist: "-rewrite,+find-first"}).Check(); err != nil {
		t.Errorf("valid settings: %v", err)
	}
}

// A model outside the store gets its template family's profile; a
// temperature given over a profile stays.
func TestProfileForFamily(t *testing.T) {
	env := testEnv(t)
	p, err := ProfileFor(env, Settings{}, filepath.Join(t.TempDir(), "x.gguf"), agent.ModelInfo{Architecture: "qwen2"})
	if err != nil || p.Name != "qwen2.5" {
		t.Fatalf("ProfileFor(qwen2 outside the store) = %q, %v", p.Name, err)
	}
	var o agent.Options
	o.Sampling.Temperature = 0.42
	got, err := Settings{KeepTemp: true}.Apply(o, p)
	if err != nil || got.Sampling.Temperature != 0.42 {
		t.Fatalf("KeepTemp: temperature %v, %v", got.Sampling.Temperature, err)
	}
}
