package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestBoundSchema(t *testing.T) {
	deep := `{"type":"string"}`
	for range MaxSchemaDepth + 2 {
		deep = `{"type":"array","items":` + deep + `}`
	}
	// Each level refers to the next four times: 4^10 copies expanded.
	var defs []string
	for i := range 12 {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i+1)
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":%s,"b":%s,"c":%s,"d":%s}}`, i, ref, ref, ref, ref))
	}
	blowup := `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `,"d12":{"type":"string"}}}`
	for _, tc := range []struct {
		name, in, want string
		warn           string
		err            error
	}{
		{"plain, as it was", `{"type": "object", "properties": {"b": {"type": "string"}, "a": {}}}`, `{"type": "object", "properties": {"b": {"type": "string"}, "a": {}}}`, "", nil},
		{"a $ref expanded", `{"type":"object","properties":{"p":{"$ref":"#/$defs/pt"}},"$defs":{"pt":{"type":"integer"}}}`,
			`{"type":"object","properties":{"p":{"type":"integer"}}}`, "", nil},
		{"recursion", `{"type":"object","properties":{"n":{"$ref":"#/definitions/n"}},"definitions":{"n":{"type":"object","properties":{"next":{"$ref":"#/definitions/n"}}}}}`,
			`{"type":"object","properties":{"n":{"type":"object","properties":{"next":{}}}}}`, "$ref #/definitions/n is recursive", nil},
		{"root recursion", `{"type":"object","properties":{"self":{"$ref":"#"}}}`, `{"type":"object","properties":{"self":{}}}`, "$ref # is recursive", nil},
		{"too deep", deep, "", "nests deeper than 10 levels", nil},
		{"blow-up", blowup, "", "", errSchemaTooLarge},
	} {
		got, warnings, err := boundSchema("t", []byte(tc.in))
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
			continue
		}
		if tc.want != "" && string(got) != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if tc.warn != "" && !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, tc.warn) }) {
			t.Errorf("%s: warnings %q lack %q", tc.name, warnings, tc.warn)
		}
		if tc.name == "too deep" && (strings.Count(string(got), "items") != MaxSchemaDepth+1 || !strings.HasSuffix(string(got), `"items":{}`+strings.Repeat("}", MaxSchemaDepth+1))) {
			t.Errorf("too deep: %s", got)
		}
	}
}
