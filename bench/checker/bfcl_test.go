package checker

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// TestGroundTruth feeds each case's ground truth back as the model's
// calls, taking the first accepted value of each parameter (omitting the
// parameter when that is ""): every case must pass.
func TestGroundTruth(t *testing.T) {
	cases := 0
	for _, qf := range testenv.BFCLFiles(t) {
		questions := readLines(t, qf)
		for id, line := range readLines(t, filepath.Join(filepath.Dir(qf), "possible_answer", filepath.Base(qf))) {
			var a struct {
				GroundTruth json.RawMessage `json:"ground_truth"`
			}
			var q struct {
				Function json.RawMessage `json:"function"`
			}
			if err := json.Unmarshal(line, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(questions[id], &q); err != nil {
				t.Fatal(id, err)
			}
			funcs, err := ParseFunctions(q.Function)
			if err != nil {
				t.Fatal(id, err)
			}
			answers, err := ParseAnswers(a.GroundTruth)
			if err != nil {
				t.Fatal(id, err)
			}
			var calls []Call
			for _, ans := range answers {
				required := map[string]bool{}
				for _, f := range funcs {
					if f.Name == ans.Name {
						for _, p := range f.Required {
							required[p] = true
						}
					}
				}
				args := map[string]any{}
				for p, acc := range ans.Params {
					if v, ok := firstAccepted(acc, required[p]); ok {
						args[p] = v
					}
				}
				c, err := DecodeCall(ans.Name, encode(args))
				if err != nil {
					t.Fatal(id, err)
				}
				calls = append(calls, c)
			}
			category := idCategory(id)
			r, err := Check(category, funcs, calls, answers)
			if err != nil {
				t.Fatal(id, err)
			}
			if !r.Valid {
				t.Errorf("%s: ground truth rejected: %s %v", id, r.ErrorType, r.Errors)
			}
			cases++
		}
	}
	if cases != 600 {
		t.Errorf("checked %d cases, want 600", cases)
	}
	t.Logf("%d cases: ground truth accepted on all", cases)
}

// firstAccepted is the first accepted value, "" meaning omitted (skipped
// when the parameter is required: BFCL data has a few such answers). In a
// dict, each key's accepted values are a list too.
func firstAccepted(acc []any, required bool) (any, bool) {
	for _, v := range acc {
		if isEmptyString(v) {
			if required {
				continue
			}
			return nil, false
		}
		return firstOf(v), true
	}
	return nil, false
}

func firstOf(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, acc := range x {
			if l, ok := acc.([]any); ok {
				if e, ok := firstAccepted(l, false); ok {
					out[k] = e
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = firstOf(e)
		}
		return out
	}
	return v
}

func idCategory(id string) string {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '_' {
			return id[:i]
		}
	}
	return id
}

// readLines maps each JSON line's id to the line.
func readLines(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out[v.ID] = append([]byte(nil), sc.Bytes()...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
