package bundle_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/offgrid-ai/offgrid/models/bundle"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// Bundle a model into a copy of the running executable, then find and
// unpack it the way the bundle does when it starts.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bundle-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		log.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	out := filepath.Join(dir, "agent")
	if _, err := bundle.Write(ctx, out, exe, model, bundle.Options{Name: "tiny", Compression: bundle.Zstd}); err != nil {
		log.Fatal(err)
	}

	info, err := bundle.Read(out) // at start: one read of the last 256 bytes
	if err != nil {
		log.Fatal(err)
	}
	path, err := bundle.Extract(ctx, out, info, filepath.Join(dir, "cache")) // on first use
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Name, info.Compression, filepath.Base(path) == info.SHA256+".gguf")
	// Output: tiny zstd true
}
