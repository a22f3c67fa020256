package grammar

import (
	"strconv"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

func TestFromSchema(t *testing.T) {
	tests := []struct {
		name, schema string
		opts         SchemaOptions
		yes, no      []string
		warn         string
	}{
		{"order and optional", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},"required":["b"]}`, SchemaOptions{},
			[]string{`{"b":"x"}`, `{"a":1,"b":"x"}`, `{"a": 1, "b": "x", "c": true}`, "{\n  \"b\": \"\"\n}"},
			[]string{`{}`, `{"b":"x","a":1}`, `{"b":"x","d":1}`, `{"a":1}`, `{"b":"x",}`, `{"b" :"x"}`}, ""},
		{"no required", `{"properties":{"a":{"type":"null"},"b":{"enum":["p","q"]}}}`, SchemaOptions{},
			[]string{`{}`, `{"a":null}`, `{"b":"q"}`, `{"a":null,"b":"p"}`}, []string{`{"b":"r"}`, `{,}`}, ""},
		{"type list and nullable", `{"type":["string","integer"],"nullable":true}`, SchemaOptions{},
			[]string{`"s"`, `-12`, `null`}, []string{`1.5`, `true`}, ""},
		{"string limits", `{"type":"string","minLength":2,"maxLength":3}`, SchemaOptions{},
			[]string{`"ab"`, `"a\nb"`, `"\u00e9\"x"`}, []string{`"a"`, `"abcd"`, "\"a\nb\""}, ""},
		{"max string option", `{"type":"string"}`, SchemaOptions{MaxStringLength: 2}, []string{`""`, `"ab"`}, []string{`"abc"`}, ""},
		{"integer range", `{"type":"integer","minimum":-15,"exclusiveMaximum":130}`, SchemaOptions{},
			[]string{`-15`, `0`, `7`, `99`, `129`}, []string{`-16`, `130`, `007`, `-0`, `1.0`}, ""},
		{"array bounds", `{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`, SchemaOptions{},
			[]string{`[1]`, `[1, 2]`}, []string{`[]`, `[1,2,3]`, `["a"]`}, ""},
		{"max items option", `{"type":"array"}`, SchemaOptions{MaxItems: 1}, []string{`[]`, `[{"a":[1]}]`}, []string{`[1,2]`}, ""},
		{"prefixItems", `{"prefixItems":[{"type":"string"},{"type":"number"}],"items":false,"minItems":1}`, SchemaOptions{},
			[]string{`["a"]`, `["a",2.5e-3]`}, []string{`[]`, `[1]`, `["a",1,2]`}, ""},
		{"anyOf and const", `{"anyOf":[{"const":"x"},{"type":"object","properties":{"k":{"const":[1,{"z":null}]}},"required":["k"]}]}`, SchemaOptions{},
			[]string{`"x"`, `{"k":[1,{"z":null}]}`}, []string{`"y"`, `{}`}, ""},
		{"ref and defs", `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}},"required":["v"]}},"$ref":"#/$defs/node"}`, SchemaOptions{},
			[]string{`{"v":1}`, `{"v":1,"next":{"v":2,"next":{"v":3}}}`}, []string{`{"v":1,"next":{}}`}, ""},
		{"formats", `{"type":"object","properties":{"d":{"type":"string","format":"date"},"t":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uuid"}}}`, SchemaOptions{},
			[]string{`{"d":"2024-02-29"}`, `{"t":"2025-12-31T23:59:59.5+02:00"}`, `{"u":"123e4567-e89b-12d3-a456-426614174000"}`},
			[]string{`{"d":"2023-02-29"}`, `{"d":"2024-04-31"}`, `{"t":"2025-12-31 23:59:59Z"}`, `{"u":"123"}`}, ""},
		{"free-form dict", `{"type":"object","additionalProperties":{"type":"integer"}}`, SchemaOptions{},
			[]string{`{}`, `{"a":1,"b":2}`}, []string{`{"a":"x"}`}, ""},
		{"pattern warns", `{"type":"string","pattern":"^a+$"}`, SchemaOptions{}, []string{`"b"`}, nil, "pattern is not enforced"},
		{"unknown keyword warns", `{"type":"integer","multipleOf":3}`, SchemaOptions{}, []string{`4`}, nil, "multipleOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := FromSchema([]byte(tt.schema), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.Join(g.Warnings, "\n"); (tt.warn == "") != (w == "") || !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q, want %q", w, tt.warn)
			}
			r, err := gbnf.Parse(g.GBNF)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.yes {
				if !r.Accepts(g.Root, s) {
					t.Errorf("rejects %s\n%s", s, g.GBNF)
				}
			}
			for _, s := range tt.no {
				if r.Accepts(g.Root, s) {
					t.Errorf("accepts %s\n%s", s, g.GBNF)
				}
			}
		})
	}
}

func TestFromSchemaDeterministic(t *testing.T) {
	s := []byte(`{"type":"object","properties":{"z":{"enum":[1,2]},"a":{"type":"array","items":{"type":"object","properties":{"q":{"type":"string"}}}}}}`)
	a, _ := FromSchema(s, SchemaOptions{})
	b, _ := FromSchema(s, SchemaOptions{})
	if a.GBNF != b.GBNF || strings.Index(a.GBNF, `"\"z\":"`) > strings.Index(a.GBNF, `"\"a\":"`) {
		t.Errorf("not deterministic or not in declared order:\n%s", a.GBNF)
	}
}

func TestFromSchemaErrors(t *testing.T) {
	for _, s := range []string{`nope`, `false`, `{"type":"int"}`, `{"$ref":"http://x/y"}`, `{"$ref":"#/nope"}`,
		`{"type":"integer","minimum":5,"maximum":4}`, `{"type":"string","minLength":3,"maxLength":2}`, `{"enum":[]}`, `{"type":"string","enum":[1]}`,
		`{"type":"array","minItems":3,"maxItems":2}`, `{"type":"object","additionalProperties":true,"minProperties":2,"maxProperties":1}`} {
		if _, err := FromSchema([]byte(s), SchemaOptions{}); err == nil {
			t.Errorf("FromSchema(%s) = nil error", s)
		}
		// The options' own caps do not hide the schema's contradiction.
		if _, err := FromSchema([]byte(s), SchemaOptions{MaxItems: 1, MaxStringLength: 1}); err == nil {
			t.Errorf("FromSchema(%s) with caps = nil error", s)
		}
	}
}

// TestIntRange compares the integer-range grammar with arithmetic.
func TestIntRange(t *testing.T) {
	ranges := [][2]int64{{0, 0}, {-5, 5}, {7, 7}, {1, 9}, {10, 99}, {3, 1234}, {-1234, -3}, {19, 201}, {100, 1000}, {-99, 0}, {45, 4567}}
	for _, rg := range ranges {
		g, err := gbnf.Parse("root ::= " + intRange(rg[0], rg[1]))
		if err != nil {
			t.Fatal(err)
		}
		for n := int64(-1500); n <= 5000; n++ {
			want := rg[0] <= n && n <= rg[1]
			if got := g.Accepts("root", strconv.FormatInt(n, 10)); got != want {
				t.Fatalf("[%d,%d]: %d accepted=%v", rg[0], rg[1], n, got)
			}
		}
	}
}

func TestParseTools(t *testing.T) {
	cases := []struct{ in, name, params string }{
		{`[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"b":{"type":"number"},"a":{}}}}}]`,
			"f", `{"type":"object","properties":{"b":{"type":"number"},"a":{}}}`},
		{`{"name":"g.h","description":"d","parameters":{"properties":{"z":{"type":"string"}}}}`,
			"g.h", `{"properties":{"z":{"type":"string"}},"type":"object"}`},
		{`[{"name":"n"}]`, "n", `{"type":"object","properties":{}}`},
	}
	for _, c := range cases {
		tools, err := ParseTools([]byte(c.in))
		if err != nil || len(tools) != 1 || tools[0].Name != c.name || string(tools[0].Parameters) != c.params {
			t.Errorf("ParseTools(%s) = %+v %v, want %s %s", c.in, tools, err, c.name, c.params)
		}
	}
	// A BFCL question line is not a tool list here (package bench/bfcl reads it).
	for _, bad := range []string{`[]x`, `3`, `[{"name":""}]`, `[{"name":"a"},{"name":"a"}]`, `[{"name":"a","parameters":[]}]`,
		`{"id":"x","question":[],"function":[{"name":"g"}]}`} {
		if _, err := ParseTools([]byte(bad)); err == nil {
			t.Errorf("ParseTools(%s) = nil error", bad)
		}
	}
}
