package bench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/jsonx"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// groundTruthCalls renders each case's ground truth (first accepted value
// of each parameter; "" omits it unless required) as calls.
func groundTruthCalls(t *testing.T, c *Case) []grammar.Call {
	t.Helper()
	var calls []grammar.Call
	for _, a := range c.Answers {
		required := map[string]bool{}
		for _, f := range c.Funcs {
			if f.Name == a.Name {
				for _, p := range f.Required {
					required[p] = true
				}
			}
		}
		args := map[string]any{}
		for p, acc := range a.Params {
			if v, ok := first(acc, required[p]); ok {
				args[p] = v
			}
		}
		calls = append(calls, grammar.Call{Name: a.Name, Arguments: jsonx.AppendDumpsPython(nil, args, jsonx.DumpsOptions{ItemSep: ",", KeySep: ":"})})
	}
	return calls
}

func first(acc []any, required bool) (any, bool) {
	for _, v := range acc {
		if s, ok := v.(string); ok && s == "" {
			if required {
				continue
			}
			return nil, false
		}
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, l := range x {
				if e, ok := first(l.([]any), false); ok {
					out[k] = e
				}
			}
			return out, true
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i], _ = first([]any{e}, true)
			}
			return out, true
		}
		return v, true
	}
	return nil, false
}

// TestScoreGroundTruthThroughFormats writes each shared case's ground
// truth in every call format, parses it back as a model reply would be,
// and scores it: all must be parse-valid, schema-valid and correct.
func TestScoreGroundTruthThroughFormats(t *testing.T) {
	cases, _, err := Load(testenv.BFCLFiles(t), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range grammar.Formats() {
		bad := 0
		for i := range cases {
			c := &cases[i]
			text := grammar.Render(f, groundTruthCalls(t, c))
			_, calls, perr := grammar.Parse(f, text)
			r := CaseResult{Raw: text, Calls: callsFrom(calls)}
			if perr != nil {
				r.ParseError = perr.Error()
			}
			if err := Score(c, &r); err != nil {
				t.Fatal(err)
			}
			if !r.ParseValid || !r.SchemaValid || !r.CorrectFunction || !r.Verdict.Valid {
				if bad++; bad < 5 {
					t.Errorf("%s %s: parse %v schema %v fn %v verdict %+v\n%s", f, c.ID, r.ParseValid, r.SchemaValid, r.CorrectFunction, r.Verdict, text)
				}
			}
		}
	}
}

func TestScore(t *testing.T) {
	dir := writeData(t, oneQuestion+strings.ReplaceAll(oneQuestion, "simple_python_0", "irrelevance_0"),
		`{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10], "height": [5.0]}}]}`)
	cases, _, err := Load([]string{dir}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	simple, irr := &cases[0], &cases[1]
	call := func(name, args string) []Call { return []Call{{Name: name, Arguments: json.RawMessage(args)}} }
	tests := []struct {
		name                     string
		c                        *Case
		r                        CaseResult
		parse, schema, fn, valid bool
	}{
		{"correct", simple, CaseResult{Calls: call("area", `{"base":10,"height":5}`)}, true, true, true, true},
		{"wrong value", simple, CaseResult{Calls: call("area", `{"base":11,"height":5}`)}, true, true, true, false},
		{"schema: wrong type", simple, CaseResult{Calls: call("area", `{"base":"10","height":5}`)}, true, false, true, false},
		{"schema: extra property", simple, CaseResult{Calls: call("area", `{"base":10,"height":5,"unit":"m"}`)}, true, false, true, false},
		{"schema: missing required", simple, CaseResult{Calls: call("area", `{"base":10}`)}, true, false, true, false},
		{"unknown tool", simple, CaseResult{Calls: call("volume", `{}`)}, true, false, false, false},
		{"no call", simple, CaseResult{Raw: "The area is 25."}, false, false, false, false},
		{"parse error", simple, CaseResult{ParseError: "malformed"}, false, false, false, false},
		{"irrelevance: text", irr, CaseResult{Raw: "I cannot help."}, true, true, true, true},
		{"irrelevance: call", irr, CaseResult{Calls: call("area", `{"base":10,"height":5}`)}, true, true, false, false},
		{"irrelevance: parse error", irr, CaseResult{ParseError: "malformed"}, false, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			if err := Score(tt.c, &r); err != nil {
				t.Fatal(err)
			}
			if r.ParseValid != tt.parse || r.SchemaValid != tt.schema || r.CorrectFunction != tt.fn || r.Verdict.Valid != tt.valid {
				t.Errorf("got parse %v schema %v fn %v valid %v (%+v)", r.ParseValid, r.SchemaValid, r.CorrectFunction, r.Verdict.Valid, r.Verdict)
			}
		})
	}
}
