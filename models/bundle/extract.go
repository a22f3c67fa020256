package bundle

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
	"runtime"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// probeSpan is how much of each end of an extracted model the warm-start
// check hashes.
const probeSpan = 1 << 20

// sidecar is written next to an extracted model once its full hash has been
// checked, so later starts can trust the file after hashing only its ends.
type sidecar struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Probe  string `json:"probe"` // SHA-256 of the size, the first and the last MiB
}

// CachePath is where Extract puts the model of info under dir.
func CachePath(dir string, info Info) string { return filepath.Join(dir, info.SHA256+".gguf") }

func sidecarPath(dir string, info Info) string { return filepath.Join(dir, info.SHA256+".json") }

// Cached reports whether dir holds the model of info, checked cheaply: the
// size, and a hash of its first and last MiB against the record written
// when it was extracted and verified.
func Cached(dir string, info Info) bool {
	p := CachePath(dir, info)
	fi, err := os.Stat(p)
	if err != nil || fi.Size() != info.Size {
		return false
	}
	b, err := os.ReadFile(sidecarPath(dir, info))
	if err != nil {
		return false
	}
	var sc sidecar
	if json.Unmarshal(b, &sc) != nil || sc.SHA256 != info.SHA256 || sc.Size != info.Size {
		return false
	}
	probe, err := probeFile(p, info.Size)
	return err == nil && probe == sc.Probe
}

// probeFile hashes the size and the first and last probeSpan bytes.
func probeFile(path string, size int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", size)
	head := min(size, probeSpan)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, head)); err != nil {
		return "", err
	}
	tail := max(head, size-probeSpan)
	if _, err := io.Copy(h, io.NewSectionReader(f, tail, size-tail)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Extract returns the path of the model that the bundle at path carries,
// as a file in dir named after its SHA-256. The first call decompresses
// the payload into a temporary file in dir, checks its size and SHA-256
// and renames it into place; later calls find it with Cached. A damaged
// payload yields an error wrapping ErrCorrupt and leaves nothing in dir.
// Temporary files that killed extractions left in dir are removed first
// (see atomicfile.SweepStale).
func Extract(ctx context.Context, path string, info Info, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	atomicfile.SweepStale(root, time.Now())
	dst := CachePath(dir, info)
	if Cached(dir, info) {
		return dst, nil
	}
	// A model left without its record (a crash between the two renames)
	// is kept if it hashes right.
	if fi, err := os.Stat(dst); err == nil && fi.Size() == info.Size {
		if sum, err := hashFile(ctx, dst); err == nil && sum == info.SHA256 {
			return dst, writeSidecar(dir, info)
		}
	}

	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	name, tmp, err := atomicfile.CreateTemp(root)
	if err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			root.Remove(name)
		}
	}()
	if err := decode(ctx, f, info, tmp); err != nil {
		return "", fmt.Errorf("%s: %w (nothing was extracted)", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := root.Rename(name, filepath.Base(dst)); err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	ok = true
	if err := writeSidecar(dir, info); err != nil {
		return "", err
	}
	atomicfile.SyncDir(dir)
	return dst, nil
}

// Verify decodes the payload of the bundle at path and checks its size and
// SHA-256 without writing anything.
func Verify(ctx context.Context, path string, info Info) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := decode(ctx, f, info, io.Discard); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// decode streams the payload of info from r to w, checking that it is
// exactly info.Size bytes with info.SHA256.
func decode(ctx context.Context, r io.ReaderAt, info Info, w io.Writer) error {
	var src io.Reader = io.NewSectionReader(r, info.Offset, info.Length)
	if info.Compression == Zstd {
		dec, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderLowmem(false))
		if err != nil {
			return err
		}
		defer dec.Close()
		src = dec
	}
	hw := &hashWriter{h: sha256.New()}
	// One byte more than expected shows a payload that is too long.
	in := &countReader{ctx: ctx, r: io.LimitReader(src, info.Size+1)}
	_, err := io.CopyBuffer(io.MultiWriter(w, hw), in, make([]byte, 1<<20))
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && isWriteErr(err, w):
		return err
	case err != nil:
		return fmt.Errorf("%w: payload: %v", ErrCorrupt, err)
	case hw.n != info.Size:
		return fmt.Errorf("%w: payload holds %d bytes or more, the trailer says %d", ErrCorrupt, hw.n, info.Size)
	}
	if sum := hex.EncodeToString(hw.h.Sum(nil)); sum != info.SHA256 {
		return fmt.Errorf("%w: payload hashes to %s, the trailer says %s", ErrCorrupt, sum, info.SHA256)
	}
	return nil
}

// isWriteErr reports whether err came from writing the output file (a full
// disk) rather than from reading the payload.
func isWriteErr(err error, w io.Writer) bool {
	var pe *fs.PathError
	f, ok := w.(*os.File)
	return ok && errors.As(err, &pe) && pe.Path == f.Name() && pe.Op == "write"
}

func writeSidecar(dir string, info Info) error {
	probe, err := probeFile(CachePath(dir, info), info.Size)
	if err != nil {
		return err
	}
	b, err := json.Marshal(sidecar{SHA256: info.SHA256, Size: info.Size, Probe: probe})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(sidecarPath(dir, info), append(b, '\n'), 0o644)
}

func hashFile(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, &countReader{ctx: ctx, r: f}, make([]byte, 1<<20)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
