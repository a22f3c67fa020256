package jsonx

import (
	"math"
	"math/big"
	"testing"
)

// The expected texts below were printed by CPython 3 (json.dumps and repr)
// for the same inputs; they are the reference, not this package.

func TestDumpsStringAndRepr(t *testing.T) {
	cases := []struct{ in, dumps, dumpsUnicode, repr string }{
		{"a\"b\\c/d\x0a\x0d\x09\x08\x0c", "\"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\"", "\"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\"", "'a\"b\\\\c/d\\n\\r\\t\\x08\\x0c'"},
		{"\x00\x01\x1f\x7f\U00000080", "\"\\u0000\\u0001\\u001f\\u007f\\u0080\"", "\"\\u0000\\u0001\\u001f\x7f\U00000080\"", "'\\x00\\x01\\x1f\\x7f\\x80'"},
		{"\U000000e9\U00004e2d\U0001f600", "\"\\u00e9\\u4e2d\\ud83d\\ude00\"", "\"\U000000e9\U00004e2d\U0001f600\"", "'\U000000e9\U00004e2d\U0001f600'"},
		{"\U0000fffd", "\"\\ufffd\"", "\"\U0000fffd\"", "'\U0000fffd'"},
		{"\U00002028\U000000a0", "\"\\u2028\\u00a0\"", "\"\U00002028\U000000a0\"", "'\\u2028\\xa0'"},
		{"it's", "\"it's\"", "\"it's\"", "\"it's\""},
		{"both ' and \"", "\"both ' and \\\"\"", "\"both ' and \\\"\"", "'both \\' and \"'"},
		{"\x7f", "\"\\u007f\"", "\"\x7f\"", "'\\x7f'"},
		{"<&>", "\"<&>\"", "\"<&>\"", "'<&>'"},
		{"", "\"\"", "\"\"", "''"},
	}
	for _, c := range cases {
		if got := string(AppendDumpsString(nil, c.in, true)); got != c.dumps {
			t.Errorf("json.dumps(%q) = %s, want %s", c.in, got, c.dumps)
		}
		if got := string(AppendDumpsString(nil, c.in, false)); got != c.dumpsUnicode {
			t.Errorf("json.dumps(%q, ensure_ascii=False) = %s, want %s", c.in, got, c.dumpsUnicode)
		}
		if got := StringRepr(c.in); got != c.repr {
			t.Errorf("repr(%q) = %s, want %s", c.in, got, c.repr)
		}
	}
	// Bytes that are not UTF-8 cannot reach Python; they are written as U+FFFD escaped.
	if got := string(AppendDumpsString(nil, "a\xffb", false)); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestPythonNumbers(t *testing.T) {
	cases := []struct{ text, dumps, repr string }{
		{"0", "0", "0"},
		{"-0", "0", "0"},
		{"1.50", "1.5", "1.5"},
		{"1e16", "1e+16", "1e+16"},
		{"-0.0", "-0.0", "-0.0"},
		{"1E5", "100000.0", "100000.0"},
		{"123456789012345678901234567890", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"-9223372036854775809", "-9223372036854775809", "-9223372036854775809"},
		{"9223372036854775807", "9223372036854775807", "9223372036854775807"},
		{"1234567.5", "1234567.5", "1234567.5"},
		{"0.0001", "0.0001", "0.0001"},
		{"0.00001", "1e-05", "1e-05"},
		{"1e22", "1e+22", "1e+22"},
		{"9007199254740993", "9007199254740993", "9007199254740993"},
		{"9007199254740993.0", "9007199254740992.0", "9007199254740992.0"},
		{"1.0e-7", "1e-07", "1e-07"},
		{"2.5e15", "2500000000000000.0", "2500000000000000.0"},
		{"1e15", "1000000000000000.0", "1000000000000000.0"},
		{"123456789012345678.0", "1.2345678901234568e+17", "1.2345678901234568e+17"},
		{"1e400", "Infinity", "inf"},
		{"-1e400", "-Infinity", "-inf"},
		{"0.1", "0.1", "0.1"},
		{"5e-324", "5e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308", "1.7976931348623157e+308"},
	}
	for _, c := range cases {
		n := ParseNumber(c.text)
		if got := string(AppendDumpsNumber(nil, n)); got != c.dumps {
			t.Errorf("json.dumps(json.loads(%s)) = %s, want %s", c.text, got, c.dumps)
		}
		if got := Repr(n); got != c.repr {
			t.Errorf("repr(json.loads(%s)) = %s, want %s", c.text, got, c.repr)
		}
	}
	// Python's types: an int stays exact at any size, text with . or e is a float.
	if _, ok := ParseNumber("9223372036854775808").(*big.Int); !ok {
		t.Error("2**63 is not a *big.Int")
	}
	if f, ok := ParseNumber("1E5").(float64); !ok || f != 1e5 {
		t.Error("1E5 is not the float 100000.0")
	}
	if got := FloatRepr(math.NaN()); got != "nan" {
		t.Errorf("repr(nan) = %s", got)
	}
}

func TestDumpsDocuments(t *testing.T) {
	cases := []struct{ in, dumps, compactUnicode, repr string }{
		{"{\"b\": [1, 2.0, {\"\U000000e9\": null}], \"a\": true, \"c\": \"\\u007f\\u00e9\"}", "{\"b\": [1, 2.0, {\"\\u00e9\": null}], \"a\": true, \"c\": \"\\u007f\\u00e9\"}", "{\"b\":[1,2.0,{\"\U000000e9\":null}],\"a\":true,\"c\":\"\x7f\U000000e9\"}", "{'b': [1, 2.0, {'\U000000e9': None}], 'a': True, 'c': '\\x7f\U000000e9'}"},
		{"[]", "[]", "[]", "[]"},
		{"{}", "{}", "{}", "{}"},
		{"[{\"x\": 1e16}, -0.0, 10]", "[{\"x\": 1e+16}, -0.0, 10]", "[{\"x\":1e+16},-0.0,10]", "[{'x': 1e+16}, -0.0, 10]"},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(v.AppendDumps(nil, PythonDefaults)); got != c.dumps {
			t.Errorf("json.dumps(%s)\n = %s\nwant %s", c.in, got, c.dumps)
		}
		if got := string(v.AppendDumps(nil, DumpsOptions{ItemSep: ",", KeySep: ":"})); got != c.compactUnicode {
			t.Errorf("json.dumps(%s, compact, ensure_ascii=False)\n = %s\nwant %s", c.in, got, c.compactUnicode)
		}
		// Repr sorts dict keys (Go maps have no order); compare where Python's order is sorted.
		if v.Kind != Object || len(v.Members) < 2 {
			if got := Repr(v.Python()); got != c.repr {
				t.Errorf("repr(%s)\n = %s\nwant %s", c.in, got, c.repr)
			}
		}
	}
	v, err := LoadPython([]byte(`{"b": [1, 2.0, "x"], "a": {"k": 1, "k": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	// CPython: repr and json.dumps(sort_keys=True) of json.loads(...), keys sorted.
	if got, want := Repr(v), "{'a': {'k': 2}, 'b': [1, 2.0, 'x']}"; got != want {
		t.Errorf("LoadPython: %s, want %s", got, want)
	}
	if got, want := string(AppendDumpsPython(nil, v, PythonDefaults)), `{"a": {"k": 2}, "b": [1, 2.0, "x"]}`; got != want {
		t.Errorf("AppendDumpsPython: %s, want %s", got, want)
	}
}
