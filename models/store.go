package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// DefaultRef is the model reference that means "the default model".
const DefaultRef = "default"

// Errors callers branch on.
var (
	ErrNotFound    = errors.New("model not found")
	ErrNoDefault   = errors.New("no default model")
	ErrInvalidName = errors.New("invalid model name")
	ErrExists      = errors.New("model already exists")
	ErrChecksum    = errors.New("SHA-256 mismatch")
	ErrNotGGUF     = errors.New("not a GGUF file")
)

// Manifest describes one stored model.
type Manifest struct {
	Name   string    `json:"name"`
	File   string    `json:"file"`   // GGUF file name inside the store
	SHA256 string    `json:"sha256"` // hex SHA-256 of the GGUF
	Size   int64     `json:"size"`   // bytes
	Source string    `json:"source"` // URL, path or package it came from
	Added  time.Time `json:"added"`
}

// Store is a directory of named GGUF models. The zero value is not usable;
// call NewStore.
type Store struct {
	dir string
}

// NewStore returns the store in dir. The directory is created on the first
// write, so a store that was never written to lists no models.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Path returns where the GGUF of the named model lives (or would live).
func (s *Store) Path(name string) string { return filepath.Join(s.dir, name+".gguf") }

func (s *Store) manifestPath(name string) string { return filepath.Join(s.dir, name+".json") }

// Get returns the manifest of the named model.
func (s *Store) Get(name string) (Manifest, error) {
	if err := ValidName(name); err != nil {
		return Manifest{}, err
	}
	data, err := os.ReadFile(s.manifestPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%w: %q in %s", ErrNotFound, name, s.dir)
	}
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("models: manifest of %q: %w", name, err)
	}
	if m.Name != name || m.File != name+".gguf" {
		return Manifest{}, fmt.Errorf("models: manifest %s names %q/%q, not %q", s.manifestPath(name), m.Name, m.File, name)
	}
	if _, err := os.Stat(s.Path(name)); err != nil {
		return Manifest{}, fmt.Errorf("%w: %q has a manifest but no GGUF file (%v); remove it with 'offgrid models rm %s'", ErrNotFound, name, err, name)
	}
	return m, nil
}

// List returns the manifests of all stored models, sorted by name.
func (s *Store) List() ([]Manifest, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Manifest
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || ValidName(name) != nil {
			continue
		}
		m, err := s.Get(name)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Default returns the manifest of the default model.
func (s *Store) Default() (Manifest, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, DefaultRef))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%w in %s (run 'make model', or 'offgrid models pull URL')", ErrNoDefault, s.dir)
	}
	if err != nil {
		return Manifest{}, err
	}
	name := strings.TrimSpace(string(data))
	m, err := s.Get(name)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: the default points at %q: %w", ErrNoDefault, name, err)
	}
	return m, nil
}

// SetDefault makes the named model the default.
func (s *Store) SetDefault(name string) error {
	if _, err := s.Get(name); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.dir, DefaultRef), []byte(name+"\n"))
}

// Remove deletes the named model. Removing the default model also clears
// the default.
func (s *Store) Remove(name string) error {
	if _, err := s.Get(name); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if _, err := os.Stat(s.manifestPath(name)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q in %s", ErrNotFound, name, s.dir)
	}
	if d, err := os.ReadFile(filepath.Join(s.dir, DefaultRef)); err == nil && strings.TrimSpace(string(d)) == name {
		if err := os.Remove(filepath.Join(s.dir, DefaultRef)); err != nil {
			return err
		}
	}
	// The manifest goes first: a model without a manifest is invisible,
	// a manifest without its model would be listed.
	if err := os.Remove(s.manifestPath(name)); err != nil {
		return err
	}
	if err := os.Remove(s.Path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	atomicfile.SyncDir(s.dir)
	return nil
}

// Verify re-hashes the named model and checks it against its manifest.
// The error wraps ErrChecksum when the bytes changed.
func (s *Store) Verify(ctx context.Context, name string) (Manifest, error) {
	m, err := s.Get(name)
	if err != nil {
		return Manifest{}, err
	}
	sum, size, err := HashFile(ctx, s.Path(name))
	if err != nil {
		return m, err
	}
	if size != m.Size {
		return m, fmt.Errorf("%w: %s is %d bytes, the manifest says %d", ErrChecksum, s.Path(name), size, m.Size)
	}
	if sum != m.SHA256 {
		return m, fmt.Errorf("%w: %s hashes to %s, the manifest says %s", ErrChecksum, s.Path(name), sum, m.SHA256)
	}
	return m, nil
}

// Resolve turns a model reference into the path of a GGUF file. A
// reference is "default" or "" (the store's default), a path (it contains a
// path separator or ends in .gguf), or a store name. A name that is not in
// the store but names an existing file is taken as a path.
func (s *Store) Resolve(ref string) (string, error) {
	if ref == "" || ref == DefaultRef {
		m, err := s.Default()
		if err != nil {
			return "", err
		}
		return s.Path(m.Name), nil
	}
	if looksLikePath(ref) {
		return existingFile(ref)
	}
	if ValidName(ref) == nil {
		_, err := s.Get(ref)
		if err == nil {
			return s.Path(ref), nil
		}
		if !errors.Is(err, ErrNotFound) {
			return "", err
		}
		if p, ferr := existingFile(ref); ferr == nil {
			return p, nil
		}
		return "", s.notFound(ref)
	}
	if p, err := existingFile(ref); err == nil {
		return p, nil
	}
	return "", s.notFound(ref)
}

func (s *Store) notFound(ref string) error {
	list, _ := s.List()
	if len(list) == 0 {
		return fmt.Errorf("%w: %q is neither a file nor a model in %s, which is empty", ErrNotFound, ref, s.dir)
	}
	names := make([]string, len(list))
	for i, m := range list {
		names[i] = m.Name
	}
	return fmt.Errorf("%w: %q is neither a file nor a model in %s (models: %s)", ErrNotFound, ref, s.dir, strings.Join(names, ", "))
}

func looksLikePath(ref string) bool {
	return strings.ContainsAny(ref, `/`+string(filepath.Separator)) ||
		strings.HasSuffix(strings.ToLower(ref), ".gguf") || strings.HasPrefix(ref, ".")
}

func existingFile(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%w: %s is a directory", ErrNotFound, p)
	}
	return filepath.Abs(p)
}

// Import copies a local GGUF file into the store under name, hashing it on
// the way. With wantSHA256 set the copy must hash to it.
func (s *Store) Import(ctx context.Context, name, src, wantSHA256 string) (Manifest, error) {
	if err := ValidName(name); err != nil {
		return Manifest{}, err
	}
	if err := s.checkFree(name, wantSHA256); err != nil {
		return Manifest{}, err
	}
	in, err := os.Open(src)
	if err != nil {
		return Manifest{}, err
	}
	defer in.Close()
	source, _ := filepath.Abs(src)
	return s.importFrom(ctx, name, source, in, wantSHA256)
}

// importFrom streams r into the store under name, hashing it on the way,
// and installs it if it hashes to wantSHA256 (when set).
func (s *Store) importFrom(ctx context.Context, name, source string, r io.Reader, wantSHA256 string) (Manifest, error) {
	tmp, err := s.createTemp()
	if err != nil {
		return Manifest{}, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := copyCtx(ctx, io.MultiWriter(tmp, h), r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("models: import %s: %w", source, err)
	}
	m := Manifest{Name: name, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n, Source: source}
	if err := s.install(tmp.Name(), m, wantSHA256); err != nil {
		return Manifest{}, err
	}
	return s.Get(name)
}

// checkFree fails with ErrExists when name is taken by a model that is not
// the one wanted (same SHA-256).
func (s *Store) checkFree(name, wantSHA256 string) error {
	m, err := s.Get(name)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if wantSHA256 != "" && strings.EqualFold(m.SHA256, wantSHA256) {
		return nil
	}
	return fmt.Errorf("%w: %q (remove it with 'offgrid models rm %s' or pick another --name)", ErrExists, name, name)
}

// createTemp creates a temporary file in the store directory, creating the
// directory if needed, so that install can rename it.
func (s *Store) createTemp() (*os.File, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("models: create store: %w", err)
	}
	return os.CreateTemp(s.dir, ".tmp-*.gguf")
}

// install checks the complete, synced file at tmp (in the store directory)
// and renames it into place with its manifest. m must carry the hash and
// size measured while writing tmp.
func (s *Store) install(tmp string, m Manifest, wantSHA256 string) error {
	if wantSHA256 != "" && !strings.EqualFold(m.SHA256, wantSHA256) {
		return fmt.Errorf("%w: got %s, want %s", ErrChecksum, m.SHA256, strings.ToLower(wantSHA256))
	}
	if err := CheckGGUF(tmp); err != nil {
		return err
	}
	m.File = m.Name + ".gguf"
	if m.Added.IsZero() {
		m.Added = time.Now().UTC().Truncate(time.Second)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	// Model first, manifest second: the manifest is what makes a model
	// visible, so a crash in between leaves nothing half-listed.
	if err := os.Rename(tmp, s.Path(m.Name)); err != nil {
		return fmt.Errorf("models: install %q: %w", m.Name, err)
	}
	if err := writeFileAtomic(s.manifestPath(m.Name), append(data, '\n')); err != nil {
		return fmt.Errorf("models: install %q: %w", m.Name, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, DefaultRef)); errors.Is(err, fs.ErrNotExist) {
		return s.SetDefault(m.Name)
	}
	return nil
}
