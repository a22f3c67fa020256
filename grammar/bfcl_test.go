package grammar

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/offgrid-ai/offgrid/bench/bfcl"
	"github.com/offgrid-ai/offgrid/grammar/gbnf"
	"github.com/offgrid-ai/offgrid/internal/jsonx"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// bfclCases returns the function lists of the 600 BFCL cases.
func bfclCases(t testing.TB) map[string][]Tool {
	t.Helper()
	cases := map[string][]Tool{}
	for _, path := range testenv.BFCLFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			v, err := jsonx.Parse(line)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := v.Get("id").AsString()
			fns, err := bfcl.Functions(line)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			tools, err := ParseTools(fns)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			cases[id] = tools
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(cases) != 600 {
		t.Fatalf("read %d BFCL cases, want 600", len(cases))
	}
	return cases
}

var agreementOpts = SchemaOptions{MaxStringLength: 64, MaxItems: 8}

// TestBFCLFormats checks every BFCL function list in every format and tool
// choice: the grammar parses, accepts rendered valid calls, and Parse
// inverts Render.
func TestBFCLFormats(t *testing.T) {
	cases := bfclCases(t)
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for id, tools := range cases {
		for _, f := range Formats() {
			for _, choice := range []ToolChoice{Auto, Required} {
				tg, err := ForTools(tools, f, ToolOptions{ToolChoice: choice, Parallel: true, MaxCalls: 3, Schema: agreementOpts})
				if err != nil {
					t.Fatalf("%s %s: %v", id, f, err)
				}
				if len(tg.Warnings) > 0 {
					t.Errorf("%s %s: warnings %v", id, f, tg.Warnings)
				}
				g, err := gbnf.Parse(tg.GBNF)
				if err != nil {
					t.Fatalf("%s %s: %v", id, f, err)
				}
				var calls []Call
				for k := 0; k < 1+rng.IntN(3); k++ {
					tool := tools[rng.IntN(len(tools))]
					sch, _ := jsonx.Parse(tool.Parameters)
					gen := &docGen{rng: rng, root: sch}
					call := Call{Name: tool.Name, Arguments: gen.valid(sch, 0).JSON()}
					if f == Mistral {
						call.ID = fmt.Sprintf("a%08d", rng.IntN(1e8))
					}
					calls = append(calls, call)
				}
				text := Render(f, calls)
				if !g.Accepts(tg.Root, text) {
					t.Fatalf("%s %s %s: grammar rejects rendered calls:\n%s\n%s", id, f, choice, text, tg.GBNF)
				}
				content, got, err := Parse(f, text)
				if err != nil || content != "" || !equalCalls(got, calls) {
					t.Fatalf("%s %s: Parse(Render) = %q %v %v, want %v", id, f, content, got, err, calls)
				}
				n++
			}
		}
	}
	t.Logf("%d grammars (600 cases x 5 formats x 2 tool choices) parse and accept their rendered calls", n)
}

func equalCalls(a, b []Call) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Name != b[i].Name || !bytes.Equal(a[i].Arguments, b[i].Arguments) {
			return false
		}
	}
	return true
}

// TestSchemaAgreement checks, over the parameter schemas of all 600 BFCL
// cases, that the grammar accepts exactly the generated documents the
// JSON Schema validator accepts: valid documents and near misses, written
// in the grammar's whitespace and within its caps.
func TestSchemaAgreement(t *testing.T) {
	cases := bfclCases(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var schemas, valid, invalid int
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	sortStrings(ids)
	for _, id := range ids {
		for _, tool := range cases[id] {
			schemas++
			g, err := FromSchema(tool.Parameters, agreementOpts)
			if err != nil {
				t.Fatalf("%s %s: %v", id, tool.Name, err)
			}
			rec, err := gbnf.Parse(g.GBNF)
			if err != nil {
				t.Fatalf("%s %s: %v", id, tool.Name, err)
			}
			validator := compileEffective(t, tool.Parameters)
			sch, _ := jsonx.Parse(tool.Parameters)
			gen := &docGen{rng: rng, root: sch}
			for k := 0; k < 12; k++ {
				doc := gen.valid(sch, 0)
				texts := []string{string(doc.Append(nil, rng.IntN(2) == 0))}
				for m := 0; m < 3; m++ {
					texts = append(texts, gen.mutate(sch, doc))
				}
				for _, text := range texts {
					inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
					want := err == nil && validator.Validate(inst) == nil
					if got := rec.Accepts(g.Root, text); got != want {
						t.Fatalf("%s %s: grammar accepts=%v, validator=%v for %s\nschema %s\n%s", id, tool.Name, got, want, text, tool.Parameters, g.GBNF)
					}
					if want {
						valid++
					} else {
						invalid++
					}
				}
			}
		}
	}
	t.Logf("agreement on %d schemas: %d valid and %d invalid documents, grammar and validator agree on all", schemas, valid, invalid)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// compileEffective compiles the schema the grammar implements: objects
// with properties and no additionalProperties are closed.
func compileEffective(t testing.TB, schema []byte) *jsonschema.Schema {
	t.Helper()
	v, _ := jsonx.Parse(schema)
	closeObjects(v)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(v.JSON()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func closeObjects(s *jsonx.Value) {
	if s == nil || s.Kind != jsonx.Object {
		return
	}
	if p := s.Get("properties"); p != nil && p.Kind == jsonx.Object && len(p.Members) > 0 {
		if s.Get("additionalProperties") == nil {
			s.Set("additionalProperties", &jsonx.Value{Kind: jsonx.Bool})
		}
		for _, m := range p.Members {
			closeObjects(m.Value)
		}
	}
	closeObjects(s.Get("items"))
	for _, k := range []string{"anyOf", "oneOf", "prefixItems"} {
		if l := s.Get(k); l != nil {
			for _, e := range l.Elems {
				closeObjects(e)
			}
		}
	}
}

// docGen writes random JSON documents for a schema.
type docGen struct {
	rng  *rand.Rand
	root *jsonx.Value
}

var strPieces = []string{"a", "Z", "7", " ", "é", "😀", `"`, `\`, "\n", "\t", "/", "x y", "\u0001"}

func (g *docGen) str(lo, hi int) string {
	if hi < 0 || hi > lo+12 {
		hi = lo + 12
	}
	n := lo + g.rng.IntN(hi-lo+1)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		p := strPieces[g.rng.IntN(len(strPieces))]
		if len([]rune(p)) > 1 {
			p = "q"
		}
		sb.WriteString(p)
	}
	return sb.String()
}

func num(s string) *jsonx.Value { return &jsonx.Value{Kind: jsonx.Number, Text: s} }

func (g *docGen) valid(s *jsonx.Value, depth int) *jsonx.Value {
	if s == nil || s.Kind != jsonx.Object {
		return jsonx.NewString(g.str(0, 5))
	}
	if ref, ok := s.Get("$ref").AsString(); ok {
		t, _ := pointer(g.root, ref[1:])
		return g.valid(t, depth+1)
	}
	if c := s.Get("const"); c != nil {
		return c
	}
	if e := s.Get("enum"); e != nil {
		return e.Elems[g.rng.IntN(len(e.Elems))]
	}
	types, _ := schemaTypes(s, "")
	t := types[g.rng.IntN(len(types))]
	if depth > 5 {
		t = types[0]
	}
	lo, _, _ := intOf(s, "minItems", "")
	switch t {
	case "object":
		o := &jsonx.Value{Kind: jsonx.Object}
		props := s.Get("properties")
		if props == nil || len(props.Members) == 0 {
			for i := 0; i < g.rng.IntN(3); i++ {
				o.Set(g.str(1, 6), g.valid(nil, depth+1))
			}
			return o
		}
		req := map[string]bool{}
		if r := s.Get("required"); r != nil {
			for _, e := range r.Elems {
				req[e.Text] = true
			}
		}
		for _, m := range props.Members {
			if req[m.Key] || g.rng.IntN(2) == 0 {
				o.Members = append(o.Members, jsonx.Member{Key: m.Key, Value: g.valid(m.Value, depth+1)})
			}
		}
		return o
	case "array":
		hi, ok, _ := intOf(s, "maxItems", "")
		if !ok || hi > lo+4 {
			hi = lo + 4
		}
		a := &jsonx.Value{Kind: jsonx.Array, Elems: []*jsonx.Value{}}
		for i := lo + g.rng.IntN(hi-lo+1); i > 0; i-- {
			a.Elems = append(a.Elems, g.valid(s.Get("items"), depth+1))
		}
		return a
	case "string":
		if f, _ := s.Get("format").AsString(); f == "date" {
			return jsonx.NewString(fmt.Sprintf("%04d-%02d-%02d", 1900+g.rng.IntN(200), 1+g.rng.IntN(12), 1+g.rng.IntN(28)))
		}
		lo, _, _ := intOf(s, "minLength", "")
		hi, ok, _ := intOf(s, "maxLength", "")
		if !ok {
			hi = -1
		}
		return jsonx.NewString(g.str(lo, hi))
	case "integer":
		minV, _, hasMin, _ := bound(s, "minimum", "exclusiveMinimum", "")
		maxV, _, hasMax, _ := bound(s, "maximum", "exclusiveMaximum", "")
		lo, hi := int64(-1000), int64(100000)
		if hasMin {
			lo = int64(minV)
		}
		if hasMax {
			hi = int64(maxV)
		}
		return num(strconv.FormatInt(lo+g.rng.Int64N(hi-lo+1), 10))
	case "number":
		forms := []string{"0", "-3", "2.5", "-0.125", "1e3", "6.02E+23", "1234567.875"}
		return num(forms[g.rng.IntN(len(forms))])
	case "boolean":
		return &jsonx.Value{Kind: jsonx.Bool, Bool: g.rng.IntN(2) == 0}
	}
	return &jsonx.Value{Kind: jsonx.Null}
}

// mutate returns doc, changed in one place, as text: most changes break
// the schema, some break the JSON, some (by chance) keep it valid.
func (g *docGen) mutate(s *jsonx.Value, doc *jsonx.Value) string {
	c := clone(doc)
	target, ts := c, s
	// Walk down to a random nested object member sometimes.
	for target.Kind == jsonx.Object && len(target.Members) > 0 && g.rng.IntN(3) == 0 {
		m := &target.Members[g.rng.IntN(len(target.Members))]
		sub := ts.Get("properties").Get(m.Key)
		if m.Value.Kind != jsonx.Object || sub == nil {
			break
		}
		target, ts = m.Value, sub
	}
	switch g.rng.IntN(8) {
	case 0: // drop a member
		if target.Kind == jsonx.Object && len(target.Members) > 0 {
			i := g.rng.IntN(len(target.Members))
			target.Members = append(target.Members[:i], target.Members[i+1:]...)
		}
	case 1: // add an unknown member
		if target.Kind == jsonx.Object {
			target.Members = append(target.Members, jsonx.Member{Key: "zz_extra", Value: num("1")})
		}
	case 2, 3: // change a member's value to another type
		if target.Kind == jsonx.Object && len(target.Members) > 0 {
			m := &target.Members[g.rng.IntN(len(target.Members))]
			alts := []*jsonx.Value{num("12"), num("1.5"), jsonx.NewString("12"), {Kind: jsonx.Bool, Bool: true}, {Kind: jsonx.Null},
				{Kind: jsonx.Array, Elems: []*jsonx.Value{}}, {Kind: jsonx.Object}, jsonx.NewString(m.Value.Text + "_x"), num("-7")}
			m.Value = alts[g.rng.IntN(len(alts))]
		}
	case 4: // break an array element
		if target.Kind == jsonx.Object {
			for _, m := range target.Members {
				if m.Value.Kind == jsonx.Array {
					m.Value.Elems = append(m.Value.Elems, &jsonx.Value{Kind: jsonx.Object})
					break
				}
			}
		}
	}
	text := string(c.Append(nil, g.rng.IntN(2) == 0))
	switch g.rng.IntN(10) {
	case 0:
		return text[:len(text)-1]
	case 1:
		return text + "}"
	case 2:
		return text + "x"
	}
	return text
}

func clone(v *jsonx.Value) *jsonx.Value {
	c := *v
	c.Elems = nil
	for _, e := range v.Elems {
		c.Elems = append(c.Elems, clone(e))
	}
	c.Members = nil
	for _, m := range v.Members {
		c.Members = append(c.Members, jsonx.Member{Key: m.Key, Value: clone(m.Value)})
	}
	if v.Kind == jsonx.Array && c.Elems == nil {
		c.Elems = []*jsonx.Value{}
	}
	return &c
}
