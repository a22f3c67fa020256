package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type orderArgs struct {
	Zeta   string   `json:"zeta" jsonschema:"the last letter first"`
	Alpha  int      `json:"alpha,omitempty" minimum:"1" maximum:"10" default:"5"`
	Mode   string   `json:"mode,omitempty" enum:"fast,slow" default:"fast"`
	Ratio  float64  `json:"ratio,omitempty"`
	Flags  []string `json:"flags,omitempty"`
	Nested struct {
		B bool `json:"b"`
		A int  `json:"a,omitempty"`
	} `json:"nested,omitempty"`
	Ptr *int `json:"ptr,omitempty"`
}

// propertyOrder returns the keys of the "properties" object of a schema in
// the order they appear in the JSON text.
func propertyOrder(t *testing.T, schema json.RawMessage) []string {
	t.Helper()
	names, _, err := properties(schema)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestSchemaForKeepsOrderAndTags(t *testing.T) {
	raw, err := SchemaFor[orderArgs]()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(propertyOrder(t, raw), ","), "zeta,alpha,mode,ratio,flags,nested,ptr"; got != want {
		t.Errorf("property order %s, want %s", got, want)
	}
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type        any             `json:"type"`
			Description string          `json:"description"`
			Enum        []any           `json:"enum"`
			Default     json.RawMessage `json:"default"`
			Minimum     *float64        `json:"minimum"`
			Maximum     *float64        `json:"maximum"`
			Required    []string        `json:"required"`
			Properties  json.RawMessage `json:"properties"`
		} `json:"properties"`
		AdditionalProperties any `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Required) != "[zeta]" {
		t.Errorf("required = %v, want [zeta]", s.Required)
	}
	p := s.Properties
	checks := []struct{ name, got, want string }{
		{"zeta description", p["zeta"].Description, "the last letter first"},
		{"alpha type", fmt.Sprint(p["alpha"].Type), "integer"},
		{"alpha default", string(p["alpha"].Default), "5"},
		{"alpha range", fmt.Sprint(*p["alpha"].Minimum, *p["alpha"].Maximum), "1 10"},
		{"mode enum", fmt.Sprint(p["mode"].Enum), "[fast slow]"},
		{"mode default", string(p["mode"].Default), `"fast"`},
		{"ratio type", fmt.Sprint(p["ratio"].Type), "number"},
		{"flags type (not nullable)", fmt.Sprint(p["flags"].Type), "array"},
		{"ptr type (not nullable)", fmt.Sprint(p["ptr"].Type), "integer"},
		{"nested required", fmt.Sprint(p["nested"].Required), "[b]"},
		{"additionalProperties", fmt.Sprint(s.AdditionalProperties), "false"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if !strings.Contains(string(raw), `"properties":{"b":`) {
		t.Errorf("nested properties not in declaration order: %s", raw)
	}
}

func TestRegisterErrors(t *testing.T) {
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	r := NewRegistry()
	if err := Register(r, "x", "", Safe, noop); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"duplicate", Register(r, "x", "", Safe, noop), "already registered"},
		{"bad name", Register(r, "has space", "", Safe, noop), "letters, digits"},
		{"empty name", Register(r, "", "", Safe, noop), "1 to 64 bytes"},
		{"interface field", Register(r, "y", "", Safe, func(context.Context, struct {
			V any `json:"v"`
		}) (string, error) {
			return "", nil
		}), "unsupported type interface"},
		{"func field", Register(r, "y", "", Safe, func(context.Context, struct {
			F func() `json:"f"`
		}) (string, error) {
			return "", nil
		}), "unsupported type func"},
		{"map with int keys", Register(r, "y", "", Safe, func(context.Context, struct {
			M map[int]string `json:"m"`
		}) (string, error) {
			return "", nil
		}), "map key type int"},
		{"[]byte", Register(r, "y", "", Safe, func(context.Context, struct {
			B []byte `json:"b"`
		}) (string, error) {
			return "", nil
		}), "unsupported type []uint8"},
		{"not a struct", Register(r, "y", "", Safe, func(context.Context, int) (string, error) { return "", nil }), "not a struct"},
		{"bad enum tag", Register(r, "y", "", Safe, func(context.Context, struct {
			N int `json:"n" enum:"one"`
		}) (string, error) {
			return "", nil
		}), "enum tag"},
		{"manual schema not an object", r.Add(&Tool{Name: "m1", Parameters: json.RawMessage(`{"type":"string"}`), Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }}), "\"type\":\"object\""},
		{"manual schema invalid", r.Add(&Tool{Name: "m2", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":12}}}`), Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }}), "parameters"},
		{"manual nil run", r.Add(&Tool{Name: "m3"}), "nil Run"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: registered, want an error", c.name)
		} else if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.name, c.err, c.want)
		}
	}
	if got := len(r.Tools()); got != 1 {
		t.Errorf("%d tools registered, want 1", got)
	}
}

func TestRegistryOrderAndLookup(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"c", "a", "b"} {
		if err := r.Add(&Tool{Name: n, Run: func(context.Context, json.RawMessage) (string, error) { return n, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, tl := range r.Tools() {
		names = append(names, tl.Name)
	}
	if strings.Join(names, "") != "cab" {
		t.Errorf("order %v, want c a b", names)
	}
	if _, ok := r.Lookup("a"); !ok {
		t.Error("Lookup(a) failed")
	}
	if _, ok := r.Lookup("z"); ok {
		t.Error("Lookup(z) succeeded")
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(r.OpenAI(), &arr); err != nil || len(arr) != 3 {
		t.Fatalf("OpenAI() = %s (%v)", r.OpenAI(), err)
	}
	want := `{"type":"function","function":{"name":"c","description":"","parameters":{"type":"object","properties":{}}}}`
	if string(arr[0]) != want {
		t.Errorf("OpenAI()[0] = %s, want %s", arr[0], want)
	}
}

func TestRegistryReplace(t *testing.T) {
	r := NewRegistry()
	tool := func(n string) *Tool {
		return &Tool{Name: n, Run: func(context.Context, json.RawMessage) (string, error) { return n, nil }}
	}
	names := func() string {
		var b strings.Builder
		for _, tl := range r.Tools() {
			b.WriteString(tl.Name)
		}
		return b.String()
	}
	for _, n := range []string{"a", "b", "c"} {
		if err := r.Add(tool(n)); err != nil {
			t.Fatal(err)
		}
	}
	g := r.Generation()
	if err := r.Replace([]string{"b", "zz"}, []*Tool{tool("d"), tool("b")}); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "acdb" || r.Generation() == g {
		t.Fatalf("after Replace: tools %q generation %d (was %d), want acdb and a new generation", got, r.Generation(), g)
	}
	g = r.Generation()
	for _, tc := range []struct {
		name        string
		remove      []string
		add         []*Tool
		errContains string
	}{
		{"taken by a tool that stays", []string{"b"}, []*Tool{tool("a")}, "already registered"},
		{"twice in add", nil, []*Tool{tool("e"), tool("e")}, "already registered"},
		{"invalid name", []string{"a"}, []*Tool{tool("bad name")}, "may hold only"},
	} {
		err := r.Replace(tc.remove, tc.add)
		if err == nil || !errors.Is(err, ErrInvalidTool) || !strings.Contains(err.Error(), tc.errContains) {
			t.Errorf("%s: err %v, want one with %q", tc.name, err, tc.errContains)
		}
		if got := names(); got != "acdb" || r.Generation() != g {
			t.Errorf("%s: a failed Replace changed the registry: %q", tc.name, got)
		}
	}
	if _, ok := r.Lookup("b"); !ok {
		t.Error("Lookup(b) after Replace failed")
	}
}

type echoArgs struct {
	Text  string `json:"text"`
	Count int    `json:"count,omitempty" minimum:"1" maximum:"5" default:"1"`
	Kind  string `json:"kind,omitempty" enum:"plain,loud"`
}

func testRegistry(t *testing.T, opts ...Option) *Registry {
	t.Helper()
	r := NewRegistry(opts...)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(Register(r, "echo", "repeat text", Safe, func(_ context.Context, a echoArgs) (string, error) {
		s := strings.Repeat(a.Text, a.Count)
		if a.Kind == "loud" {
			s = strings.ToUpper(s)
		}
		return s, nil
	}))
	must(Register(r, "boom", "panics", Safe, func(context.Context, struct{}) (string, error) { panic("kaboom") }))
	must(Register(r, "missing", "fails", Safe, func(context.Context, struct{}) (string, error) {
		return "", Errorf(TypeNotFound, "no such thing")
	}))
	must(r.Add(&Tool{
		Name: "manual", Description: "hand-written schema", Risk: Medium,
		Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":7}},"required":[]}`),
		Run:        func(_ context.Context, args json.RawMessage) (string, error) { return string(args), nil },
	}))
	return r
}

func TestExecute(t *testing.T) {
	r := testRegistry(t, WithMaxOutput(64))
	ctx := context.Background()
	cases := []struct {
		name, tool, args string
		typ              ErrorType
		data             string // exact data on success
		msg              []string
	}{
		{"object", "echo", `{"text":"ab","count":2}`, TypeNone, "abab", nil},
		{"JSON string holding an object", "echo", `"{\"text\":\"ab\",\"count\":3}"`, TypeNone, "ababab", nil},
		{"default applied", "echo", `{"text":"x"}`, TypeNone, "x", nil},
		{"integral float for an int", "echo", `{"text":"x","count":2.0}`, TypeNone, "xx", nil},
		{"manual default", "manual", ``, TypeNone, `{"n":7}`, nil},
		{"manual given", "manual", `{"n":2}`, TypeNone, `{"n":2}`, nil},
		{"unknown tool", "nope", `{}`, TypeNotFound, "", []string{`"nope"`, "echo"}},
		{"array", "echo", `[1]`, TypeParse, "", []string{"object", "array"}},
		{"broken JSON", "echo", `{"text":`, TypeParse, "", []string{"not valid JSON"}},
		{"string holding broken JSON", "echo", `"{\"text\""`, TypeParse, "", nil},
		{"missing required", "echo", `{}`, TypeValidationFailed, "", []string{`missing required argument "text"`}},
		{"wrong type", "echo", `{"text":5}`, TypeValidationFailed, "", []string{`argument "text" must be string, not number`}},
		{"above maximum", "echo", `{"text":"a","count":9}`, TypeValidationFailed, "", []string{`argument "count" must be at most 5, not 9`}},
		{"not integer", "echo", `{"text":"a","count":1.5}`, TypeValidationFailed, "", []string{`argument "count" must be integer`}},
		{"enum", "echo", `{"text":"a","kind":"quiet"}`, TypeValidationFailed, "", []string{`argument "kind" must be one of "plain", "loud", not "quiet"`}},
		{"unknown argument", "echo", `{"text":"a","colour":1}`, TypeValidationFailed, "", []string{`unknown argument "colour"`, `"text", "count", "kind"`}},
		{"panic", "boom", `{}`, TypeInternal, "", []string{"panicked", "kaboom"}},
		{"typed error", "missing", `{}`, TypeNotFound, "", []string{"no such thing"}},
		{"truncated", "echo", `{"text":"0123456789012345678901234567890123456789","count":2}`, TypeNone, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.Execute(ctx, c.tool, json.RawMessage(c.args))
			if res.ErrorType != c.typ || res.Success != (c.typ == TypeNone) {
				t.Fatalf("got %s", res)
			}
			if c.typ == TypeNone {
				if res.ErrorMessage != nil || res.Data == nil {
					t.Fatalf("success with message or without data: %s", res)
				}
				if c.data != "" && *res.Data != c.data {
					t.Errorf("data %q, want %q", *res.Data, c.data)
				}
				if res.Metadata.DataSizeBytes != len(*res.Data) {
					t.Errorf("data_size_bytes %d, want %d", res.Metadata.DataSizeBytes, len(*res.Data))
				}
			} else {
				if res.Data != nil || res.ErrorMessage == nil {
					t.Fatalf("failure with data or without message: %s", res)
				}
				for _, m := range c.msg {
					if !strings.Contains(*res.ErrorMessage, m) {
						t.Errorf("message %q lacks %q", *res.ErrorMessage, m)
					}
				}
			}
			if res.Metadata.Timestamp == 0 {
				t.Error("no timestamp")
			}
		})
	}
	res := r.Execute(ctx, "echo", json.RawMessage(`{"text":"0123456789012345678901234567890123456789","count":2}`))
	if !strings.HasPrefix(res.Text(), "0123456789") || !strings.Contains(res.Text(), "[output truncated: showing the first 64 of 80 bytes]") {
		t.Errorf("truncation: %q", res.Text())
	}
}

func TestExecuteCancelled(t *testing.T) {
	r := testRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := r.Execute(ctx, "echo", json.RawMessage(`{"text":"a"}`)); res.Success {
		t.Errorf("ran with a cancelled context: %s", res)
	}
}

func TestResultWireFormat(t *testing.T) {
	ok := OK("hi")
	ok.Metadata = Metadata{ExecutionTimeMS: 3, DataSizeBytes: 2, Timestamp: 1700000000000}
	fail := Fail(TypePermissionDenied, "no")
	fail.Metadata = Metadata{ExecutionTimeMS: 0, DataSizeBytes: 0, Timestamp: 1700000000001}
	cases := []struct {
		r    Result
		want string
	}{
		{ok, `{"success":true,"data":"hi","error_message":null,"error_type":"none","metadata":{"execution_time_ms":3,"data_size_bytes":2,"timestamp":1700000000000}}`},
		{fail, `{"success":false,"data":null,"error_message":"no","error_type":"permission_denied","metadata":{"execution_time_ms":0,"data_size_bytes":0,"timestamp":1700000000001}}`},
		{Result{}, `{"success":false,"data":null,"error_message":null,"error_type":"internal_error","metadata":{"execution_time_ms":0,"data_size_bytes":0,"timestamp":0}}`},
	}
	for _, c := range cases {
		if got := c.r.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
		var back Result
		if err := json.Unmarshal(c.r.JSON(), &back); err != nil {
			t.Fatal(err)
		}
		if back.Success != c.r.Success || back.Text() != c.r.Text() || back.Message() != c.r.Message() {
			t.Errorf("round trip changed %s into %s", c.r, back)
		}
	}
}

func TestTypeOf(t *testing.T) {
	cases := []struct {
		err  error
		want ErrorType
	}{
		{nil, TypeNone},
		{Errorf(TypeParse, "x"), TypeParse},
		{fmt.Errorf("wrapped: %w", Errorf(TypeNotFound, "x")), TypeNotFound},
		{fmt.Errorf("%w: x", ErrOutsideRoot), TypePermissionDenied},
		{errors.New("plain"), TypeInternal},
	}
	for _, c := range cases {
		if got := TypeOf(c.err); got != c.want {
			t.Errorf("TypeOf(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestRisk(t *testing.T) {
	for _, r := range []Risk{Safe, Medium, High} {
		back, err := ParseRisk(r.String())
		if err != nil || back != r {
			t.Errorf("ParseRisk(%q) = %v, %v", r, back, err)
		}
	}
	if _, err := ParseRisk("extreme"); err == nil {
		t.Error("ParseRisk(extreme) succeeded")
	}
	if !(Safe < Medium && Medium < High) {
		t.Error("risks not ordered")
	}
}

func TestCheckText(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"a":"plain"}`:                   true,
		`{"a":"é\u00e9"}`:                 true,
		`{"a":"\ud83d\ude00"}`:            true,
		`{"a":"\uD83D\uDE00"}`:            true,
		`{"a":"\\ud800"}`:                 true, // an escaped backslash, then text
		`{"a":"\"\ud800"}`:                false,
		`{"a":"\ud800"}`:                  false,
		`{"a":"\udc00"}`:                  false,
		`{"a":"\ud800\u0041"}`:            false,
		`{"a":"\ud800x"}`:                 false,
		`{"a":"x\ud83d"}`:                 false,
		`{"a":"\uzzzz"}`:                  true, // not an escape: the JSON parser refuses it
		`{"\ud800":1}`:                    false,
		"{\"a\":\"\xff\"}":                false,
		"{\"a\":\"\xe2\x82\"}":            false, // truncated sequence
		"{\"a\":\"\xed\xa0\x80\"}":        false, // an encoded surrogate
		"{\"a\":\"\xf0\x9f\x98\x80\"}":    true,
		`{"a":"unpaired \ud800 in text"}`: false,
	} {
		err := checkText([]byte(in))
		if (err == nil) != ok {
			t.Errorf("checkText(%q) = %v, want ok=%v", in, err, ok)
		}
		if err != nil && TypeOf(err) != TypeValidationFailed {
			t.Errorf("checkText(%q): %s, want validation_failed", in, TypeOf(err))
		}
	}
}
