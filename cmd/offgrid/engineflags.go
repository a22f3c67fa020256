package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/spf13/pflag"

	"github.com/offgrid-ai/offgrid/inference"
)

// engineFlags are the engine and sampling flags of the commands that run
// a model (run, bench), under llama.cpp's names and meanings.
type engineFlags struct {
	ctxSize, threads int
	temp, topP, minP float32
	topK             int
	seed             int64
	gpuLayers        int
	batch            int
	noMmap           bool
}

// addEngineFlags adds the engine and sampling flags to fs. ctxSize and
// ctxHelp are the command's window default and its meaning there; s holds
// the sampling defaults.
func addEngineFlags(fs *pflag.FlagSet, ctxSize int, ctxHelp string, s inference.Sampling) *engineFlags {
	f := &engineFlags{}
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", ctxSize, ctxHelp)
	fs.IntVarP(&f.threads, "threads", "t", 0, "CPU threads (0: one per physical core; 1 holds up best on a busy machine)")
	fs.IntVar(&f.gpuLayers, "gpu-layers", 0, "layers to offload to a GPU, also -ngl (-1: all)")
	fs.IntVarP(&f.batch, "batch-size", "b", 0, "tokens decoded at once when reading a prompt (0: 512)")
	fs.BoolVar(&f.noMmap, "no-mmap", false, "read the model into memory instead of mapping the file")
	fs.Float32Var(&f.temp, "temp", s.Temperature, "sampling temperature (0: greedy)")
	fs.IntVar(&f.topK, "top-k", s.TopK, "top-k sampling (0: off)")
	fs.Float32Var(&f.topP, "top-p", s.TopP, "top-p sampling (0 or 1: off)")
	fs.Float32Var(&f.minP, "min-p", s.MinP, "min-p sampling (0: off)")
	fs.Int64Var(&f.seed, "seed", -1, "sampling seed, 0 to 4294967295 (-1: random)")
	// The spelling bench had before the flags were shared.
	fs.Float32Var(&f.temp, "temperature", s.Temperature, "")
	_ = fs.MarkDeprecated("temperature", "use --temp")
	return f
}

// model returns the options models are loaded with.
func (f *engineFlags) model() inference.ModelOptions {
	return inference.ModelOptions{GPULayers: f.gpuLayers, NoMmap: f.noMmap}
}

// context returns the options a context of size tokens is made with.
func (f *engineFlags) context(size int) inference.ContextOptions {
	return inference.ContextOptions{ContextSize: size, BatchSize: f.batch, Threads: f.threads}
}

// sampling returns the sampler settings; a seed of -1 is drawn at
// random, so the returned settings say which seed was used.
func (f *engineFlags) sampling() (inference.Sampling, error) {
	if f.seed < -1 || f.seed > math.MaxUint32 {
		return inference.Sampling{}, fmt.Errorf("%w: --seed: want -1 (random) or 0 to %d, not %d", errUsage, uint32(math.MaxUint32), f.seed)
	}
	seed := uint32(f.seed)
	if f.seed < 0 {
		seed = rand.Uint32()
	}
	return inference.Sampling{Temperature: f.temp, TopK: f.topK, TopP: f.topP, MinP: f.minP,
		RepeatPenalty: 1, RepeatLastN: 64, Seed: seed}, nil
}
