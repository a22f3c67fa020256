package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/models/synth"
)

// A bundle carries files after the model (version 2): Read finds them,
// the model is still extracted and verified as before, ExtractFiles
// unpacks each file once, and a bundle made from that bundle replaces
// both the model and the files.
func TestBundleFiles(t *testing.T) {
	ctx := context.Background()
	exe, exeSize := testExe(t)
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "aaaa-1.kv"), filepath.Join(dir, "aaaa-2.kv")
	os.WriteFile(a, bytes.Repeat([]byte("A"), 5000), 0o644)
	os.WriteFile(b, []byte("bb"), 0o644)
	out := filepath.Join(t.TempDir(), "agent")
	info, err := Write(ctx, out, exe, model, Options{Name: "tiny", Compression: Zstd, Files: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(out)
	if err != nil || got != info || got.Version != 2 || got.Extras == 0 || got.Offset != exeSize {
		t.Fatalf("Read = %+v, %v; Write gave %+v", got, err, info)
	}
	if fi, _ := os.Stat(out); fi.Size() != got.FileSize() {
		t.Fatalf("file %d bytes, trailer says %d", fi.Size(), got.FileSize())
	}
	if err := Verify(ctx, out, got); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	cache := t.TempDir()
	if n, err := ExtractFiles(ctx, out, got, cache); n != 2 || err != nil {
		t.Fatalf("ExtractFiles = %d, %v", n, err)
	}
	for _, f := range []string{a, b} {
		want, _ := os.ReadFile(f)
		have, err := os.ReadFile(filepath.Join(cache, filepath.Base(f)))
		if err != nil || !bytes.Equal(have, want) {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
	if n, err := ExtractFiles(ctx, out, got, cache); n != 0 || err != nil {
		t.Errorf("second ExtractFiles = %d, %v; want nothing written", n, err)
	}
	// Bundling from the bundle, without files, leaves none behind.
	again := filepath.Join(t.TempDir(), "agent2")
	info2, err := Write(ctx, again, out, model, Options{Name: "tiny"})
	if err != nil || info2.Version != 1 || info2.Extras != 0 || info2.Offset != exeSize {
		t.Fatalf("rebundle = %+v, %v", info2, err)
	}
	// Two files of one name are refused.
	twin := filepath.Join(t.TempDir(), "aaaa-1.kv")
	os.WriteFile(twin, []byte("twin"), 0o644)
	if _, err := Write(ctx, filepath.Join(t.TempDir(), "x"), exe, model, Options{Name: "tiny", Files: []string{a, twin}}); err == nil {
		t.Error("two files of one name were bundled")
	}
}

// A files section that names a path, a link or a hidden file is
// refused as corrupt and writes nothing outside the directory.
func TestBundleFilesHostile(t *testing.T) {
	ctx := context.Background()
	exe, exeSize := testExe(t)
	for _, h := range []tar.Header{
		{Typeflag: tar.TypeReg, Name: "../escape.kv", Size: 1},
		{Typeflag: tar.TypeReg, Name: "/abs.kv", Size: 1},
		{Typeflag: tar.TypeSymlink, Name: "link.kv", Linkname: "/etc/passwd"},
		{Typeflag: tar.TypeReg, Name: ".hidden", Size: 1},
	} {
		var section bytes.Buffer
		tw := tar.NewWriter(&section)
		tw.WriteHeader(&h)
		if h.Size > 0 {
			tw.Write([]byte("x"))
		}
		tw.Close()
		exeBytes, _ := os.ReadFile(exe)
		model := []byte("GGUF-not-checked-here")
		info := Info{Version: 2, Compression: None, Offset: exeSize, Length: int64(len(model)), Size: int64(len(model)),
			SHA256: "00000000000000000000000000000000000000000000000000000000000000aa", Name: "m", Extras: int64(section.Len())}
		trailer, err := info.marshal()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "hostile")
		os.WriteFile(path, append(append(append(exeBytes, model...), section.Bytes()...), trailer...), 0o755)
		got, err := Read(path)
		if err != nil {
			t.Fatalf("%s: Read: %v", h.Name, err)
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, "cache")
		if _, err := ExtractFiles(ctx, path, got, dir); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: ExtractFiles = %v, want ErrCorrupt", h.Name, err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("%s: wrote %d entries beside the directory", h.Name, len(entries)-1)
		}
	}
}
