package bundle

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxFile bounds one file of the files section (a prompt cache entry of
// a large model and a long prompt is a few hundred MiB).
const maxFile = 4 << 30

// writeFiles appends a tar of files, by their base names, to w and
// returns its length.
func writeFiles(ctx context.Context, w io.Writer, files []string) (int64, error) {
	cw := &countWriter{w: w}
	tw := tar.NewWriter(cw)
	seen := map[string]bool{}
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		name := filepath.Base(path)
		if seen[name] {
			return 0, fmt.Errorf("%s: two files named %s", path, name)
		}
		seen[name] = true
		if err := addFile(tw, path, name); err != nil {
			return 0, err
		}
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	return cw.n, nil
}

func addFile(tw *tar.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxFile {
		return fmt.Errorf("%s: not a regular file of at most %d bytes", path, int64(maxFile))
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: fi.Size(), Mode: 0o644, ModTime: fi.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, io.LimitReader(f, fi.Size()))
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ExtractFiles unpacks the files section of the bundle at path into dir,
// each file written whole under a temporary name and renamed into place;
// a file dir already has is left as it is. It returns how many files it
// wrote. A section that is not a tar of plain files is ErrCorrupt.
func ExtractFiles(ctx context.Context, path string, info Info, dir string) (int, error) {
	if info.Extras == 0 {
		return 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	tr := tar.NewReader(io.NewSectionReader(f, info.Offset+info.Length, info.Extras))
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("%w: files section: %v", ErrCorrupt, err)
		}
		if h.Typeflag != tar.TypeReg || h.Name != filepath.Base(h.Name) || strings.HasPrefix(h.Name, ".") || h.Size < 0 || h.Size > maxFile {
			return n, fmt.Errorf("%w: files section holds %q (type %c, %d bytes)", ErrCorrupt, h.Name, h.Typeflag, h.Size)
		}
		dst := filepath.Join(dir, h.Name)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		tmp, err := os.CreateTemp(dir, "."+h.Name+".tmp-*")
		if err != nil {
			return n, err
		}
		_, err = io.Copy(tmp, tr)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), dst)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return n, fmt.Errorf("bundle: unpack %s: %w", h.Name, err)
		}
		n++
	}
}
