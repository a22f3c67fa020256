package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// copyBuf is the buffer size for model-sized copies.
const copyBuf = 1 << 20

// HashFile returns the hex SHA-256 and the size of the file at path.
func HashFile(ctx context.Context, path string) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := copyCtx(ctx, h, f)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// copyCtx copies src to dst with a large buffer, stopping when ctx is done.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, copyBuf)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		r, rerr := src.Read(buf)
		if r > 0 {
			w, werr := dst.Write(buf[:r])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
			if w != r {
				return n, io.ErrShortWrite
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// writeFileAtomic writes data to path (mode 0644), creating its directory,
// through a synced temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}
