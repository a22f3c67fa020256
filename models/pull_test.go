package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// tinyGGUF returns a valid GGUF v3 file with no tensors and one metadata
// string of pad random bytes (so downloads have a body worth cutting).
func tinyGGUF(t testing.TB, pad int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0)) // tensors
	w(uint64(2)) // metadata keys
	str("general.architecture")
	w(uint32(8))
	str("llama")
	str("general.padding")
	w(uint32(8))
	r := rand.New(rand.NewPCG(1, uint64(pad)))
	p := make([]byte, pad)
	for i := range p {
		p[i] = byte('a' + r.IntN(26))
	}
	str(string(p))
	return b.Bytes()
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// server serves body with Range support. cutAt > 0 makes the first
// request that would send the byte at cutAt drop the connection there.
type server struct {
	mu     sync.Mutex
	body   []byte
	etag   string
	cutAt  int
	status int
	ranges []string
	hits   int
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits++
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	body, etag, cut, status := s.body, s.etag, s.cutAt, s.status
	s.cutAt = 0
	s.mu.Unlock()
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if cut > 0 {
		w = &cutter{ResponseWriter: w, left: cut - rangeStart(r)}
	}
	http.ServeContent(w, r, "model.gguf", time.Unix(1e9, 0), bytes.NewReader(body))
}

func rangeStart(r *http.Request) int {
	var n int
	fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &n)
	return n
}

// cutter writes left bytes of the body, then aborts the connection.
type cutter struct {
	http.ResponseWriter
	left int
}

func (c *cutter) Write(b []byte) (int, error) {
	if len(b) > c.left {
		c.ResponseWriter.Write(b[:c.left])
		c.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	c.left -= len(b)
	return c.ResponseWriter.Write(b)
}

func newServer(t *testing.T, s *server) string {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL
}

func partials(t *testing.T, st *Store) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(st.Dir(), ".partial", "*"))
	tmp, _ := filepath.Glob(filepath.Join(st.Dir(), ".tmp-*"))
	return append(m, tmp...)
}

func TestPullFull(t *testing.T) {
	model := tinyGGUF(t, 300_000)
	url := newServer(t, &server{body: model}) + "/models/Tiny-Model.Q4_K_M.gguf"
	st := NewStore(t.TempDir())
	var last, total int64
	m, err := st.Pull(context.Background(), url, PullOptions{SHA256: sum(model), Progress: func(d, tot int64) { last, total = d, tot }})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "tiny-model.q4_k_m" || m.SHA256 != sum(model) || m.Size != int64(len(model)) || m.Source != url {
		t.Errorf("manifest = %+v", m)
	}
	if last != int64(len(model)) || total != int64(len(model)) {
		t.Errorf("progress ended at %d/%d, want %d", last, total, len(model))
	}
	got, err := os.ReadFile(st.Path(m.Name))
	if err != nil || !bytes.Equal(got, model) {
		t.Fatalf("stored model differs (%v)", err)
	}
	if d, err := st.Default(); err != nil || d.Name != m.Name {
		t.Errorf("first model is not the default: %v %v", d, err)
	}
	if p := partials(t, st); len(p) != 0 {
		t.Errorf("leftovers: %v", p)
	}
	// Pulling the same model again with its hash is a no-op.
	if _, err := st.Pull(context.Background(), url, PullOptions{SHA256: sum(model)}); err != nil {
		t.Errorf("second pull: %v", err)
	}
	// Without the hash the name is taken.
	if _, err := st.Pull(context.Background(), url, PullOptions{}); !errors.Is(err, ErrExists) {
		t.Errorf("pull over an existing name: %v, want ErrExists", err)
	}
}

func TestPullResume(t *testing.T) {
	for _, zst := range []bool{false, true} {
		t.Run(map[bool]string{false: "gguf", true: "zst"}[zst], func(t *testing.T) {
			model := tinyGGUF(t, 400_000)
			body, path := model, "/m.gguf"
			if zst {
				body, path = compress(t, model), "/m.gguf.zst"
			}
			srv := &server{body: body, etag: `"v1"`, cutAt: len(body) / 2}
			url := newServer(t, srv) + path
			st := NewStore(t.TempDir())

			_, err := st.Pull(context.Background(), url, PullOptions{Name: "m"})
			if err == nil || !strings.Contains(err.Error(), "resume") {
				t.Fatalf("cut download: err = %v, want an interruption that says how to resume", err)
			}
			part, _ := filepath.Glob(filepath.Join(st.Dir(), ".partial", "*.part"))
			if len(part) != 1 {
				t.Fatalf("partial files = %v", part)
			}
			if fi, _ := os.Stat(part[0]); fi.Size() != int64(len(body)/2) {
				t.Fatalf("partial holds %d bytes, want %d", fi.Size(), len(body)/2)
			}
			if _, err := st.Get("m"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("half a model is in the store: %v", err)
			}

			m, err := st.Pull(context.Background(), url, PullOptions{Name: "m", SHA256: sum(model)})
			if err != nil {
				t.Fatal(err)
			}
			if want := "bytes=" + strconv.Itoa(len(body)/2) + "-"; srv.ranges[1] != want {
				t.Errorf("resume asked for %q, want %q", srv.ranges[1], want)
			}
			if got, _ := os.ReadFile(st.Path("m")); !bytes.Equal(got, model) || m.SHA256 != sum(model) {
				t.Error("resumed model differs")
			}
			if p := partials(t, st); len(p) != 0 {
				t.Errorf("leftovers: %v", p)
			}
		})
	}
}

func TestPullRetriesResumeInOneCall(t *testing.T) {
	model := tinyGGUF(t, 200_000)
	srv := &server{body: model, cutAt: 70_000}
	st := NewStore(t.TempDir())
	_, err := st.Pull(context.Background(), newServer(t, srv)+"/m.gguf", PullOptions{Retries: 2, RetryDelay: time.Millisecond, SHA256: sum(model)})
	if err != nil {
		t.Fatal(err)
	}
	if srv.hits != 2 || srv.ranges[1] != "bytes=70000-" {
		t.Errorf("requests = %d, ranges %q", srv.hits, srv.ranges)
	}
}

func TestPullChangedUpstreamStartsOver(t *testing.T) {
	old, model := tinyGGUF(t, 100_000), tinyGGUF(t, 100_001)
	srv := &server{body: old, etag: `"v1"`, cutAt: 50_000}
	url := newServer(t, srv) + "/m.gguf"
	st := NewStore(t.TempDir())
	if _, err := st.Pull(context.Background(), url, PullOptions{}); err == nil {
		t.Fatal("cut download succeeded")
	}
	srv.mu.Lock()
	srv.body, srv.etag = model, `"v2"`
	srv.mu.Unlock()
	m, err := st.Pull(context.Background(), url, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != sum(model) {
		t.Error("resume spliced two versions of the file")
	}
}

func TestPullRejects(t *testing.T) {
	model := tinyGGUF(t, 50_000)
	tests := []struct {
		name   string
		srv    *server
		path   string
		opt    PullOptions
		want   error
		status int
		hits   int
	}{
		{"wrong checksum", &server{body: model}, "/m.gguf", PullOptions{SHA256: strings.Repeat("ab", 32)}, ErrChecksum, 0, 1},
		{"html page", &server{body: []byte("<!doctype html><html>sign in</html>")}, "/m.gguf", PullOptions{}, ErrNotGGUF, 0, 1},
		{"empty", &server{body: nil}, "/m.gguf", PullOptions{}, ErrNotGGUF, 0, 1},
		{"not found", &server{status: 404}, "/m.gguf", PullOptions{Retries: 3}, nil, 404, 1},
		{"forbidden", &server{status: 403}, "/m.gguf", PullOptions{}, nil, 403, 1},
		{"server error retried", &server{status: 503}, "/m.gguf", PullOptions{Retries: 1, RetryDelay: time.Millisecond}, nil, 503, 2},
		{"corrupt zst", &server{body: append([]byte{0x28, 0xb5, 0x2f, 0xfd}, model...)}, "/m.gguf.zst", PullOptions{}, nil, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStore(t.TempDir())
			tt.opt.Name = "m"
			_, err := st.Pull(context.Background(), newServer(t, tt.srv)+tt.path, tt.opt)
			if err == nil {
				t.Fatal("pull succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			var he *HTTPError
			if tt.status != 0 && (!errors.As(err, &he) || he.StatusCode != tt.status) {
				t.Errorf("err = %v, want HTTP status %d", err, tt.status)
			}
			if tt.srv.hits != tt.hits {
				t.Errorf("%d requests, want %d", tt.srv.hits, tt.hits)
			}
			if p := partials(t, st); len(p) != 0 && tt.status == 0 {
				t.Errorf("partial files left: %v", p)
			}
			if l, _ := st.List(); len(l) != 0 {
				t.Errorf("store holds %v", l)
			}
		})
	}
}

func TestPullZst(t *testing.T) {
	model := tinyGGUF(t, 500_000)
	z := compress(t, model)
	st := NewStore(t.TempDir())
	m, err := st.Pull(context.Background(), newServer(t, &server{body: z})+"/x/qwen.gguf.zst", PullOptions{SHA256: sum(model)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "qwen" || m.Size != int64(len(model)) {
		t.Errorf("manifest = %+v", m)
	}
	if got, _ := os.ReadFile(st.Path("qwen")); !bytes.Equal(got, model) {
		t.Error("decompressed model differs")
	}
	if p := partials(t, st); len(p) != 0 {
		t.Errorf("leftovers: %v", p)
	}
}

func TestPullLocalFile(t *testing.T) {
	model := tinyGGUF(t, 1000)
	src := filepath.Join(t.TempDir(), "Local.gguf")
	os.WriteFile(src, model, 0o644)
	st := NewStore(t.TempDir())
	for _, ref := range []string{src, "file://" + src} {
		os.RemoveAll(st.Dir())
		m, err := st.Pull(context.Background(), ref, PullOptions{})
		if err != nil || m.Name != "local" || m.SHA256 != sum(model) {
			t.Errorf("%s: %+v %v", ref, m, err)
		}
	}
}

func compress(t testing.TB, b []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(b, nil)
}

func TestExpandURL(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf",
			"https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf", ""},
		{"hf://o/r@v1.2/sub/dir/m.gguf", "https://huggingface.co/o/r/resolve/v1.2/sub/dir/m.gguf", ""},
		{"https://example.com/m.gguf", "https://example.com/m.gguf", ""},
		{"/models/m.gguf", "/models/m.gguf", ""},
		{"hf://owner/repo", "", "want hf://OWNER/REPO/FILE.gguf"},
		{"hf://owner//m.gguf", "", "want hf://OWNER/REPO/FILE.gguf"},
		{"hf://owner/repo/dir/", "", "want hf://OWNER/REPO/FILE.gguf"},
		{"hf://../repo/m.gguf", "", "bad owner"},
		{"hf://o/r@a?b/m.gguf", "", "bad owner"},
	} {
		got, err := ExpandURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ExpandURL(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ExpandURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
