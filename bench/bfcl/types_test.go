package bfcl

import (
	"errors"
	"testing"
)

func TestFunctions(t *testing.T) {
	cases := []struct{ in, want string }{
		// A question line: types translated, a property without a type is a string.
		{`{"id":"x","question":[],"function":[{"name":"g.h","description":"d","parameters":{"type":"dict","properties":{"t":{"type":"tuple","items":{"type":"any"}},"u":{"description":"no type"},"f":{"type":"float"},"j":{"type":"HashMap"},"w":{"type":"weird"}}}}]}`,
			`[{"name":"g.h","description":"d","parameters":{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"}},"u":{"description":"no type","type":"string"},"f":{"type":"number"},"j":{"type":"object"},"w":{"type":"string"}}}}]`},
		// Its function array, nested schemas and type lists too.
		{`[{"name":"a","parameters":{"type":"dict","properties":{"l":{"type":"array","items":{"type":"dict","properties":{"n":{"type":["long","null"]}}}}}}},{"name":"b"}]`,
			`[{"name":"a","parameters":{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":["integer","null"]}}}}}}},{"name":"b"}]`},
		// A property that is a $ref or a union gets no type.
		{`[{"name":"c","parameters":{"type":"dict","properties":{"r":{"$ref":"#/x"},"o":{"anyOf":[{"type":"bool"}]}}}}]`,
			`[{"name":"c","parameters":{"type":"object","properties":{"r":{"$ref":"#/x"},"o":{"anyOf":[{"type":"boolean"}]}}}}]`},
	}
	for _, c := range cases {
		got, err := Functions([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("Functions(%s)\n = %s %v\nwant %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `3`, `{"id":"x"}`, `{"function":{}}`, `[1]`, `[{"name":"a"}] x`} {
		if got, err := Functions([]byte(bad)); !errors.Is(err, ErrFunctions) {
			t.Errorf("Functions(%s) = %s %v, want ErrFunctions", bad, got, err)
		}
	}
}

func TestPythonType(t *testing.T) {
	for name, want := range map[string]string{"dict": "dict", "float": "float", "tuple": "list", "any": "str", "integer": "int"} {
		if got, ok := PythonType(name); !ok || got != want {
			t.Errorf("PythonType(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
	if got, ok := PythonType("HashMap"); ok {
		t.Errorf("PythonType(HashMap) = %q, want not ok (BFCL's checker cannot score it)", got)
	}
}
