package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// Read returns the trailer of the bundle at path. A file that ends where
// its executable image ends yields ErrNotBundle; a file with bytes after
// the image but no valid trailer (a cut-off copy, a flipped byte in the
// trailer) yields ErrCorrupt.
func Read(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	info, err := readInfo(f, fi.Size())
	if err != nil {
		return Info{}, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

func readInfo(r io.ReaderAt, size int64) (Info, error) {
	if size >= TrailerSize {
		b := make([]byte, TrailerSize)
		if _, err := r.ReadAt(b, size-TrailerSize); err != nil {
			return Info{}, err
		}
		if hasMagic(b) {
			return unmarshal(b, size)
		}
	}
	if end, ok := imageEnd(r); ok && size > end {
		return Info{}, fmt.Errorf("%w: %d bytes follow the executable but no bundle trailer ends the file (truncated or damaged copy?)", ErrCorrupt, size-end)
	}
	return Info{}, ErrNotBundle
}

// Options configures Write.
type Options struct {
	// Files go with the model, by their base names: the model's prompt
	// cache entries, unpacked by ExtractFiles on the machine it runs on.
	Files []string
	// Name is the model name the bundle records (required).
	Name string
	// Compression of the payload; the zero value stores the GGUF as is.
	Compression Compression
	// Level is the zstd level (1 to 22, as the zstd tool counts); zero
	// means 3, zstd's default.
	Level int
	// Workers is how many chunks are compressed at once; zero means
	// GOMAXPROCS, at most 8.
	Workers int
	// SHA256, if set, is the expected hex SHA-256 of the model; a model
	// that hashes differently fails the write.
	SHA256 string
	// Progress, if set, is called with the model bytes read so far and
	// the model's size.
	Progress func(done, total int64)
}

// chunkSize is how much of the model one zstd frame holds. Frames are
// compressed independently, in parallel, and concatenated in order, which
// is still one valid zstd stream.
const chunkSize = 8 << 20

// Write writes to out the executable exe followed by the model and a
// trailer. When exe is itself a bundle its model is left out, so bundling
// from a bundle replaces the model. out is written through a temporary
// file in its directory and renamed into place with mode 0755.
func Write(ctx context.Context, out, exe, model string, opt Options) (Info, error) {
	if opt.Name == "" || len(opt.Name) > maxName {
		return Info{}, fmt.Errorf("bundle: model name %q must have 1 to %d bytes", opt.Name, maxName)
	}
	ex, err := os.Open(exe)
	if err != nil {
		return Info{}, err
	}
	defer ex.Close()
	exi, err := ex.Stat()
	if err != nil {
		return Info{}, err
	}
	prefix := exi.Size()
	switch prev, err := readInfo(ex, prefix); {
	case err == nil:
		prefix = prev.Offset
	case errors.Is(err, ErrNotBundle):
	default:
		return Info{}, fmt.Errorf("bundle: executable %s: %w", exe, err)
	}
	if _, ok := imageEnd(ex); !ok {
		return Info{}, fmt.Errorf("bundle: %s is not an executable (ELF, Mach-O or PE)", exe)
	}

	m, err := os.Open(model)
	if err != nil {
		return Info{}, err
	}
	defer m.Close()
	mi, err := m.Stat()
	if err != nil {
		return Info{}, err
	}

	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return Info{}, fmt.Errorf("bundle: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, io.NewSectionReader(ex, 0, prefix)); err != nil {
		return Info{}, fmt.Errorf("bundle: copy executable: %w", err)
	}

	h := sha256.New()
	src := &countReader{ctx: ctx, r: io.TeeReader(m, h), total: mi.Size(), fn: opt.Progress}
	var length int64
	switch opt.Compression {
	case None:
		length, err = io.CopyBuffer(tmp, src, make([]byte, 1<<20))
	case Zstd:
		length, err = compress(ctx, tmp, src, opt)
	default:
		err = fmt.Errorf("unknown %v", opt.Compression)
	}
	if err != nil {
		return Info{}, fmt.Errorf("bundle: payload: %w", err)
	}
	info := Info{
		Version: 1, Compression: opt.Compression, Offset: prefix, Length: length,
		Size: src.n, SHA256: hex.EncodeToString(h.Sum(nil)), Name: opt.Name,
	}
	if len(opt.Files) > 0 {
		if info.Extras, err = writeFiles(ctx, tmp, opt.Files); err != nil {
			return Info{}, fmt.Errorf("bundle: files: %w", err)
		}
		info.Version = 2
	}
	if opt.SHA256 != "" && !strings.EqualFold(opt.SHA256, info.SHA256) {
		return Info{}, fmt.Errorf("bundle: %s hashes to %s, want %s", model, info.SHA256, strings.ToLower(opt.SHA256))
	}
	trailer, err := info.marshal()
	if err != nil {
		return Info{}, err
	}
	if _, err := tmp.Write(trailer); err != nil {
		return Info{}, fmt.Errorf("bundle: %w", err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		return Info{}, err
	}
	if err := tmp.Sync(); err != nil {
		return Info{}, err
	}
	if err := tmp.Close(); err != nil {
		return Info{}, err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return Info{}, fmt.Errorf("bundle: %w", err)
	}
	ok = true
	atomicfile.SyncDir(filepath.Dir(out))
	return info, nil
}

// compress writes src to dst as a sequence of zstd frames of chunkSize
// input bytes each, compressing up to opt.Workers chunks at once.
func compress(ctx context.Context, dst io.Writer, src io.Reader, opt Options) (int64, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	level := zstd.SpeedDefault
	if opt.Level > 0 {
		level = zstd.EncoderLevelFromZstd(opt.Level)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(workers), zstd.WithEncoderCRC(true))
	if err != nil {
		return 0, err
	}
	defer enc.Close()

	// The reader queues one result channel per chunk, in order; at most
	// workers chunks wait in the queue, which bounds memory.
	queue := make(chan chan []byte, workers)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, chunkSize)
			n, err := io.ReadFull(src, buf)
			if n > 0 {
				res := make(chan []byte, 1)
				select {
				case queue <- res:
				case <-stop:
					readErr <- nil
					return
				}
				go func(b []byte) { res <- enc.EncodeAll(b, make([]byte, 0, len(b)/2)) }(buf[:n])
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				readErr <- nil
				return
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	var written int64
	var werr error
	for res := range queue {
		frame := <-res
		if werr != nil {
			continue
		}
		var n int
		n, werr = dst.Write(frame)
		written += int64(n)
		if werr != nil {
			close(stop)
		}
	}
	if err := <-readErr; err != nil {
		return written, err
	}
	return written, werr
}

// countReader counts bytes, reports progress and stops when ctx is done.
type countReader struct {
	ctx   context.Context
	r     io.Reader
	n     int64
	total int64
	fn    func(done, total int64)
}

func (c *countReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(b)
	c.n += int64(n)
	if c.fn != nil && n > 0 {
		c.fn(c.n, c.total)
	}
	return n, err
}

// hashWriter is an io.Writer that hashes and counts.
type hashWriter struct {
	h hash.Hash
	n int64
}

func (w *hashWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	return w.h.Write(b)
}
