package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models/gguf"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// modelSummary is what `offgrid models show` reports.
type modelSummary struct {
	Path          string         `json:"path"`
	Name          string         `json:"name,omitempty"`
	Architecture  string         `json:"architecture"`
	Parameters    uint64         `json:"parameters"`
	Quantization  string         `json:"quantization"`
	TensorTypes   map[string]int `json:"tensor_types"`
	ContextLength uint64         `json:"context_length"`
	VocabSize     int            `json:"vocab_size"`
	FileSize      int64          `json:"file_size"`
	ChatTemplate  bool           `json:"chat_template"`
	ToolSupport   bool           `json:"tool_support"`
	License       string         `json:"license,omitempty"`
	// Profile names the agent profile offgrid run drives the model with
	// (see profileFor).
	Profile  string `json:"profile"`
	Finetune string `json:"finetune,omitempty"`
}

func summarize(path string) (modelSummary, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return modelSummary{}, err
	}
	s := modelSummary{Path: path, Architecture: f.Architecture(), Parameters: f.ParamCount(), FileSize: f.Size, TensorTypes: map[string]int{}}
	s.Name, _ = f.String("general.name")
	s.License, _ = f.String("general.license")
	s.Finetune, _ = f.String("general.finetune")
	s.ContextLength, _ = f.Uint(s.Architecture + ".context_length")
	s.VocabSize, _ = f.ArrayLen("tokenizer.ggml.tokens")
	for _, t := range f.Tensors {
		s.TensorTypes[t.Type.String()]++
	}
	if ft, ok := f.Uint("general.file_type"); ok {
		s.Quantization = gguf.FileType(uint32(ft))
	} else {
		s.Quantization = predominant(f)
	}
	tmpl, ok := f.String("tokenizer.chat_template")
	s.ChatTemplate = ok && tmpl != ""
	s.ToolSupport = strings.Contains(tmpl, "tools")
	return s, nil
}

// predominant names the tensor type holding the most bytes.
func predominant(f *gguf.File) string {
	by := map[gguf.TensorType]uint64{}
	for _, t := range f.Tensors {
		by[t.Type] += t.Size
	}
	best, n := gguf.F32, uint64(0)
	for t, b := range by {
		if b > n {
			best, n = t, b
		}
	}
	return best.String()
}

func cmdModelsShow(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models show", "models show NAME|PATH [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one model name or path", errUsage)
	}
	path, err := resolveModel(ctx, env, fs.Arg(0))
	if err != nil {
		return err
	}
	s, err := summarize(path)
	if err != nil {
		return err
	}
	if p, err := profileFor(env, loopSettings{}, path, agent.ModelInfo{Architecture: s.Architecture}); err == nil {
		s.Profile = p.Name
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	yes := map[bool]string{true: "yes", false: "no"}
	var types []string
	for t, n := range s.TensorTypes {
		types = append(types, fmt.Sprintf("%s×%d", t, n))
	}
	sort.Strings(types)
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\n", s.Path)
	if s.Name != "" {
		fmt.Fprintf(tw, "name\t%s\n", s.Name)
	}
	fmt.Fprintf(tw, "architecture\t%s\n", s.Architecture)
	fmt.Fprintf(tw, "parameters\t%s (%d)\n", humanCount(s.Parameters), s.Parameters)
	fmt.Fprintf(tw, "quantization\t%s (tensors: %s)\n", s.Quantization, strings.Join(types, ", "))
	fmt.Fprintf(tw, "context length\t%d\n", s.ContextLength)
	fmt.Fprintf(tw, "vocabulary\t%d tokens\n", s.VocabSize)
	fmt.Fprintf(tw, "file size\t%s\n", humanBytes(s.FileSize))
	fmt.Fprintf(tw, "chat template\t%s\n", yes[s.ChatTemplate])
	fmt.Fprintf(tw, "tool support\t%s\n", yes[s.ToolSupport])
	fmt.Fprintf(tw, "agent profile\t%s\n", s.Profile)
	if s.License != "" {
		fmt.Fprintf(tw, "license\t%s\n", s.License)
	}
	return tw.Flush()
}

func humanCount(n uint64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func humanBytes(n int64) string { return launch.HumanBytes(n) }

func cmdModelsSynth(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "models synth", "models synth -o FILE [--seed N]")
	out := fs.StringP("output", "o", "", "where to write the GGUF (required)")
	seed := fs.Uint64("seed", 1, "seed for the random weights")
	ctxLen := fs.Int("ctx", 8192, "training context length to record")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		return fmt.Errorf("%w: want -o FILE", errUsage)
	}
	if err := synth.Write(*out, synth.Options{Seed: *seed, ContextLength: *ctxLen}); err != nil {
		return err
	}
	s, err := summarize(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %s: %s, %s parameters, %d tokens, %s\n", *out, s.Architecture, humanCount(s.Parameters), s.VocabSize, humanBytes(s.FileSize))
	return nil
}
