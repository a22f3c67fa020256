package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTree lays out work/repo (go.mod, bench/make.mk, pkg/sub) and
// returns work and the package directory the search starts from.
func fakeTree(t *testing.T, makeMk string) (work, pkg string) {
	t.Helper()
	work = t.TempDir()
	repo := filepath.Join(work, "repo")
	pkg = filepath.Join(repo, "pkg", "sub")
	write(t, filepath.Join(repo, "go.mod"), "module example.com/x\n")
	write(t, filepath.Join(repo, "bench", "make.mk"), makeMk)
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	return work, pkg
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bfclData writes the test files and their answers into dir.
func bfclData(t *testing.T, dir string) string {
	t.Helper()
	for _, name := range []string{BFCLSimple, BFCLMultiple} {
		write(t, filepath.Join(dir, name), "{}\n")
		write(t, filepath.Join(dir, "possible_answer", name), "{}\n")
	}
	return dir
}

const makeMk = "# bench\nBFCL_VERSION ?= 2026.3.23\nBFCL_DATA ?= x\n"

func TestFindBFCL(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, work string) (env map[string]string, want string)
		wantErr string
		noData  bool
	}{
		{"OFFGRID_BFCL wins", func(t *testing.T, work string) (map[string]string, string) {
			bfclData(t, filepath.Join(work, "shared", "bfcl"))
			d := bfclData(t, filepath.Join(work, "mine"))
			return map[string]string{"OFFGRID_BFCL": d, "HOME": work}, d
		}, "", false},
		{"OFFGRID_BFCL without answers is an error, not a skip", func(t *testing.T, work string) (map[string]string, string) {
			bfclData(t, filepath.Join(work, "shared", "bfcl"))
			d := bfclData(t, filepath.Join(work, "mine"))
			os.Remove(filepath.Join(d, "possible_answer", BFCLMultiple))
			return map[string]string{"OFFGRID_BFCL": d}, ""
		}, "OFFGRID_BFCL=", false},
		{"shared beside the repository", func(t *testing.T, work string) (map[string]string, string) {
			bfclData(t, filepath.Join(work, "cache", "offgrid", "bfcl-2026.3.23"))
			return map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache")}, bfclData(t, filepath.Join(work, "shared", "bfcl"))
		}, "", false},
		{"XDG cache", func(t *testing.T, work string) (map[string]string, string) {
			return map[string]string{"XDG_CACHE_HOME": filepath.Join(work, "cache"), "HOME": work},
				bfclData(t, filepath.Join(work, "cache", "offgrid", "bfcl-2026.3.23"))
		}, "", false},
		{"home cache", func(t *testing.T, work string) (map[string]string, string) {
			return map[string]string{"HOME": work}, bfclData(t, filepath.Join(work, ".cache", "offgrid", "bfcl-2026.3.23"))
		}, "", false},
		{"other version in the cache", func(t *testing.T, work string) (map[string]string, string) {
			bfclData(t, filepath.Join(work, ".cache", "offgrid", "bfcl-2025.1.1"))
			return map[string]string{"HOME": work}, ""
		}, "make bench-data", true},
		{"shared without the multiple answers", func(t *testing.T, work string) (map[string]string, string) {
			d := bfclData(t, filepath.Join(work, "shared", "bfcl"))
			os.Remove(filepath.Join(d, "possible_answer", BFCLMultiple))
			return map[string]string{"HOME": work}, ""
		}, "make bench-data", true},
		{"nothing, no home", func(t *testing.T, work string) (map[string]string, string) {
			return nil, ""
		}, "make bench-data", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, pkg := fakeTree(t, makeMk)
			env, want := tt.setup(t, work)
			got, err := FindBFCL(func(k string) string { return env[k] }, pkg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, ErrNoBFCL) != tt.noData {
					t.Fatalf("got %q, %v; want an error with %q (ErrNoBFCL %v)", got, err, tt.wantErr, tt.noData)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("got %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestFindBFCLBadTree(t *testing.T) {
	_, pkg := fakeTree(t, "BFCL_DATA ?= x\n")
	if _, err := FindBFCL(func(string) string { return "" }, pkg); err == nil || !strings.Contains(err.Error(), "BFCL_VERSION") {
		t.Errorf("make.mk without a version: %v", err)
	}
	if _, err := FindBFCL(func(string) string { return "" }, t.TempDir()); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("outside a module: %v", err)
	}
}

// TestRealMakeMk reads this repository's bench/make.mk: the version is
// where the cache path needs it.
func TestRealMakeMk(t *testing.T) {
	wd, _ := os.Getwd()
	root, err := repoRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bfclCache(func(k string) string { return map[string]string{"HOME": "/h"}[k] }, root)
	if err != nil || !strings.HasPrefix(got, "/h/.cache/offgrid/bfcl-2") {
		t.Errorf("cache dir %q, %v", got, err)
	}
}

// recorder notes how a test was ended instead of ending it.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = format }
func (r *recorder) Skipf(format string, a ...any)  { r.skip = format }

func TestMissing(t *testing.T) {
	for _, tt := range []struct {
		ci          string
		fatal, skip bool
	}{{"true", true, false}, {"1", true, false}, {"", false, true}, {"false", false, true}} {
		t.Setenv("CI", tt.ci)
		r := &recorder{TB: t}
		Missing(r, "no %s", "data")
		if (r.fatal != "") != tt.fatal || (r.skip != "") != tt.skip {
			t.Errorf("CI=%q: fatal %q, skip %q", tt.ci, r.fatal, r.skip)
		}
	}
}
