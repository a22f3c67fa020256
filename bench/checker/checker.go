package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/offgrid-ai/offgrid/bench/bfcl"
	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Function is a BFCL function description with its raw type names
// ("integer", "float", "dict", "tuple", "any", …), which the checker needs
// before any conversion to JSON Schema.
type Function struct {
	Name     string
	Params   map[string]Param
	Required []string
}

// Param is one parameter's BFCL type and, for arrays and tuples, the type
// of its items.
type Param struct {
	Type  string
	Items string
}

// Call is one function call a model made, its arguments decoded as Values
// (see Decode).
type Call struct {
	Name string
	Args map[string]any
}

// Answer is one ground-truth call: the function name and, per parameter,
// the accepted values; "" among them marks the parameter optional.
type Answer struct {
	Name   string
	Params map[string][]any
}

// Result is a verdict. ErrorType uses BFCL's names
// ("simple_function_checker:missing_required", "type_error:simple", …).
type Result struct {
	Valid     bool     `json:"valid"`
	ErrorType string   `json:"error_type,omitempty"`
	Errors    []string `json:"errors,omitempty"`
}

func fail(errType, format string, args ...any) Result {
	return Result{ErrorType: errType, Errors: []string{fmt.Sprintf(format, args...)}}
}

var ok = Result{Valid: true}

// ErrUnsupported is returned for function descriptions the Python checker
// cannot score (a type name outside its table).
var ErrUnsupported = errors.New("checker: unsupported")

// ParseFunctions reads a JSON array of BFCL function descriptions.
// A property without a type is a string, as BFCL treats it.
func ParseFunctions(data []byte) ([]Function, error) {
	var raw []struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]struct {
				Type  string `json:"type"`
				Items *struct {
					Type string `json:"type"`
				} `json:"items"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("checker: functions: %w", err)
	}
	funcs := make([]Function, len(raw))
	for i, r := range raw {
		f := Function{Name: r.Name, Params: map[string]Param{}, Required: r.Parameters.Required}
		for name, p := range r.Parameters.Properties {
			t := p.Type
			if t == "" {
				t = "string"
			}
			prm := Param{Type: t}
			if p.Items != nil {
				prm.Items = p.Items.Type
			}
			f.Params[name] = prm
		}
		funcs[i] = f
	}
	return funcs, nil
}

// ParseAnswers reads a BFCL ground_truth array:
// [{"func": {"param": [accepted, …], …}}, …].
func ParseAnswers(data []byte) ([]Answer, error) {
	v, err := jsonx.LoadPython(data)
	if err != nil {
		return nil, fmt.Errorf("checker: answers: %w", err)
	}
	list, isList := v.([]any)
	if !isList {
		return nil, errors.New("checker: answers: want a JSON array")
	}
	answers := make([]Answer, 0, len(list))
	for i, e := range list {
		m, isMap := e.(map[string]any)
		if !isMap || len(m) != 1 {
			return nil, fmt.Errorf("checker: answer %d: want an object with one function name", i)
		}
		for name, ps := range m {
			pm, isMap := ps.(map[string]any)
			if !isMap {
				return nil, fmt.Errorf("checker: answer %d: %s: parameters are not an object", i, name)
			}
			a := Answer{Name: name, Params: map[string][]any{}}
			for p, accepted := range pm {
				l, isList := accepted.([]any)
				if !isList {
					return nil, fmt.Errorf("checker: answer %d: %s.%s: accepted values are not a list", i, name, p)
				}
				a.Params[p] = l
			}
			answers = append(answers, a)
		}
	}
	return answers, nil
}

// DecodeCall decodes a call's JSON arguments object.
func DecodeCall(name string, args []byte) (Call, error) {
	if len(args) == 0 {
		return Call{Name: name, Args: map[string]any{}}, nil
	}
	v, err := jsonx.LoadPython(args)
	if err != nil {
		return Call{}, fmt.Errorf("checker: %s arguments: %w", name, err)
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return Call{}, fmt.Errorf("checker: %s arguments are not an object", name)
	}
	return Call{Name: name, Args: m}, nil
}

// Irrelevance reports whether category is scored by the absence of calls.
func Irrelevance(category string) bool { return strings.Contains(category, "irrelevance") }

// Relevance reports whether category is scored by the presence of a call
// (BFCL's live_relevance).
func Relevance(category string) bool {
	return strings.Contains(category, "relevance") && !Irrelevance(category)
}

// Undecodable is the verdict for a reply that did not decode into calls:
// a failure, except in irrelevance categories, where BFCL counts it as no
// call.
func Undecodable(category string, err error) Result {
	if Irrelevance(category) {
		return ok
	}
	return fail("ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. %v", err)
}

// Check scores the calls a model made for one case of category (BFCL's
// category name, e.g. "simple_python", "multiple", "parallel_multiple").
// As in BFCL, categories naming "parallel" match calls in any order,
// those naming "multiple" check exactly one call, the rest expect exactly
// one call, and irrelevance is correct when no call was made.
func Check(category string, funcs []Function, calls []Call, answers []Answer) (Result, error) {
	switch {
	case Irrelevance(category):
		if len(calls) > 0 {
			return fail("irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not."), nil
		}
		return ok, nil
	case Relevance(category):
		if len(calls) == 0 {
			return fail("relevance_error:decoder_failed", "Valid syntax. No function call made when one was expected."), nil
		}
		return ok, nil
	case strings.Contains(category, "parallel"):
		return parallelNoOrder(funcs, calls, answers)
	case strings.Contains(category, "multiple"):
		if len(calls) != len(answers) {
			return fail("multiple_function_checker:wrong_count", "Wrong number of functions."), nil
		}
		if len(answers) == 0 {
			return ok, nil
		}
		return simple(find(funcs, answers[0].Name), calls[0], answers[0])
	default:
		if len(calls) != 1 {
			return fail("simple_function_checker:wrong_count", "Wrong number of functions."), nil
		}
		if len(funcs) == 0 || len(answers) == 0 {
			return Result{}, fmt.Errorf("%w: case without functions or answers", ErrUnsupported)
		}
		return simple(&funcs[0], calls[0], answers[0])
	}
}

func find(funcs []Function, name string) *Function {
	for i := range funcs {
		if funcs[i].Name == name {
			return &funcs[i]
		}
	}
	return nil
}

func parallelNoOrder(funcs []Function, calls []Call, answers []Answer) (Result, error) {
	if len(calls) != len(answers) {
		return fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions."), nil
	}
	matched := make([]bool, len(calls))
	for i, a := range answers {
		f := find(funcs, a.Name)
		var errs []string
		found := false
		for j, c := range calls {
			if matched[j] {
				continue
			}
			r, err := simple(f, c, a)
			if err != nil {
				return Result{}, err
			}
			if r.Valid {
				matched[j], found = true, true
				break
			}
			errs = append(errs, fmt.Sprintf("model call %d: %s: %s", j, r.ErrorType, strings.Join(r.Errors, " ")))
		}
		if !found {
			return Result{
				ErrorType: "parallel_function_checker_no_order:cannot_find_match",
				Errors:    append([]string{fmt.Sprintf("Could not find a matching function among the unmatched model calls for index %d of possible answers.", i)}, errs...),
			}, nil
		}
	}
	return ok, nil
}

// simple is BFCL's simple_function_checker for Python.
func simple(f *Function, call Call, answer Answer) (Result, error) {
	if f == nil {
		return Result{}, fmt.Errorf("%w: no description of function %q", ErrUnsupported, answer.Name)
	}
	if call.Name != f.Name {
		return fail("simple_function_checker:wrong_func_name", "Function name %s not found in model output.", jsonx.Repr(f.Name)), nil
	}
	for _, p := range f.Required {
		if _, has := call.Args[p]; !has {
			return fail("simple_function_checker:missing_required", "Missing required parameter: %s.", jsonx.Repr(p)), nil
		}
	}
	for _, param := range sortedKeys(call.Args) {
		value := call.Args[param]
		detail, inSchema := f.Params[param]
		accepted, inAnswer := answer.Params[param]
		if !inSchema || !inAnswer {
			return fail("simple_function_checker:unexpected_param", "Unexpected parameter: %s.", jsonx.Repr(param)), nil
		}
		expected, known := bfcl.PythonType(detail.Type)
		if !known {
			return Result{}, fmt.Errorf("%w: %s.%s has type %q", ErrUnsupported, f.Name, param, detail.Type)
		}
		nested := ""
		if detail.Type == "array" || detail.Type == "tuple" {
			if detail.Items != "" {
				if nested, known = bfcl.PythonType(detail.Items); !known {
					return Result{}, fmt.Errorf("%w: %s.%s has item type %q", ErrUnsupported, f.Name, param, detail.Items)
				}
			}
		}
		// Python converts an int to a float where a float is expected.
		if detail.Type == "float" {
			switch i := value.(type) {
			case int64:
				value = float64(i)
			case *big.Int:
				value = pyFloat(i)
			}
		}
		tc := typeCheck(param, value, accepted, detail.Type, expected, nested)
		if !tc.Valid {
			return tc.Result, nil
		}
		if r := valueCheck(param, value, accepted, expected, nested, tc.variable); !r.Valid {
			return r, nil
		}
	}
	for _, param := range sortedKeys(answer.Params) {
		if _, has := call.Args[param]; !has && !slices.ContainsFunc(answer.Params[param], isEmptyString) {
			return fail("simple_function_checker:missing_optional", "Optional parameter %s not provided and not marked as optional.", jsonx.Repr(param)), nil
		}
	}
	return ok, nil
}

// valueCheck compares a well-typed value with the accepted values: dicts,
// lists of dicts, strings and lists by their own rules, the rest (and
// variables) by Python's ==.
func valueCheck(param string, value any, accepted []any, expected, nested string, variable bool) Result {
	if !variable {
		switch {
		case expected == "dict":
			return dictCheck(value.(map[string]any), accepted)
		case expected == "list" && nested == "dict":
			return listDictCheck(value.([]any), accepted)
		case expected == "str":
			return stringCheck(param, value.(string), accepted)
		case expected == "list":
			return listCheck(param, value.([]any), accepted)
		}
	}
	if !pyIn(value, accepted) {
		return fail("value_error:others", "Invalid value for parameter %s: %s. Expected one of %s.", jsonx.Repr(param), jsonx.Repr(value), jsonx.Repr(accepted))
	}
	return ok
}

func isEmptyString(v any) bool { s, isStr := v.(string); return isStr && s == "" }

type typeResult struct {
	Result
	variable bool
}

// answerType is the Python type of the first accepted value other than "".
func answerType(accepted []any) string {
	for _, a := range accepted {
		if !isEmptyString(a) {
			return pyType(a)
		}
	}
	return ""
}

// typeCheck is BFCL's type_checker: the value must have the expected type
// (list items the nested type, checked one level deep against each list
// among the accepted values), or else the type of the accepted values,
// which makes it a "variable" compared exactly.
func typeCheck(param string, value any, accepted []any, desc, expected, nested string) typeResult {
	at := answerType(accepted)
	variable := at != "" && at != expected
	nestedFailed := false
	if pyType(value) == expected {
		if nested == "" {
			return typeResult{Result: ok, variable: variable}
		}
		items, _ := value.([]any)
		for _, a := range accepted {
			good := true
			if inner, isList := a.([]any); isList {
				for _, item := range items {
					if !typeCheck(param, item, inner, nested, nested, "").Valid {
						good = false
						break
					}
				}
			}
			if good {
				return typeResult{Result: ok, variable: variable}
			}
		}
		nestedFailed = true
	}
	if at != "" && pyType(value) == at {
		if nestedFailed {
			return typeResult{Result: nestedError(param, desc, nested, value), variable: true}
		}
		return typeResult{Result: ok, variable: true}
	}
	r := fail("type_error:simple", "Incorrect type for parameter %s. Expected type %s, got %s. Parameter value: %s.", jsonx.Repr(param), desc, pyType(value), jsonx.Repr(value))
	if nestedFailed {
		r.Errors = append(nestedError(param, desc, nested, value).Errors, r.Errors...)
	}
	return typeResult{Result: r}
}

func nestedError(param, desc, nested string, value any) Result {
	return fail("type_error:nested", "Nested type checking failed for parameter %s. Expected outer type %s with inner type %s. Parameter value: %s.", jsonx.Repr(param), desc, nested, jsonx.Repr(value))
}

var punctuation = regexp.MustCompile(`[ ,./\-_*^]`)

// Standardize is BFCL's standardize_string: drop spaces and ",./-_*^",
// lowercase as Python does (see pyLower), and turn ' into ".
func Standardize(s string) string {
	return strings.ReplaceAll(pyLower(punctuation.ReplaceAllString(s, "")), "'", `"`)
}

func stringCheck(param, value string, accepted []any) Result {
	v := Standardize(value)
	for _, a := range accepted {
		if s, isStr := a.(string); isStr && Standardize(s) == v {
			return ok
		}
	}
	return fail("value_error:string", "Invalid value for parameter %s: %s. Expected one of %s. Case insensitive.", jsonx.Repr(param), jsonx.Repr(value), jsonx.Repr(accepted))
}

// sequence is how Python iterates an accepted value with range(len(x)):
// a list's items, a string's characters; nil for anything else.
func sequence(a any) ([]any, bool) {
	switch x := a.(type) {
	case []any:
		return x, true
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, true
	}
	return nil, false
}

func standardizeStrings(list []any) []any {
	out := make([]any, len(list))
	for i, e := range list {
		if s, isStr := e.(string); isStr {
			out[i] = Standardize(s)
		} else {
			out[i] = e
		}
	}
	return out
}

// listCheck compares a list element-wise, in order, with top-level
// strings standardized.
func listCheck(param string, value []any, accepted []any) Result {
	v := standardizeStrings(value)
	for _, a := range accepted {
		if seq, isSeq := sequence(a); isSeq && pyEqual(v, standardizeStrings(seq)) {
			return ok
		}
	}
	return fail("value_error:list/tuple", "Invalid value for parameter %s: %s. Expected one of %s.", jsonx.Repr(param), jsonx.Repr(value), jsonx.Repr(accepted))
}

// dictCheck compares a dict key by key against each accepted dict.
func dictCheck(value map[string]any, accepted []any) Result {
	r := fail("dict_checker:unclear", "No accepted dict.")
	for _, a := range accepted {
		if isEmptyString(a) {
			continue
		}
		want, isMap := a.(map[string]any)
		if !isMap {
			r = fail("dict_checker:unclear", "Accepted value %s is not a dict.", jsonx.Repr(a))
			continue
		}
		if r = dictMatch(value, want); r.Valid {
			return ok
		}
	}
	return r
}

func dictMatch(value, want map[string]any) Result {
	for _, k := range sortedKeys(value) {
		acc, has := want[k]
		if !has {
			return fail("value_error:dict_key", "Unexpected dict key parameter: '%s'.", k)
		}
		v := value[k]
		if s, isStr := v.(string); isStr {
			v = Standardize(s)
		}
		list, isList := acc.([]any)
		if !isList || !pyIn(v, standardizeStrings(list)) {
			return fail("value_error:dict_value", "Invalid value for parameter %s: %s. Expected one of %s.", jsonx.Repr(k), jsonx.Repr(value[k]), jsonx.Repr(acc))
		}
	}
	for _, k := range sortedKeys(want) {
		if _, has := value[k]; !has {
			if list, _ := want[k].([]any); !slices.ContainsFunc(list, isEmptyString) {
				return fail("value_error:dict_key", "Missing dict key parameter: '%s'.", k)
			}
		}
	}
	return ok
}

// listDictCheck compares a list of dicts, in order, against each accepted
// list of dicts ("" counts as the empty list).
func listDictCheck(value []any, accepted []any) Result {
	r := fail("list_dict_checker:unclear", "No accepted list of dicts.")
	for _, a := range accepted {
		seq, isSeq := sequence(a)
		if !isSeq || len(seq) != len(value) {
			r = fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
			continue
		}
		good := true
		for i := range value {
			m, isMap := value[i].(map[string]any)
			if !isMap {
				r, good = fail("type_error:nested", "Item %d is not a dict: %s.", i, jsonx.Repr(value[i])), false
				break
			}
			if r = dictCheck(m, []any{seq[i]}); !r.Valid {
				good = false
				break
			}
		}
		if good {
			return ok
		}
	}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
