package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The BFCL question files the tests read. Each has its possible answers
// in possible_answer/ under the same name. Both the shared copy beside the
// repository and the official data `make bench-data` extracts have them.
const (
	BFCLSimple   = "BFCL_v4_simple_python.json" // 400 cases
	BFCLMultiple = "BFCL_v4_multiple.json"      // 200 cases
)

// ErrNoBFCL is wrapped by FindBFCL's error when no BFCL data is found.
var ErrNoBFCL = errors.New("no BFCL data")

// CI reports whether the tests run under CI (CI=true, as CI services set it).
func CI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Missing ends the test for want of something it needs: a failure under
// CI, where everything must be there, and a skip elsewhere.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf(format, args...)
		return
	}
	t.Skipf(format+" (a failure under CI=true)", args...)
}

// python is the path of the python3 interpreter itself, found once.
var python = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("python3: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// Python returns the path of the python3 interpreter, for tests whose
// servers are Python scripts. It is the interpreter itself, not a shim
// in front of it (as pyenv's, which takes longer to start than the
// interpreter: too long for a test of timeouts on a loaded machine).
// Without python3 the test is Missing.
func Python(t testing.TB) string {
	t.Helper()
	p, err := python()
	if err != nil || p == "" {
		Missing(t, "no python3 interpreter: %v", err)
	}
	return p
}

// BFCLDir returns the BFCL data directory, as FindBFCL finds it from the
// working directory. Without data the test is Missing. It fails outright
// when OFFGRID_BFCL names a directory without the data.
func BFCLDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := FindBFCL(os.Getenv, wd)
	switch {
	case errors.Is(err, ErrNoBFCL):
		Missing(t, "%v", err)
	case err != nil:
		t.Fatal(err)
	}
	return dir
}

// BFCLFiles returns the paths of BFCLSimple and BFCLMultiple (600 cases)
// in BFCLDir.
func BFCLFiles(t testing.TB) []string {
	t.Helper()
	dir := BFCLDir(t)
	return []string{filepath.Join(dir, BFCLSimple), filepath.Join(dir, BFCLMultiple)}
}

// FindBFCL returns the first directory that holds the BFCL test files:
// $OFFGRID_BFCL if set (an error if it lacks them), else ../shared/bfcl
// beside the repository that contains dir, else the cache `make
// bench-data` fills ($XDG_CACHE_HOME or ~/.cache, then
// offgrid/bfcl-$(BFCL_VERSION), the version read from bench/make.mk).
func FindBFCL(getenv func(string) string, dir string) (string, error) {
	if d := getenv("OFFGRID_BFCL"); d != "" {
		if err := hasBFCL(d); err != nil {
			return "", fmt.Errorf("OFFGRID_BFCL=%s: %w", d, err)
		}
		return d, nil
	}
	root, err := repoRoot(dir)
	if err != nil {
		return "", err
	}
	tried := []string{filepath.Join(filepath.Dir(root), "shared", "bfcl")}
	if cache, err := bfclCache(getenv, root); err != nil {
		return "", err
	} else if cache != "" {
		tried = append(tried, cache)
	}
	for _, d := range tried {
		if hasBFCL(d) == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w in %q: run `make bench-data` (or `make test`, which runs it), or set OFFGRID_BFCL", ErrNoBFCL, tried)
}

// hasBFCL checks that dir holds the test files and their answers.
func hasBFCL(dir string) error {
	for _, name := range []string{BFCLSimple, BFCLMultiple} {
		for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, "possible_answer", name)} {
			if _, err := os.Stat(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// repoRoot is the nearest directory at or above dir with a go.mod.
func repoRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("testenv: no go.mod at or above %s", dir)
		}
		d = up
	}
}

// bfclCache is where `make bench-data` puts the data, "" when there is no
// cache directory.
func bfclCache(getenv func(string) string, root string) (string, error) {
	mk := filepath.Join(root, "bench", "make.mk")
	data, err := os.ReadFile(mk)
	if err != nil {
		return "", fmt.Errorf("testenv: %w", err)
	}
	var version string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) == 3 && string(f[0]) == "BFCL_VERSION" && string(f[1]) == "?=" {
			version = string(f[2])
		}
	}
	if version == "" {
		return "", fmt.Errorf("testenv: %s: no BFCL_VERSION ?= line", mk)
	}
	cache := getenv("XDG_CACHE_HOME")
	if cache == "" {
		home := getenv("HOME")
		if home == "" {
			return "", nil
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "offgrid", "bfcl-"+version), nil
}
