package jsonx

import "testing"

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	cases := []struct{ in, compact, spaced string }{
		{`{"z": 1, "a": [1.50, -0, 1e400], "m": {"b": null, "a": true}}`,
			`{"z":1,"a":[1.50,-0,1e400],"m":{"b":null,"a":true}}`,
			`{"z": 1, "a": [1.50, -0, 1e400], "m": {"b": null, "a": true}}`},
		{`"<a&b>\u00e9\u007f"`, "\"<a&b>é\x7f\"", "\"<a&b>é\x7f\""},
		{`{"k": 1, "k": 2}`, `{"k":2}`, `{"k": 2}`}, // a repeated key: the last wins, in the first place
		{`[]`, `[]`, `[]`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := string(v.JSON()); got != c.compact {
			t.Errorf("%s: JSON() = %s, want %s", c.in, got, c.compact)
		}
		if got := string(v.Append(nil, true)); got != c.spaced {
			t.Errorf("%s: spaced = %s, want %s", c.in, got, c.spaced)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `{"a":1} x`, `{"a" 1}`} {
		if v, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", in, v.JSON())
		}
	}
}

func TestGetSet(t *testing.T) {
	v, err := Parse([]byte(`{"a":"x","b":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := v.Get("a").AsString(); !ok || s != "x" {
		t.Errorf(`Get("a") = %q %v`, s, ok)
	}
	if _, ok := v.Get("b").AsString(); ok {
		t.Error(`Get("b").AsString() ok for a number`)
	}
	if v.Get("missing") != nil || v.Get("a").Get("a") != nil {
		t.Error("Get of a missing key or on a non-object is not nil")
	}
	v.Set("a", NewString("y"))
	v.Set("c", &Value{Kind: Null})
	if got := string(v.JSON()); got != `{"a":"y","b":2,"c":null}` {
		t.Errorf("after Set: %s", got)
	}
}
