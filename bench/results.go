package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/offgrid-ai/offgrid/bench/checker"
	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// ResultsVersion is the version of the results.json shape.
const ResultsVersion = 1

// Results is results.json: every run's every case. The Node peer script
// in bench/peers writes the same shape.
type Results struct {
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	Runs    []Run     `json:"runs"`
}

// Run is one model in one grammar mode over a set of cases.
type Run struct {
	// Runner is "offgrid" or the peer's name (e.g. "node-llama-cpp").
	Runner string `json:"runner"`
	Model  string `json:"model"`
	// Grammar is "on" or "off".
	Grammar    string  `json:"grammar"`
	ToolFormat string  `json:"tool_format"`
	Seed       uint32  `json:"seed"`
	Temp       float32 `json:"temperature"`
	// Repeats is how many times each case ran (--repeat); 0 or 1 is once.
	Repeats int `json:"repeats,omitempty"`
	// Seconds is the run's wall time.
	Seconds float64      `json:"seconds"`
	Cases   []CaseResult `json:"cases"`
}

// Label names the run in reports: "offgrid grammar on".
func (r *Run) Label() string {
	return fmt.Sprintf("%s grammar %s", r.Runner, r.Grammar)
}

// Call is a parsed tool call.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CaseResult is one case's output and score.
type CaseResult struct {
	ID string `json:"id"`
	// Repeat is which of the run's repeats of the case this is, from 0.
	Repeat   int    `json:"repeat,omitempty"`
	Category string `json:"category"`
	// Raw is the model's reply as generated.
	Raw        string `json:"raw"`
	Calls      []Call `json:"calls"`
	ParseError string `json:"parse_error,omitempty"`
	// Error is set when the case could not be run at all.
	Error string `json:"error,omitempty"`

	ParseValid      bool           `json:"parse_valid"`
	SchemaValid     bool           `json:"schema_valid"`
	CorrectFunction bool           `json:"correct_function"`
	Verdict         checker.Result `json:"verdict"`

	LatencySeconds  float64 `json:"latency_s"`
	PromptTokens    int     `json:"prompt_tokens"`
	PromptSeconds   float64 `json:"prompt_s"`
	GeneratedTokens int     `json:"generated_tokens"`
	GenerateSeconds float64 `json:"generate_s"`
}

// ErrResults is wrapped by ReadResults errors.
var ErrResults = errors.New("bench: bad results file")

// WriteResults writes res to path atomically.
func WriteResults(path string, res *Results) error {
	data, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'))
}

// ReadResults reads a results.json.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var res Results
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	if res.Version != ResultsVersion {
		return nil, fmt.Errorf("%w: %s: version %d, want %d", ErrResults, path, res.Version, ResultsVersion)
	}
	if err := checkSchema(bfclSchema, data); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	// Arguments come back as written, indented: compact them again (the
	// number text, 1.0 or 1, is kept).
	for i := range res.Runs {
		for j := range res.Runs[i].Cases {
			for k := range res.Runs[i].Cases[j].Calls {
				c := &res.Runs[i].Cases[j].Calls[k]
				var buf bytes.Buffer
				if err := json.Compact(&buf, c.Arguments); err == nil {
					c.Arguments = buf.Bytes()
				}
			}
		}
	}
	return &res, nil
}

// writeFile writes data to path through a synced temporary file in the
// same directory, renamed into place.
func writeFile(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}
