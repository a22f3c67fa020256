package checker

import (
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// fn is a BFCL function list used by the hand-made cases.
const fn = `[{"name": "geo.area", "parameters": {"type": "dict", "properties": {
	"base": {"type": "integer"},
	"height": {"type": "float"},
	"unit": {"type": "string"},
	"exact": {"type": "boolean"},
	"dims": {"type": "array", "items": {"type": "integer"}},
	"ratio": {"type": "array", "items": {"type": "float"}},
	"point": {"type": "tuple", "items": {"type": "integer"}},
	"names": {"type": "array", "items": {"type": "string"}},
	"opts": {"type": "dict"},
	"rows": {"type": "array", "items": {"type": "dict"}},
	"note": {"type": "any"},
	"loose": {"type": "array"}
	}, "required": ["base"]}},
	{"name": "other", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}]`

func mustFuncs(t *testing.T, s string) []Function {
	t.Helper()
	f, err := ParseFunctions([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustAnswers(t *testing.T, s string) []Answer {
	t.Helper()
	a, err := ParseAnswers([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// calls reads "name {json args}; name {json args}".
func calls(t *testing.T, s string) []Call {
	t.Helper()
	var out []Call
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, args, _ := strings.Cut(part, " ")
		c, err := DecodeCall(name, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestCheck(t *testing.T) {
	// ans accepts base 10, height 5.5 or 5, unit optional, …
	const ans = `[{"geo.area": {"base": [10], "height": [5.5, 5], "unit": ["cm", ""], "exact": [true, ""],
		"dims": [[1, 2], ""], "ratio": [[0.5, 1.0], ""], "point": [[3, 4], ""], "names": [["New York", "LA"], ""],
		"opts": [{"mode": ["fast", "quick"], "depth": [2, ""]}, ""], "rows": [[{"k": ["a"]}, {"k": ["b"]}], ""],
		"note": ["hello", ""], "loose": [[1, "x"], ""]}}]`
	tests := []struct {
		name, category, answers, calls string
		valid                          bool
		errType                        string
	}{
		{"exact match", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "unit": "cm"}`, true, ""},
		{"optional omitted", "simple_python", ans, `geo.area {"base": 10, "height": 5.5}`, true, ""},
		{"dotted name kept", "simple_python", ans, `geo_area {"base": 10, "height": 5.5}`, false, "simple_function_checker:wrong_func_name"},
		{"wrong name", "simple_python", ans, `other {"x": 1}`, false, "simple_function_checker:wrong_func_name"},
		{"no call", "simple_python", ans, ``, false, "simple_function_checker:wrong_count"},
		{"two calls in simple", "simple_python", ans, `geo.area {"base": 10, "height": 5.5}; geo.area {"base": 10, "height": 5.5}`, false, "simple_function_checker:wrong_count"},
		{"required missing", "simple_python", ans, `geo.area {"height": 5.5}`, false, "simple_function_checker:missing_required"},
		{"param not in schema", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "color": "red"}`, false, "simple_function_checker:unexpected_param"},
		{"not required, not optional in answer", "simple_python", ans, `geo.area {"base": 10}`, false, "simple_function_checker:missing_optional"},
		{"param in schema, not in answer", "simple_python", `[{"geo.area": {"base": [10]}}]`, `geo.area {"base": 10, "height": 5.5}`, false, "simple_function_checker:unexpected_param"},
		{"int for float", "simple_python", ans, `geo.area {"base": 10, "height": 5}`, true, ""},
		{"float for int", "simple_python", ans, `geo.area {"base": 10.0, "height": 5.5}`, false, "type_error:simple"},
		{"bool for int", "simple_python", ans, `geo.area {"base": true, "height": 5.5}`, false, "type_error:simple"},
		{"string for int", "simple_python", ans, `geo.area {"base": "10", "height": 5.5}`, false, "type_error:simple"},
		{"wrong number", "simple_python", ans, `geo.area {"base": 11, "height": 5.5}`, false, "value_error:others"},
		{"bool value", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "exact": true}`, true, ""},
		{"bool wrong", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "exact": false}`, false, "value_error:others"},
		{"int for bool", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "exact": 1}`, false, "type_error:simple"},
		{"string standardized", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "unit": " C.M "}`, true, ""},
		{"string wrong", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "unit": "mm"}`, false, "value_error:string"},
		{"empty string is not omission", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "unit": ""}`, true, ""},
		{"any is a string", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "note": "Hello"}`, true, ""},
		{"any given a number", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "note": 3}`, false, "type_error:simple"},
		{"list in order", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "dims": [1, 2]}`, true, ""},
		{"list out of order", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "dims": [2, 1]}`, false, "value_error:list/tuple"},
		// As in BFCL, "" among the accepted values passes the nested type check;
		// the value check still fails.
		{"list item type with optional", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "dims": [1, "2"]}`, false, "value_error:list/tuple"},
		{"list item type", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "dims": [[1, 2]]}}]`, `geo.area {"base": 10, "height": 5.5, "dims": [1, "2"]}`, false, "type_error:nested"},
		{"list item float for int", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "dims": [[1, 2]]}}]`, `geo.area {"base": 10, "height": 5.5, "dims": [1.0, 2]}`, false, "type_error:nested"},
		{"nested floats need floats", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "ratio": [[0.5, 1.0]]}}]`, `geo.area {"base": 10, "height": 5.5, "ratio": [0.5, 1]}`, false, "type_error:nested"},
		{"nested floats", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "ratio": [0.5, 1.0]}`, true, ""},
		{"list strings standardized", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "names": ["new york", "L.A."]}`, true, ""},
		{"list length", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "names": ["New York"]}`, false, "value_error:list/tuple"},
		{"empty list when optional", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "names": []}`, true, ""},
		{"tuple as list", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "point": [3, 4]}`, true, ""},
		{"list without item type", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "loose": [1, "X"]}`, true, ""},
		{"dict key by key", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "opts": {"mode": "Quick", "depth": 2}}`, true, ""},
		{"dict optional key", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "opts": {"mode": "fast"}}`, true, ""},
		{"dict missing key", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "opts": [{"mode": ["fast"], "depth": [2]}]}}]`, `geo.area {"base": 10, "height": 5.5, "opts": {"mode": "fast"}}`, false, "value_error:dict_key"},
		{"dict extra key", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "opts": {"mode": "fast", "x": 1}}`, false, "value_error:dict_key"},
		{"dict wrong value", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "opts": {"mode": "slow"}}`, false, "value_error:dict_value"},
		{"list of dicts", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "rows": [{"k": "A"}, {"k": "b"}]}`, true, ""},
		{"list of dicts order", "simple_python", ans, `geo.area {"base": 10, "height": 5.5, "rows": [{"k": "b"}, {"k": "a"}]}`, false, "value_error:list_dict_count"}, // BFCL reports the last accepted value's error ("")
		{"list of dicts order, no optional", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "rows": [[{"k": ["a"]}, {"k": ["b"]}]]}}]`, `geo.area {"base": 10, "height": 5.5, "rows": [{"k": "b"}, {"k": "a"}]}`, false, "value_error:dict_value"},
		{"list of dicts count", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "rows": [[{"k": ["a"]}]]}}]`, `geo.area {"base": 10, "height": 5.5, "rows": [{"k": "a"}, {"k": "b"}]}`, false, "value_error:list_dict_count"},
		{"variable: string where answer is a string", "simple_python", `[{"geo.area": {"base": ["n"], "height": [5.5]}}]`, `geo.area {"base": "n", "height": 5.5}`, true, ""},
		{"variable compared exactly", "simple_python", `[{"geo.area": {"base": ["n"], "height": [5.5]}}]`, `geo.area {"base": "N", "height": 5.5}`, false, "value_error:others"},
		// Python ints are exact at any size; str.lower() maps final sigma and İ
		// as Unicode's full case mapping does (each verified with python3).
		{"int beyond int64", "simple_python", `[{"geo.area": {"base": [18446744073709551616], "height": [5.5]}}]`, `geo.area {"base": 18446744073709551616, "height": 5.5}`, true, ""},
		{"int beyond int64, off by one", "simple_python", `[{"geo.area": {"base": [18446744073709551616], "height": [5.5]}}]`, `geo.area {"base": 18446744073709551617, "height": 5.5}`, false, "value_error:others"},
		{"int beyond 2^53, off by one", "simple_python", `[{"geo.area": {"base": [9007199254740992], "height": [5.5]}}]`, `geo.area {"base": 9007199254740993, "height": 5.5}`, false, "value_error:others"},
		{"int beyond 2^53 is not its float", "simple_python", `[{"geo.area": {"base": [9007199254740992.0], "height": [5.5]}}]`, `geo.area {"base": 9007199254740993, "height": 5.5}`, false, "value_error:others"},
		{"int equal to its float", "simple_python", `[{"geo.area": {"base": [9007199254740992.0], "height": [5.5]}}]`, `geo.area {"base": 9007199254740992, "height": 5.5}`, true, ""},
		{"big int for float, rounded as float(int)", "simple_python", `[{"geo.area": {"base": [10], "height": [1e20]}}]`, `geo.area {"base": 10, "height": 100000000000000000001}`, true, ""},
		{"final sigma", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "unit": ["ΟΔΟΣ"]}}]`, `geo.area {"base": 10, "height": 5.5, "unit": "οδος"}`, true, ""},
		{"medial sigma", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "unit": ["ΟΔΟΣ"]}}]`, `geo.area {"base": 10, "height": 5.5, "unit": "οδοσ"}`, false, "value_error:string"},
		{"dotted capital I", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "unit": ["İstanbul"]}}]`, "geo.area {\"base\": 10, \"height\": 5.5, \"unit\": \"i\u0307stanbul\"}", true, ""},
		{"dotted capital I is not i", "simple_python", `[{"geo.area": {"base": [10], "height": [5.5], "unit": ["İstanbul"]}}]`, `geo.area {"base": 10, "height": 5.5, "unit": "istanbul"}`, false, "value_error:string"},
		{"multiple: right function", "multiple", `[{"other": {"x": [1]}}]`, `other {"x": 1}`, true, ""},
		{"multiple: wrong function", "multiple", `[{"other": {"x": [1]}}]`, `geo.area {"base": 10}`, false, "simple_function_checker:wrong_func_name"},
		{"multiple: two calls", "multiple", `[{"other": {"x": [1]}}]`, `other {"x": 1}; other {"x": 1}`, false, "multiple_function_checker:wrong_count"},
		{"parallel any order", "parallel", `[{"other": {"x": [1]}}, {"other": {"x": [2]}}, {"geo.area": {"base": [10], "height": [5.5]}}]`, `other {"x": 2}; geo.area {"base": 10, "height": 5.5}; other {"x": 1}`, true, ""},
		{"parallel distinct matches", "parallel", `[{"other": {"x": [1]}}, {"other": {"x": [1, 2]}}]`, `other {"x": 1}; other {"x": 1}`, true, ""},
		{"parallel greedy, as BFCL", "parallel", `[{"other": {"x": [1, 2]}}, {"other": {"x": [1]}}]`, `other {"x": 1}; other {"x": 2}`, false, "parallel_function_checker_no_order:cannot_find_match"},
		{"parallel count", "parallel", `[{"other": {"x": [1]}}, {"other": {"x": [2]}}]`, `other {"x": 1}`, false, "parallel_function_checker_no_order:wrong_count"},
		{"parallel_multiple", "parallel_multiple", `[{"other": {"x": [1]}}, {"geo.area": {"base": [10], "height": [5.5]}}]`, `geo.area {"base": 10, "height": 5.5}; other {"x": 1}`, true, ""},
		{"irrelevance: no call", "irrelevance", ``, ``, true, ""},
		{"irrelevance: a call", "irrelevance", ``, `other {"x": 1}`, false, "irrelevance_error:decoder_success"},
		{"relevance: a call", "live_relevance", ``, `other {"x": 5}`, true, ""},
		{"relevance: no call", "live_relevance", ``, ``, false, "relevance_error:decoder_failed"},
	}
	funcs := mustFuncs(t, fn)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var answers []Answer
			if tt.answers != "" {
				answers = mustAnswers(t, tt.answers)
			}
			f := funcs
			if tt.category == "simple_python" {
				f = funcs[:1]
			}
			r, err := Check(tt.category, f, calls(t, tt.calls), answers)
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != tt.valid || r.ErrorType != tt.errType {
				t.Errorf("got valid=%v %q %v, want valid=%v %q", r.Valid, r.ErrorType, r.Errors, tt.valid, tt.errType)
			}
		})
	}
}

func TestUndecodable(t *testing.T) {
	if r := Undecodable("irrelevance", nil); !r.Valid {
		t.Error("irrelevance: an undecodable reply is no call, so correct")
	}
	if r := Undecodable("simple_python", nil); r.Valid || r.ErrorType != "ast_decoder:decoder_failed" {
		t.Errorf("simple: got %+v", r)
	}
}

func TestUnsupportedType(t *testing.T) {
	funcs := mustFuncs(t, `[{"name": "f", "parameters": {"properties": {"x": {"type": "HashMap"}}}}]`)
	_, err := Check("simple_python", funcs, calls(t, `f {"x": {}}`), mustAnswers(t, `[{"f": {"x": [{}]}}]`))
	if err == nil || !strings.Contains(err.Error(), "HashMap") {
		t.Fatalf("got %v", err)
	}
}

func TestStandardize(t *testing.T) {
	for in, want := range map[string]string{
		"April 1, 2024": "april12024",
		"New-York_City": "newyorkcity",
		"a*b^c/d.e":     "abcde",
		"it's 'quoted'": `it"s"quoted"`,
		"Tab\tkept":     "tab\tkept",
		"São Paulo":     "sãopaulo",
		// Expected values from python3 (re.sub(...).lower().replace("'", '"')).
		"ΟΔΟΣ":         "οδος",
		"ΑΣ Β":         "ασβ", // the space goes first: Σ is no longer final
		"ΌΣΟΣ.ΜΕΓΑΛΟΣ": "όσοσμεγαλος",
		"Α'Σ":          `α"ς`,
		"İstanbul":     "i\u0307stanbul",
	} {
		if got := Standardize(in); got != want {
			t.Errorf("Standardize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPyLower compares with python3's str.lower() on each input.
func TestPyLower(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"HELLO", "hello"},
		{"ΟΔΟΣ", "οδος"},
		{"ΣΑΣ", "σας"},
		{"Σ", "σ"},
		{"AΣ", "aς"},
		{"AΣB", "aσb"},
		{"ΣΑΣ1", "σας1"},
		{"1Σ", "1σ"},
		{"ΑΣ Β", "ας β"},
		{"ΑΣ.Β", "ασ.β"}, // '.' is case-ignorable: Β follows
		{"ΑΣ'", "ας'"},
		{"Α'Σ", "α'ς"},
		{"a\u0301Σ", "a\u0301ς"},
		{"ΑΣ\u0301", "ας\u0301"},
		{"ǅΣ", "ǆς"}, // titlecase is cased
		{"ªΣ", "ªς"}, // Other_Lowercase is cased
		{"ʰΣ", "ʰσ"}, // cased but also case-ignorable: skipped
		{"AʰΣ", "aʰς"},
		{"ΌΣΟΣ.ΜΕΓΑΛΟΣ", "όσοσ.μεγαλος"},
		{"İstanbul", "i\u0307stanbul"},
		{"DİYARBAKIR", "di\u0307yarbakir"},
	} {
		if got := pyLower(tt.in); got != tt.want {
			t.Errorf("pyLower(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeTypes(t *testing.T) {
	v, err := jsonx.LoadPython([]byte(`[1, 1.0, 1e3, -2, true, null, "s", {"a": [2.5]}]`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range v.([]any) {
		got = append(got, pyType(e))
	}
	if want := "int float float int bool NoneType str dict"; strings.Join(got, " ") != want {
		t.Errorf("types %v, want %s", got, want)
	}
	if back, _ := jsonx.LoadPython(encode(v)); !pyEqual(back, v) || pyType(back.([]any)[1]) != "float" {
		t.Errorf("Encode round trip: %s", encode(v))
	}
	big, err := jsonx.LoadPython([]byte(`[18446744073709551616, -18446744073709551617]`))
	if err != nil {
		t.Fatal(err)
	}
	if pyType(big.([]any)[0]) != "int" || string(encode(big)) != `[18446744073709551616,-18446744073709551617]` || jsonx.Repr(big) != "[18446744073709551616, -18446744073709551617]" {
		t.Errorf("ints beyond int64: %s %s %s", pyType(big.([]any)[0]), encode(big), jsonx.Repr(big))
	}
	for in, want := range map[string]float64{ // python3: float(int(in))
		"9007199254740993":      9007199254740992,
		"9007199254740995":      9007199254740996,
		"100000000000000000001": 1e20,
		"-18446744073709553664": -1.8446744073709552e19,
	} {
		v, _ := jsonx.LoadPython([]byte(in))
		i, _ := pyInt(v)
		if got := pyFloat(i); got != want {
			t.Errorf("float(%s) = %v, want %v", in, got, want)
		}
	}
	if _, err := jsonx.LoadPython([]byte(`{} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestPyEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true}, {`true`, `1`, true}, {`false`, `0.0`, true}, {`"1"`, `1`, false},
		{`[1, [2]]`, `[1.0, [2]]`, true}, {`{"a": 1}`, `{"a": 1, "b": 2}`, false}, {`null`, `null`, true},
		{`9007199254740993`, `9007199254740992`, false},
		// Python compares ints exactly, also with floats (verified with python3).
		{`9007199254740993`, `9007199254740992.0`, false},
		{`9007199254740992`, `9007199254740992.0`, true},
		{`18446744073709551616`, `18446744073709551616.0`, true},
		{`18446744073709551617`, `18446744073709551616.0`, false},
		{`1000000000000000000000000000000`, `1000000000000000000000000000000`, true},
		{`1000000000000000000000000000000`, `1000000000000000000000000000001`, false},
		{`123456789012345678901234567890`, `1.2345678901234568e29`, false},
		{`-9223372036854775808`, `-9.223372036854776e18`, true},
		{`9223372036854775808`, `9.223372036854776e18`, true},
		{`9223372036854775807`, `9.223372036854776e18`, false},
		{`-18446744073709551616`, `-18446744073709551616`, true},
		{`[18446744073709551616]`, `[18446744073709551616.0]`, true},
		{`true`, `1.0`, true},
		{`1e400`, `1e400`, true},
		{`0.5`, `0`, false},
	} {
		a, _ := jsonx.LoadPython([]byte(tt.a))
		b, _ := jsonx.LoadPython([]byte(tt.b))
		if pyEqual(a, b) != tt.eq {
			t.Errorf("%s == %s: want %v", tt.a, tt.b, tt.eq)
		}
	}
}

// encode writes Python values as compact JSON that jsonx.LoadPython reads
// back to the same values.
func encode(v any) []byte {
	return jsonx.AppendDumpsPython(nil, v, jsonx.DumpsOptions{ItemSep: ",", KeySep: ":"})
}
