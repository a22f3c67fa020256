package promptcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// hashRecord remembers the SHA-256 of a model file by path, size and
// modification time.
type hashRecord struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	SHA256  string `json:"sha256"`
}

// ModelSHA256 returns the hex SHA-256 of the model file at path. It hashes
// the file once and remembers the result in dir (under hashes/) for as
// long as the file keeps its size and modification time.
func ModelSHA256(dir, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	id := sha256.Sum256([]byte(abs))
	rec := filepath.Join(dir, "hashes", hex.EncodeToString(id[:8])+".json")
	if data, err := os.ReadFile(rec); err == nil {
		var r hashRecord
		if json.Unmarshal(data, &r) == nil && r.Path == abs && r.Size == fi.Size() && r.ModTime == fi.ModTime().UnixNano() && len(r.SHA256) == 2*sha256.Size {
			return r.SHA256, nil
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("promptcache: hash %s: %w", abs, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	data, err := json.Marshal(hashRecord{Path: abs, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), SHA256: sum})
	if err == nil && os.MkdirAll(filepath.Dir(rec), 0o700) == nil {
		atomicfile.WriteFile(rec, data, 0o600) // a failed write only costs a hash next time
	}
	return sum, nil
}
