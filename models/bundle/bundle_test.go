package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// testExe returns a copy of the running test binary, a real executable.
func testExe(t testing.TB) (path string, size int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "offgrid")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path, int64(len(b))
}

// synthModel writes the tiny synthetic GGUF model.
func synthModel(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(p, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return p
}

// bigModel writes n bytes that start like GGUF and compress somewhat, so
// the payload spans several zstd frames.
func bigModel(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.IntN(16)) // 4 bits of entropy per byte
	}
	copy(b, "GGUF\x03\x00\x00\x00")
	p := filepath.Join(t.TempDir(), "big.gguf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fileSum(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// entries lists a directory, including hidden temporary files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReadExtract(t *testing.T) {
	exe, exeSize := testExe(t)
	small, big := synthModel(t), bigModel(t, 2*chunkSize+12345)
	for _, tc := range []struct {
		name  string
		model string
		comp  Compression
	}{
		{"synth-zstd", small, Zstd},
		{"synth-none", small, None},
		{"multiframe-zstd", big, Zstd},
		{"multiframe-none", big, None},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			out := filepath.Join(t.TempDir(), "agent")
			var last int64
			info, err := Write(ctx, out, exe, tc.model, Options{Name: "tiny", Compression: tc.comp, Progress: func(done, total int64) { last = done }})
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o755 {
				t.Errorf("mode %v, want 0755", fi.Mode().Perm())
			}
			mi, _ := os.Stat(tc.model)
			want := Info{Version: 1, Compression: tc.comp, Offset: exeSize, Length: info.Length, Size: mi.Size(), SHA256: fileSum(t, tc.model), Name: "tiny"}
			if info != want {
				t.Errorf("Write = %+v, want %+v", info, want)
			}
			if last != mi.Size() {
				t.Errorf("progress ended at %d, want %d", last, mi.Size())
			}
			if fi.Size() != info.FileSize() {
				t.Errorf("file is %d bytes, trailer says %d", fi.Size(), info.FileSize())
			}
			if tc.comp == Zstd && tc.model == big && info.Length >= info.Size*3/4 {
				t.Errorf("4-bit data compressed to %d of %d bytes", info.Length, info.Size)
			}
			read, err := Read(out)
			if err != nil || read != info {
				t.Fatalf("Read = %+v, %v; want %+v", read, err, info)
			}
			if err := Verify(ctx, out, info); err != nil {
				t.Fatal(err)
			}
			// The executable part is the original, byte for byte.
			b, _ := os.ReadFile(out)
			orig, _ := os.ReadFile(exe)
			if !bytes.Equal(b[:exeSize], orig) {
				t.Error("executable part differs from the original")
			}

			cache := filepath.Join(t.TempDir(), "bundled")
			if Cached(cache, info) {
				t.Fatal("Cached before extraction")
			}
			p, err := Extract(ctx, out, info, cache)
			if err != nil {
				t.Fatal(err)
			}
			if p != CachePath(cache, info) || fileSum(t, p) != info.SHA256 {
				t.Fatalf("extracted %s, sum %s; want %s", p, fileSum(t, p), info.SHA256)
			}
			if !Cached(cache, info) {
				t.Fatal("not Cached after extraction")
			}
			got := entries(t, cache)
			if want := []string{info.SHA256 + ".gguf", info.SHA256 + ".json"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("cache holds %v, want %v", got, want)
			}
			// A damaged first byte fails the warm check and is repaired.
			damage(t, p, 0)
			if Cached(cache, info) {
				t.Fatal("Cached after damage")
			}
			if _, err := Extract(ctx, out, info, cache); err != nil {
				t.Fatal(err)
			}
			if fileSum(t, p) != info.SHA256 {
				t.Error("damaged cache file not re-extracted")
			}
			// A model without its record is re-hashed and kept.
			os.Remove(sidecarPath(cache, info))
			if _, err := Extract(ctx, out, info, cache); err != nil || !Cached(cache, info) {
				t.Fatalf("Extract without record: %v, cached %v", err, Cached(cache, info))
			}
		})
	}
}

// damage flips one byte of the file at off (negative: from the end).
func damage(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += int64(len(b))
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestCorrupt(t *testing.T) {
	exe, _ := testExe(t)
	model := bigModel(t, chunkSize+999)
	ctx := context.Background()
	bundles := map[Compression]string{}
	infos := map[Compression]Info{}
	for _, c := range []Compression{Zstd, None} {
		out := filepath.Join(t.TempDir(), "agent")
		info, err := Write(ctx, out, exe, model, Options{Name: "m", Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		bundles[c], infos[c] = out, info
	}
	for _, tc := range []struct {
		name   string
		comp   Compression
		mangle func(t *testing.T, path string, info Info)
		want   string // in the error of Read, or else of Extract
	}{
		{"payload byte zstd", Zstd, func(t *testing.T, p string, i Info) { damage(t, p, i.Offset+i.Length/2) }, "payload"},
		{"payload first byte zstd", Zstd, func(t *testing.T, p string, i Info) { damage(t, p, i.Offset) }, "payload"},
		{"payload byte none", None, func(t *testing.T, p string, i Info) { damage(t, p, i.Offset+i.Length/2) }, "hashes to"},
		{"trailer name", Zstd, func(t *testing.T, p string, i Info) { damage(t, p, -TrailerSize+70) }, "trailer checksum"},
		{"trailer magic", Zstd, func(t *testing.T, p string, i Info) { damage(t, p, -1) }, "no bundle trailer"},
		{"truncated by one byte", Zstd, func(t *testing.T, p string, i Info) { truncate(t, p, i.FileSize()-1) }, "no bundle trailer"},
		{"truncated in the payload", Zstd, func(t *testing.T, p string, i Info) { truncate(t, p, i.Offset+i.Length/2) }, "no bundle trailer"},
		{"truncated just after the executable", None, func(t *testing.T, p string, i Info) { truncate(t, p, i.Offset+10) }, "10 bytes follow the executable"},
		{"trailer moved", Zstd, func(t *testing.T, p string, i Info) {
			b, _ := os.ReadFile(p)
			tr := b[len(b)-TrailerSize:]
			b = append(b[:i.Offset+i.Length/2], tr...)
			os.WriteFile(p, b, 0o755)
		}, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := os.ReadFile(bundles[tc.comp])
			p := filepath.Join(t.TempDir(), "agent")
			os.WriteFile(p, b, 0o755)
			tc.mangle(t, p, infos[tc.comp])
			cache := filepath.Join(t.TempDir(), "bundled")
			info, err := Read(p)
			readErr := err
			if err == nil {
				if info != infos[tc.comp] {
					t.Fatalf("Read = %+v after damage, want the original %+v", info, infos[tc.comp])
				}
				if verr := Verify(ctx, p, info); !errors.Is(verr, ErrCorrupt) {
					t.Errorf("Verify = %v, want ErrCorrupt", verr)
				}
				_, err = Extract(ctx, p, info, cache)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrCorrupt mentioning %q", err, tc.want)
			}
			if got := entries(t, cache); len(got) != 0 {
				t.Errorf("cache holds %v after a failed extraction", got)
			}
			if readErr != nil {
				// Bundling from a file whose trailer is damaged is refused:
				// where its executable ends is unknown.
				if _, err := Write(ctx, filepath.Join(t.TempDir(), "x"), p, model, Options{Name: "m"}); !errors.Is(err, ErrCorrupt) {
					t.Errorf("Write from the damaged bundle: %v, want ErrCorrupt", err)
				}
			}
		})
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func TestReadNotBundle(t *testing.T) {
	exe, _ := testExe(t)
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("not an executable\n", 100)), 0o644)
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{exe, text, empty, synthModel(t)} {
		if _, err := Read(p); !errors.Is(err, ErrNotBundle) {
			t.Errorf("Read(%s) = %v, want ErrNotBundle", filepath.Base(p), err)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(missing) = %v", err)
	}
}

func TestRebundleReplacesModel(t *testing.T) {
	exe, exeSize := testExe(t)
	ctx := context.Background()
	first := filepath.Join(t.TempDir(), "a")
	if _, err := Write(ctx, first, exe, synthModel(t), Options{Name: "tiny", Compression: Zstd}); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "b")
	model := bigModel(t, 1000)
	info, err := Write(ctx, second, first, model, Options{Name: "other", Compression: None})
	if err != nil {
		t.Fatal(err)
	}
	if info.Offset != exeSize || info.Name != "other" || info.Size != 1000 {
		t.Errorf("rebundled %+v, want offset %d, name other, 1000 bytes", info, exeSize)
	}
	if fi, _ := os.Stat(second); fi.Size() != exeSize+1000+TrailerSize {
		t.Errorf("rebundled file is %d bytes, want %d", fi.Size(), exeSize+1000+TrailerSize)
	}
}

func TestWriteErrors(t *testing.T) {
	exe, _ := testExe(t)
	model := synthModel(t)
	notExe := filepath.Join(t.TempDir(), "script.sh")
	os.WriteFile(notExe, []byte("#!/bin/sh\necho hi\n"), 0o755)
	for _, tc := range []struct {
		name       string
		exe, model string
		opt        Options
		want       string
	}{
		{"wrong sha256", exe, model, Options{Name: "m", Compression: Zstd, SHA256: strings.Repeat("ab", 32)}, "hashes to"},
		{"no name", exe, model, Options{Compression: Zstd}, "model name"},
		{"long name", exe, model, Options{Name: strings.Repeat("n", 129)}, "model name"},
		{"not an executable", notExe, model, Options{Name: "m"}, "not an executable"},
		{"missing model", exe, filepath.Join(t.TempDir(), "none.gguf"), Options{Name: "m"}, "no such file"},
		{"bad compression", exe, model, Options{Name: "m", Compression: 7}, "unknown compression(7)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Write(context.Background(), filepath.Join(dir, "agent"), tc.exe, tc.model, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
			if got := entries(t, dir); len(got) != 0 {
				t.Errorf("left %v behind", got)
			}
		})
	}
}

func TestWriteCanceled(t *testing.T) {
	exe, _ := testExe(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Write(ctx, filepath.Join(dir, "agent"), exe, bigModel(t, chunkSize*3), Options{Name: "m", Compression: Zstd})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("left %v behind", got)
	}
}

func TestTrailerRoundTrip(t *testing.T) {
	in := Info{Version: 1, Compression: Zstd, Offset: 1 << 33, Length: 12345, Size: 99999, SHA256: strings.Repeat("0f", 32), Name: strings.Repeat("x", maxName)}
	b, err := in.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != TrailerSize || !hasMagic(b) {
		t.Fatalf("trailer of %d bytes, magic %v", len(b), hasMagic(b))
	}
	out, err := unmarshal(b, in.FileSize())
	if err != nil || out != in {
		t.Fatalf("round trip = %+v, %v; want %+v", out, err, in)
	}
	if _, err := unmarshal(b, in.FileSize()+1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("size mismatch: %v", err)
	}
	for _, bad := range []Info{
		{SHA256: "abc", Name: "m"},
		{SHA256: strings.Repeat("0f", 32), Name: strings.Repeat("x", maxName+1)},
		{SHA256: strings.Repeat("0f", 32), Name: "m", Offset: -1},
	} {
		if _, err := bad.marshal(); err == nil {
			t.Errorf("marshal(%+v) succeeded", bad)
		}
	}
}

func TestParseCompression(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Compression
		ok   bool
	}{{"zstd", Zstd, true}, {"ZSTD", Zstd, true}, {"none", None, true}, {"gzip", 0, false}, {"", 0, false}} {
		got, err := ParseCompression(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseCompression(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// benchBundle writes a bundle of a 64 MiB model that compresses to about
// half, like text, and returns it with its trailer.
func benchBundle(b *testing.B, c Compression) (string, Info) {
	b.Helper()
	exe, _ := testExe(b)
	model := bigModel(b, 64<<20)
	out := filepath.Join(b.TempDir(), "agent")
	info, err := Write(context.Background(), out, exe, model, Options{Name: "m", Compression: c})
	if err != nil {
		b.Fatal(err)
	}
	return out, info
}

func BenchmarkExtract(b *testing.B) {
	for _, c := range []Compression{Zstd, None} {
		b.Run(c.String(), func(b *testing.B) {
			out, info := benchBundle(b, c)
			b.SetBytes(info.Size)
			for b.Loop() {
				if _, err := Extract(context.Background(), out, info, b.TempDir()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCached(b *testing.B) {
	out, info := benchBundle(b, Zstd)
	dir := b.TempDir()
	if _, err := Extract(context.Background(), out, info, dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !Cached(dir, info) {
			b.Fatal("not cached")
		}
	}
}

// TestExtractSweepsStale: temporary files that killed extractions left in
// the cache (our naming, ours, untouched for an hour) are removed when a
// bundle starts; a fresh one, which a running extraction may be writing,
// and files of other naming stay.
func TestExtractSweepsStale(t *testing.T) {
	exe, _ := testExe(t)
	out := filepath.Join(t.TempDir(), "agent")
	info, err := Write(context.Background(), out, exe, synthModel(t), Options{Name: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "bundled")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(cache)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	temp := func(mod time.Time) string {
		name, f, err := atomicfile.CreateTemp(root) // as an extraction makes it
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, 1<<20))
		f.Close()
		if err := root.Chtimes(name, mod, mod); err != nil {
			t.Fatal(err)
		}
		return name
	}
	stale, fresh := temp(old), temp(time.Now())
	other := ".tmp-0123456789abcdef-1.gguf"
	if err := os.WriteFile(filepath.Join(cache, other), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(cache, other), old, old)

	if _, err := Extract(context.Background(), out, info, cache); err != nil {
		t.Fatal(err)
	}
	got := entries(t, cache)
	want := []string{fresh, other, info.SHA256 + ".gguf", info.SHA256 + ".json"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cache holds %v, want %v (the stale %s removed)", got, want, stale)
	}
	// A cached model's start sweeps too.
	if err := root.Chtimes(fresh, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(context.Background(), out, info, cache); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(entries(t, cache), fresh) {
		t.Errorf("a stale temporary file survived a cached start")
	}
}
