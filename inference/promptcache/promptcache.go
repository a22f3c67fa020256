package promptcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

const (
	magic      = "OGPROMPT"
	version    = 1
	headerSize = len(magic) + 4 + sha256.Size + 4 + 8 + 4
	ext        = ".kv"
)

// Defaults of Options.
const (
	DefaultMaxBytes  = 1 << 30
	DefaultMinTokens = 64
)

// Errors reported through Options.Warn, wrapped with the file name.
var (
	ErrCorrupt   = errors.New("prompt cache entry is corrupt")
	ErrTruncated = errors.New("prompt cache entry is truncated")
	ErrMismatch  = errors.New("prompt cache entry was made for another model, context or prompt")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Options tune a Cache.
type Options struct {
	// MaxBytes bounds the directory's entries (all models); 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// MinTokens is the shortest prefix worth saving; 0 means
	// DefaultMinTokens.
	MinTokens int
	// Warn receives the problems met (bad entries, failed writes); nil
	// drops them. The cache never fails a generation.
	Warn func(error)
}

// Cache is the prompt cache of one model in one directory. It is safe for
// concurrent use to the extent the file system is: entries are replaced
// atomically.
type Cache struct {
	dir   string
	model string // lower-case hex SHA-256 of the GGUF
	opts  Options
	now   func() time.Time
}

// New returns the cache of the model whose GGUF hashes to modelSHA256
// (hex) in dir. The directory is created on the first save.
func New(dir, modelSHA256 string, opts Options) *Cache {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MinTokens <= 0 {
		opts.MinTokens = DefaultMinTokens
	}
	return &Cache{dir: dir, model: strings.ToLower(modelSHA256), opts: opts, now: time.Now}
}

var _ inference.PrefixCache = (*Cache)(nil)

func (c *Cache) warn(err error) {
	if c.opts.Warn != nil {
		c.opts.Warn(err)
	}
}

// key is the SHA-256 of everything an entry depends on.
func (c *Cache) key(layout string, prefix []inference.Token) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", c.model, layout)
	binary.Write(h, binary.LittleEndian, prefix)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (c *Cache) path(key [sha256.Size]byte) string {
	return filepath.Join(c.dir, modelTag(c.model)+"-"+hex.EncodeToString(key[:8])+ext)
}

func modelTag(sha string) string { return sha[:min(16, len(sha))] }

// Load returns the state saved for prefix under layout, or false. A bad
// entry is reported, removed and treated as missing.
func (c *Cache) Load(layout string, prefix []inference.Token) ([]byte, bool) {
	key := c.key(layout, prefix)
	path := c.path(key)
	state, err := read(path, key, len(prefix))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		c.warn(fmt.Errorf("%s: %w; decoding the prompt again", path, err))
		os.Remove(path)
		return nil, false
	}
	now := c.now()
	os.Chtimes(path, now, now) // least recently used goes first
	return state, true
}

func read(path string, key [sha256.Size]byte, tokens int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, fmt.Errorf("%w: %d bytes, no complete header", ErrTruncated, fi.Size())
	}
	if string(h[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: not a prompt cache file", ErrCorrupt)
	}
	b := h[len(magic):]
	if v := binary.LittleEndian.Uint32(b); v != version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrMismatch, v, version)
	}
	b = b[4:]
	if !bytes.Equal(b[:sha256.Size], key[:]) {
		return nil, ErrMismatch
	}
	b = b[sha256.Size:]
	if n := binary.LittleEndian.Uint32(b); int64(n) != int64(tokens) {
		return nil, fmt.Errorf("%w: %d tokens, want %d", ErrMismatch, n, tokens)
	}
	size := binary.LittleEndian.Uint64(b[4:])
	sum := binary.LittleEndian.Uint32(b[12:])
	if want := uint64(headerSize) + size; uint64(fi.Size()) != want {
		if uint64(fi.Size()) < want {
			return nil, fmt.Errorf("%w: %d bytes, the header says %d", ErrTruncated, fi.Size(), want)
		}
		return nil, fmt.Errorf("%w: %d bytes, the header says %d", ErrCorrupt, fi.Size(), want)
	}
	if size == 0 {
		return nil, fmt.Errorf("%w: no state", ErrCorrupt)
	}
	state := make([]byte, size)
	if _, err := io.ReadFull(f, state); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTruncated, err)
	}
	if crc32.Checksum(state, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return state, nil
}

// Save writes the state of prefix under layout, then removes the least
// recently used entries beyond MaxBytes. Prefixes shorter than MinTokens
// and states larger than MaxBytes are not kept.
func (c *Cache) Save(layout string, prefix []inference.Token, state []byte) {
	if len(prefix) < c.opts.MinTokens || len(state) == 0 || int64(headerSize+len(state)) > c.opts.MaxBytes {
		return
	}
	key := c.key(layout, prefix)
	buf := make([]byte, headerSize, headerSize+len(state))
	copy(buf, magic)
	b := buf[len(magic):]
	binary.LittleEndian.PutUint32(b, version)
	copy(b[4:], key[:])
	b = b[4+sha256.Size:]
	binary.LittleEndian.PutUint32(b, uint32(len(prefix)))
	binary.LittleEndian.PutUint64(b[4:], uint64(len(state)))
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(state, castagnoli))
	buf = append(buf, state...)
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		c.warn(fmt.Errorf("prompt cache: %w", err))
		return
	}
	path := c.path(key)
	if err := atomicfile.WriteFile(path, buf, 0o600); err != nil {
		c.warn(fmt.Errorf("prompt cache: %w", err))
		return
	}
	if err := c.evict(filepath.Base(path)); err != nil {
		c.warn(fmt.Errorf("prompt cache: %w", err))
	}
}

// evict removes the least recently used entries until the directory's
// entries fit MaxBytes, keeping the entry named keep, and the stale
// temporary files of saves that were killed (see [atomicfile.IsStale]):
// a younger one may be another process's save in progress.
func (c *Cache) evict(keep string) error {
	type entry struct {
		name string
		size int64
		used time.Time
	}
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	var all []entry
	var total int64
	now := c.now()
	for _, de := range des {
		if atomicfile.IsTempName(de.Name()) {
			if fi, err := de.Info(); err == nil && atomicfile.IsStale(fi, now) {
				os.Remove(filepath.Join(c.dir, de.Name()))
			}
			continue
		}
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ext) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		all = append(all, entry{de.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	slices.SortFunc(all, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range all {
		if total <= c.opts.MaxBytes {
			break
		}
		if e.name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(c.dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		total -= e.size
	}
	return nil
}

// RemoveModel removes the entries of the model whose GGUF hashes to
// modelSHA256 from dir and returns how many there were.
func RemoveModel(dir, modelSHA256 string) (int, error) {
	matches, err := filepath.Glob(filepath.Join(dir, modelTag(strings.ToLower(modelSHA256))+"-*"+ext))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range matches {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}
