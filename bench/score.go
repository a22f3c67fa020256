package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/offgrid-ai/offgrid/bench/checker"
	"github.com/offgrid-ai/offgrid/grammar"
)

// Score fills in r's validity flags and verdict from r.Calls and
// r.ParseError, with the checker's rules for c.
//
//   - parse-valid: the reply decoded without error, with at least one
//     call when the category expects calls;
//   - schema-valid: parse-valid and every call names one of the case's
//     tools with arguments valid against its JSON Schema (objects closed
//     to unlisted properties, as the grammar closes them);
//   - correct function: the called names are the expected ones (as a
//     multiset; none for irrelevance);
//   - verdict: BFCL's AST check.
func Score(c *Case, r *CaseResult) error {
	r.ID, r.Category = c.ID, c.Category
	parsed := r.ParseError == ""
	r.ParseValid = parsed && (len(r.Calls) > 0 || !c.ExpectsCalls())
	r.SchemaValid = r.ParseValid
	for _, call := range r.Calls {
		if r.SchemaValid && !schemaValid(c, call) {
			r.SchemaValid = false
		}
	}
	var got, want []string
	for _, call := range r.Calls {
		got = append(got, call.Name)
	}
	for _, a := range c.Answers {
		want = append(want, a.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	r.CorrectFunction = parsed && slices.Equal(got, want)
	if checker.Relevance(c.BFCLCategory) {
		r.CorrectFunction = parsed && len(got) > 0
	}
	if !parsed {
		r.Verdict = checker.Undecodable(c.BFCLCategory, errors.New(r.ParseError))
		return nil
	}
	calls := make([]checker.Call, 0, len(r.Calls))
	for _, call := range r.Calls {
		cc, err := checker.DecodeCall(call.Name, call.Arguments)
		if err != nil {
			r.Verdict = checker.Undecodable(c.BFCLCategory, err)
			return nil
		}
		calls = append(calls, cc)
	}
	v, err := checker.Check(c.BFCLCategory, c.Funcs, calls, c.Answers)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", c.ID, err)
	}
	r.Verdict = v
	return nil
}

func schemaValid(c *Case, call Call) bool {
	for _, t := range c.Tools {
		if t.Name != call.Name {
			continue
		}
		s, err := compileSchema(t.Parameters)
		if err != nil {
			return false
		}
		args := call.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
		return err == nil && s.Validate(inst) == nil
	}
	return false
}

// compileSchema compiles a tool's parameter schema with objects that list
// properties closed to others (additionalProperties false unless given).
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	closeObjects(doc)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("tool.json")
}

func closeObjects(s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if p, ok := m["properties"].(map[string]any); ok && len(p) > 0 {
		if _, has := m["additionalProperties"]; !has {
			m["additionalProperties"] = false
		}
		for _, v := range p {
			closeObjects(v)
		}
	}
	closeObjects(m["items"])
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if l, ok := m[k].([]any); ok {
			for _, e := range l {
				closeObjects(e)
			}
		}
	}
}

// callsFrom converts grammar calls to results calls.
func callsFrom(calls []grammar.Call) []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		out[i] = Call{Name: c.Name, Arguments: c.Arguments}
	}
	return out
}

// Rescore scores runs read from a results file (a peer's, say) against
// cases with this package's checker, by case id. Results for ids not
// among cases are dropped and counted in missing.
func Rescore(runs []Run, cases []Case) (out []Run, missing int, err error) {
	byID := make(map[string]*Case, len(cases))
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	for _, run := range runs {
		scored := run
		scored.Cases = nil
		for _, r := range run.Cases {
			c, ok := byID[r.ID]
			if !ok {
				missing++
				continue
			}
			if err := Score(c, &r); err != nil {
				return nil, missing, err
			}
			scored.Cases = append(scored.Cases, r)
		}
		out = append(out, scored)
	}
	return out, missing, nil
}
