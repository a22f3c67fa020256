package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// PullOptions configures Store.Pull.
type PullOptions struct {
	// Name is the store name; empty derives it from the URL (NameFromURL).
	Name string
	// SHA256 is the expected hex SHA-256 of the GGUF (after decompression
	// for .gguf.zst). Empty accepts what arrives and records its hash.
	SHA256 string
	// Client sends the requests; nil uses a client without an overall
	// timeout (models are large), honouring the proxy environment.
	Client *http.Client
	// Retries is how many more times an interrupted transfer is resumed
	// before Pull gives up (the partial file is kept either way).
	Retries int
	// RetryDelay is the wait before the first retry, doubled after each;
	// zero means one second.
	RetryDelay time.Duration
	// Progress, if set, is called as bytes arrive with the bytes received
	// so far (including a resumed part) and the total, or -1 if unknown.
	// For .gguf.zst these count compressed bytes.
	Progress func(done, total int64)
}

// HTTPError is a download answered with an unexpected HTTP status.
type HTTPError struct {
	URL        string
	StatusCode int
	Status     string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("GET %s: server answered %s", e.URL, e.Status)
}

// retryable errors: a transfer cut short or a server-side failure.
type transferError struct{ err error }

func (e *transferError) Error() string { return e.err.Error() }
func (e *transferError) Unwrap() error { return e.err }

// partialMeta remembers what a partial download is a part of, so a resume
// asks the server for the rest of the same bytes (If-Range).
type partialMeta struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// Pull downloads the model at rawURL (http or https; a local path or
// file:// URL is imported) into the store. A ".zst" URL is decompressed
// with zstd as it arrives. An interrupted download leaves a partial file
// that the next Pull of the same URL resumes with a Range request. The
// GGUF is hashed while it is written; a hash that differs from
// opt.SHA256, or a file that is not GGUF, removes the partial download and
// returns an error wrapping ErrChecksum or ErrNotGGUF.
func (s *Store) Pull(ctx context.Context, rawURL string, opt PullOptions) (Manifest, error) {
	rawURL, err := ExpandURL(rawURL)
	if err != nil {
		return Manifest{}, err
	}
	name := opt.Name
	if name == "" {
		name = NameFromURL(rawURL)
	}
	if err := ValidName(name); err != nil {
		return Manifest{}, err
	}
	if opt.SHA256 != "" {
		if b, err := hex.DecodeString(opt.SHA256); err != nil || len(b) != sha256.Size {
			return Manifest{}, fmt.Errorf("models: --sha256 %q is not 64 hex digits", opt.SHA256)
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Scheme == "file" || len(u.Scheme) == 1 /* C:\ */ {
		p := rawURL
		if err == nil && u.Scheme == "file" {
			p = u.Path
		}
		if strings.HasSuffix(strings.ToLower(p), ".zst") {
			return Manifest{}, fmt.Errorf("models: %s: decompress local .zst files first (zstd -d)", p)
		}
		return s.Import(ctx, name, p, opt.SHA256)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Manifest{}, fmt.Errorf("models: unsupported URL scheme %q (use http, https or a file path)", u.Scheme)
	}
	if m, err := s.Get(name); err == nil && opt.SHA256 != "" && strings.EqualFold(m.SHA256, opt.SHA256) {
		return m, nil // already there
	}
	if err := s.checkFree(name, opt.SHA256); err != nil {
		return Manifest{}, err
	}
	d := &download{
		store: s, url: u.String(), opt: opt,
		zst:    strings.HasSuffix(strings.ToLower(u.Path), ".zst"),
		client: opt.Client,
	}
	if d.client == nil {
		d.client = &http.Client{Transport: http.DefaultTransport}
	}
	key := sha256.Sum256([]byte(d.url))
	d.part = filepath.Join(s.dir, ".partial", hex.EncodeToString(key[:8])+".part")
	d.meta = strings.TrimSuffix(d.part, ".part") + ".json"

	delay := opt.RetryDelay
	if delay <= 0 {
		delay = time.Second
	}
	for attempt := 0; ; attempt++ {
		res, err := d.attempt(ctx)
		if err == nil {
			return d.finish(name, res)
		}
		var te *transferError
		if !errors.As(err, &te) || ctx.Err() != nil || attempt >= opt.Retries {
			if errors.As(err, &te) && ctx.Err() == nil {
				return Manifest{}, fmt.Errorf("models: download of %s interrupted: %w (run the same command again to resume)", d.url, err)
			}
			return Manifest{}, fmt.Errorf("models: %w", err)
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return Manifest{}, ctx.Err()
		}
		delay *= 2
	}
}

type download struct {
	store      *Store
	url        string
	opt        PullOptions
	zst        bool
	client     *http.Client
	part, meta string
}

// result is a complete download: the GGUF's file, hash and size.
type result struct {
	file   string
	sha256 string
	size   int64
}

// attempt sends one request, resuming from the partial file if there is
// one, and streams the body to disk.
func (d *download) attempt(ctx context.Context) (result, error) {
	if err := os.MkdirAll(filepath.Dir(d.part), 0o755); err != nil {
		return result{}, err
	}
	f, err := os.OpenFile(d.part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return result{}, err
	}
	var meta partialMeta
	if have > 0 {
		if b, err := os.ReadFile(d.meta); err != nil || json.Unmarshal(b, &meta) != nil || meta.URL != d.url {
			have = 0 // a partial file we cannot vouch for: start over
		}
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return result{}, err
	}
	req.Header.Set("User-Agent", "offgrid")
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
		if meta.ETag != "" {
			req.Header.Set("If-Range", meta.ETag)
		} else if meta.LastModified != "" {
			req.Header.Set("If-Range", meta.LastModified)
		}
	}
	resp, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return result{}, ctx.Err()
		}
		return result{}, &transferError{err}
	}
	defer resp.Body.Close()

	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			// Not the range we asked for: drop the partial and start over.
			if err := d.reset(f); err != nil {
				return result{}, err
			}
			return result{}, &transferError{fmt.Errorf("server sent range %q for a resume at byte %d", resp.Header.Get("Content-Range"), have)}
		}
		total = size
	case resp.StatusCode == http.StatusOK:
		have = 0
		if err := d.reset(f); err != nil {
			return result{}, err
		}
		meta = partialMeta{URL: d.url, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
		b, _ := json.Marshal(meta)
		if err := writeFileAtomic(d.meta, b); err != nil {
			return result{}, err
		}
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The partial file may already hold everything.
		if _, size, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && size == have {
			total = have
			resp.Body = http.NoBody
			break
		}
		if err := d.reset(f); err != nil {
			return result{}, err
		}
		return result{}, &transferError{errors.New("server refused the resume range; starting over")}
	default:
		herr := &HTTPError{URL: d.url, StatusCode: resp.StatusCode, Status: resp.Status}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return result{}, &transferError{herr}
		}
		return result{}, herr
	}

	progress := d.opt.Progress
	if progress == nil {
		progress = func(int64, int64) {}
	}
	progress(have, total)
	body := &progressReader{r: resp.Body, n: have, total: total, fn: progress}
	if _, err := f.Seek(have, io.SeekStart); err != nil {
		return result{}, err
	}
	// What came before, then the network stream, copied to the partial
	// file as it is read.
	stream := io.MultiReader(io.NewSectionReader(f, 0, have), io.TeeReader(body, f))

	h := sha256.New()
	check := &headerCheck{}
	if !d.zst {
		n, err := copyCtx(ctx, io.MultiWriter(h, check), stream)
		if err = d.classify(ctx, err, check, body); err != nil {
			return result{}, err
		}
		if err := f.Sync(); err != nil {
			return result{}, err
		}
		return result{file: d.part, sha256: hex.EncodeToString(h.Sum(nil)), size: n}, nil
	}
	return d.decompress(ctx, stream, h, check, body, f)
}

// decompress streams the zstd stream into a temporary GGUF in the store.
func (d *download) decompress(ctx context.Context, stream io.Reader, h hash.Hash, check *headerCheck, body *progressReader, part *os.File) (result, error) {
	dec, err := zstd.NewReader(stream, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(false))
	if err != nil {
		return result{}, err
	}
	defer dec.Close()
	tmp, err := d.store.createTemp()
	if err != nil {
		return result{}, err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := copyCtx(ctx, io.MultiWriter(tmp, h, check), dec)
	if err = d.classify(ctx, err, check, body); err != nil {
		return result{}, err
	}
	if err := part.Sync(); err != nil {
		return result{}, err
	}
	if err := tmp.Sync(); err != nil {
		return result{}, err
	}
	if err := tmp.Close(); err != nil {
		return result{}, err
	}
	ok = true
	return result{file: tmp.Name(), sha256: hex.EncodeToString(h.Sum(nil)), size: n}, nil
}

// classify turns a copy error into the error Pull acts on: a GGUF check
// failure or a corrupt zstd stream is final and drops the partial file; a
// failed network read is retryable.
func (d *download) classify(ctx context.Context, err error, check *headerCheck, body *progressReader) error {
	if err == nil && check.n < len(check.hdr) {
		err = fmt.Errorf("%w: only %d bytes", ErrNotGGUF, check.n)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if body.err != nil {
		// The network read failed; whatever the decoder made of the cut
		// stream, the partial file is good up to where it stopped.
		return &transferError{body.err}
	}
	if errors.Is(err, ErrNotGGUF) || d.zst {
		d.discard()
		if d.zst && !errors.Is(err, ErrNotGGUF) {
			return fmt.Errorf("%s: corrupt zstd stream (partial download removed): %w", d.url, err)
		}
		return fmt.Errorf("%s: %w (partial download removed)", d.url, err)
	}
	return err
}

// finish installs a complete download, or removes it when it fails the
// checks.
func (d *download) finish(name string, res result) (Manifest, error) {
	m := Manifest{Name: name, SHA256: res.sha256, Size: res.size, Source: d.url}
	if err := d.store.install(res.file, m, d.opt.SHA256); err != nil {
		os.Remove(res.file)
		d.discard()
		return Manifest{}, fmt.Errorf("models: %s: %w (partial download removed)", d.url, err)
	}
	d.discard()
	return d.store.Get(name)
}

func (d *download) discard() {
	os.Remove(d.part)
	os.Remove(d.meta)
}

func (d *download) reset(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// parseContentRange parses "bytes START-END/SIZE" or "bytes */SIZE".
func parseContentRange(v string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	size, err := strconv.ParseInt(sz, 10, 64)
	if err != nil {
		size = -1
	}
	if rng == "*" {
		return -1, size, err == nil
	}
	s, _, found := strings.Cut(rng, "-")
	start, err = strconv.ParseInt(s, 10, 64)
	return start, size, found && err == nil
}

// progressReader counts bytes read from the network and remembers a read
// error so it can be told apart from errors downstream.
type progressReader struct {
	r     io.Reader
	n     int64
	total int64
	fn    func(done, total int64)
	err   error
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.n += int64(n)
		p.fn(p.n, p.total)
	}
	if err != nil && err != io.EOF {
		p.err = err
	}
	return n, err
}

// headerCheck fails the copy as soon as the first 24 bytes are not a GGUF
// header, so an HTML error page is not downloaded in full.
type headerCheck struct {
	hdr [24]byte
	n   int
}

func (c *headerCheck) Write(b []byte) (int, error) {
	if c.n < len(c.hdr) {
		k := copy(c.hdr[c.n:], b)
		c.n += k
		if c.n == len(c.hdr) {
			if err := checkGGUFHeader(c.hdr[:]); err != nil {
				return 0, err
			}
		}
	}
	return len(b), nil
}

// ExpandURL turns a Hugging Face reference, hf://OWNER/REPO/PATH.gguf with
// an optional @REVISION after the repository (default main), into its
// download URL; other references are returned as they are.
func ExpandURL(ref string) (string, error) {
	rest, ok := strings.CutPrefix(ref, "hf://")
	if !ok {
		return ref, nil
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || strings.HasSuffix(parts[2], "/") {
		return "", fmt.Errorf("models: %q: want hf://OWNER/REPO/FILE.gguf (or hf://OWNER/REPO@REVISION/FILE.gguf)", ref)
	}
	repo, rev, _ := strings.Cut(parts[1], "@")
	if rev == "" {
		rev = "main"
	}
	for _, p := range []string{parts[0], repo, rev} {
		if strings.ContainsAny(p, "?#% ") || p == "." || p == ".." {
			return "", fmt.Errorf("models: %q: bad owner, repository or revision %q", ref, p)
		}
	}
	u := url.URL{Scheme: "https", Host: "huggingface.co", Path: "/" + parts[0] + "/" + repo + "/resolve/" + rev + "/" + parts[2]}
	return u.String(), nil
}
