package grammar

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Shared primitive rules.

func (b *builder) ws() string {
	return b.fixed("ws", fmt.Sprintf(`( " " | "\n" [ \t]{0,%d} )?`, maxIndent))
}

func (b *builder) boolean() string {
	if b.python {
		return b.fixed("boolean", `"True" | "False"`)
	}
	return b.fixed("boolean", `"true" | "false"`)
}

func (b *builder) null() string {
	if b.python {
		return b.fixed("null", `"None"`)
	}
	return b.fixed("null", `"null"`)
}

// chars returns the rule for one character inside a string quoted with q.
func (b *builder) chars(q byte) string {
	if !b.python {
		return b.fixed("char", `[^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )`)
	}
	if q == '"' {
		return b.fixed("dq-char", `[^"\\\x00-\x1F] | "\\" ( ["'\\bfnrt] | "u" [0-9a-fA-F]{4} )`)
	}
	return b.fixed("sq-char", `[^'\\\x00-\x1F] | "\\" ( ["'\\bfnrt] | "u" [0-9a-fA-F]{4} )`)
}

// quoted wraps a string-content expression in quotes; inner is called
// with each quote character the syntax allows.
func (b *builder) quoted(inner func(q byte) string) string {
	dq := seq(`"\""`, inner('"'), `"\""`)
	if !b.python {
		return dq
	}
	return group([]string{dq, seq(`"'"`, inner('\''), `"'"`)})
}

// strLimit applies MaxStringLength to a string's maximum length.
func (b *builder) strLimit(lo, hi int, path string) int {
	if c := b.opts.MaxStringLength; c > 0 && (hi < 0 || hi > c) {
		hi = c
		if hi < lo {
			b.warnf(path, "minLength %d is above MaxStringLength %d", lo, c)
			hi = lo
		}
	}
	return hi
}

func (b *builder) str() string {
	hi := b.strLimit(0, -1, "")
	return b.fixed("string", b.quoted(func(q byte) string { return b.repeat("string", b.chars(q), 0, hi) }))
}

func (b *builder) integerRule() string {
	return b.fixed("integer", fmt.Sprintf(`"-"? ( "0" | [1-9] [0-9]{0,%d} )`, maxIntDigits-1))
}

func (b *builder) numberRule() string {
	return b.fixed("number", fmt.Sprintf(`"-"? ( "0" | [1-9] [0-9]{0,%d} ) ( "." [0-9]{1,%d} )? ( [eE] [-+]? [0-9]{1,%d} )?`,
		maxIntDigits-1, maxFracDigits, maxExpDigits))
}

// any is the rule for every JSON value.
func (b *builder) any() string {
	if _, ok := b.bodies["value"]; ok {
		return "value"
	}
	b.fixed("value", "") // reserve: the body refers back to value
	ws := b.ws()
	items := b.itemRange(0, -1, "")
	key := b.str()
	obj := b.fixed("object", seq(`"{"`, ws, b.list(seq(key, `":"`, ws, "value"), 0, items), ws, `"}"`))
	arr := b.fixed("array", seq(`"["`, ws, b.list("value", 0, items), ws, `"]"`))
	body := strings.Join([]string{obj, arr, b.str(), b.numberRule(), b.boolean(), b.null()}, " | ")
	b.bodies["value"] = body
	if _, ok := b.byBody[body]; !ok {
		b.byBody[body] = "value"
	}
	return "value"
}

// list is elem repeated lo..hi times (hi < 0: unbounded), comma separated.
func (b *builder) list(elem string, lo, hi int) string {
	if hi == 0 {
		return ""
	}
	next := seq(`","`, b.ws(), elem)
	h := hi - 1
	if hi < 0 {
		h = -1
	}
	if lo == 0 {
		return "( " + seq(elem, b.repeat("list", "( "+next+" )", 0, h)) + " )?"
	}
	return seq(elem, b.repeat("list", "( "+next+" )", lo-1, h))
}

// itemRange applies MaxItems to an element count range.
// bounds returns a schema's bounds minKey and maxKey of a count (of
// properties, items or characters): lo 0 and hi -1 when absent; an
// ErrSchema error when the maximum is below the minimum.
func bounds(s *jsonx.Value, minKey, maxKey, path string) (lo, hi int, err error) {
	lo, _, err = intOf(s, minKey, path)
	if err != nil {
		return 0, 0, err
	}
	hi, ok, err := intOf(s, maxKey, path)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return lo, -1, nil
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("%w: %s: %s below %s", ErrSchema, path, maxKey, minKey)
	}
	return lo, hi, nil
}

func (b *builder) itemRange(lo, hi int, path string) int {
	if c := b.opts.MaxItems; c > 0 && (hi < 0 || hi > c) {
		hi = c
		if hi < lo {
			b.warnf(path, "minItems %d is above MaxItems %d", lo, c)
			hi = lo
		}
	}
	return hi
}

func (b *builder) object(s *jsonx.Value, path, name string) (string, error) {
	ws := b.ws()
	key := func(k string) string {
		if b.python {
			return seq(b.literal(jsonx.NewString(k)), `":"`, ws)
		}
		return seq(lit(string(jsonx.AppendString(nil, k))+":"), ws)
	}
	inner, free, err := b.members(s, path, name, key, seq(`","`, ws))
	if err != nil || free != "" {
		return free, err
	}
	return b.rule(name, seq(`"{"`, ws, inner, ws, `"}"`)), nil
}

// members returns the grammar of an object's members in declared order,
// each written as key(name) followed by the value, joined by sep. For an
// object without properties it returns free, the whole free-form object.
func (b *builder) members(s *jsonx.Value, path, name string, key func(string) string, sep string) (inner, free string, err error) {
	props := s.Get("properties")
	if props != nil && props.Kind != jsonx.Object {
		return "", "", fmt.Errorf("%w: %s/properties: want an object", ErrSchema, path)
	}
	var required []string
	if r := s.Get("required"); r != nil {
		if r.Kind != jsonx.Array {
			return "", "", fmt.Errorf("%w: %s/required: want an array", ErrSchema, path)
		}
		for _, e := range r.Elems {
			if e.Kind != jsonx.String {
				return "", "", fmt.Errorf("%w: %s/required: want strings", ErrSchema, path)
			}
			required = append(required, e.Text)
		}
	}
	ap := s.Get("additionalProperties")
	closed := ap != nil && ap.Kind == jsonx.Bool && !ap.Bool
	if props == nil || len(props.Members) == 0 {
		// Without a "properties" keyword the object is free-form (BFCL's
		// "dict"); an explicit empty "properties" means no arguments.
		if props == nil && len(required) == 0 && !closed {
			free, err := b.freeObject(s, ap, path, name)
			return "", free, err
		}
		props = &jsonx.Value{Kind: jsonx.Object}
	}
	if ap != nil && !closed {
		b.warnf(path, "additionalProperties next to properties is not enforced: the object is closed")
	}
	for _, k := range []string{"minProperties", "maxProperties"} {
		if s.Get(k) != nil {
			b.warnf(path, "%s is not enforced on an object with properties", k)
		}
	}
	all := append([]jsonx.Member(nil), props.Members...)
	for _, r := range required {
		if props.Get(r) == nil {
			if closed {
				return "", "", fmt.Errorf("%w: %s: required property %q is not allowed by additionalProperties false", ErrSchema, path, r)
			}
			b.warnf(path, "required property %q has no schema: any value", r)
			all = append(all, jsonx.Member{Key: r})
		}
	}
	var kvs []kv
	for _, m := range all {
		pname := name + "-" + m.Key
		v, err := b.schema(m.Value, path+"/properties/"+escapePointer(m.Key), pname)
		if err != nil {
			return "", "", err
		}
		kvs = append(kvs, kv{
			expr:     b.rule(pname+"-kv", seq(key(m.Key), v)),
			required: containsStr(required, m.Key),
		})
	}
	return memberList(kvs, sep), "", nil
}

func containsStr(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// kv is one object member (key, separator and value) in a members list.
type kv struct {
	expr     string
	required bool
}

// memberList is the grammar of object members in declared order, each
// optional one present or not, all required ones present, joined by sep.
func memberList(kvs []kv, sep string) string {
	tail := func(i int) string {
		var parts []string
		for _, k := range kvs[i:] {
			if k.required {
				parts = append(parts, seq(sep, k.expr))
			} else {
				parts = append(parts, "( "+seq(sep, k.expr)+" )?")
			}
		}
		return seq(parts...)
	}
	var alts []string
	hasRequired := false
	for i, k := range kvs {
		alts = append(alts, seq(k.expr, tail(i+1)))
		if k.required {
			hasRequired = true
			break
		}
	}
	if len(alts) == 0 {
		return ""
	}
	if !hasRequired {
		return "( " + strings.Join(alts, " | ") + " )?"
	}
	return group(alts)
}

// freeObject is an object with any keys whose values follow ap.
func (b *builder) freeObject(s, ap *jsonx.Value, path, name string) (string, error) {
	val := b.any()
	if ap != nil && ap.Kind == jsonx.Object {
		var err error
		if val, err = b.schema(ap, path+"/additionalProperties", name+"-value"); err != nil {
			return "", err
		}
	}
	lo, hi, err := bounds(s, "minProperties", "maxProperties", path)
	if err != nil {
		return "", err
	}
	hi = b.itemRange(lo, hi, path)
	if lo > 1 {
		b.warnf(path, "minProperties counts duplicate keys")
	}
	ws := b.ws()
	if val == "value" && lo == 0 && hi < 0 {
		return b.fixed("object", b.bodies["object"]), nil
	}
	body := seq(`"{"`, ws, b.list(seq(b.str(), `":"`, ws, val), lo, hi), ws, `"}"`)
	return b.rule(name, body), nil
}

func (b *builder) array(s *jsonx.Value, path, name string) (string, error) {
	lo, hi, err := bounds(s, "minItems", "maxItems", path)
	if err != nil {
		return "", err
	}
	hi = b.itemRange(lo, hi, path)
	var prefix []*jsonx.Value
	items := s.Get("items")
	if p := s.Get("prefixItems"); p != nil {
		if p.Kind != jsonx.Array {
			return "", fmt.Errorf("%w: %s/prefixItems: want an array", ErrSchema, path)
		}
		prefix = p.Elems
	} else if items != nil && items.Kind == jsonx.Array {
		b.warnf(path, "items as an array is read as prefixItems")
		prefix, items = items.Elems, nil
	}
	var pexprs []string
	for i, p := range prefix {
		e, err := b.schema(p, fmt.Sprintf("%s/prefixItems/%d", path, i), fmt.Sprintf("%s-%d", name, i))
		if err != nil {
			return "", err
		}
		pexprs = append(pexprs, e)
	}
	rest := ""
	switch {
	case items == nil:
		rest = b.any()
	case items.Kind == jsonx.Bool && !items.Bool:
	default:
		if rest, err = b.schema(items, path+"/items", name+"-item"); err != nil {
			return "", err
		}
	}
	ws := b.ws()
	sep := seq(`","`, ws)
	var elems func(i int) (string, error)
	elems = func(i int) (string, error) {
		first := ""
		if i > 0 {
			first = sep
		}
		if hi >= 0 && i >= hi {
			return "", nil
		}
		if i >= len(pexprs) {
			if rest == "" {
				if lo > i {
					return "", fmt.Errorf("%w: %s: minItems %d needs more items than allowed", ErrSchema, path, lo)
				}
				return "", nil
			}
			h := -1
			if hi >= 0 {
				h = hi - i
			}
			if i == 0 {
				return b.list(rest, lo, h), nil
			}
			return b.repeat(name, "( "+seq(sep, rest)+" )", max(0, lo-i), h), nil
		}
		next, err := elems(i + 1)
		if err != nil {
			return "", err
		}
		e := seq(first, pexprs[i], next)
		if i >= lo {
			e = "( " + e + " )?"
		}
		return e, nil
	}
	inner, err := elems(0)
	if err != nil {
		return "", err
	}
	if s.Get("uniqueItems") != nil {
		b.warnf(path, "uniqueItems is not enforced")
	}
	return b.rule(name, seq(`"["`, ws, inner, ws, `"]"`)), nil
}

var formats = map[string]string{
	"date":      `[0-9]{4} "-" ( ( "0" [13578] | "1" [02] ) "-" ( "0" [1-9] | [12] [0-9] | "3" [01] ) | ( "0" [469] | "11" ) "-" ( "0" [1-9] | [12] [0-9] | "30" ) | "02-" ( "0" [1-9] | "1" [0-9] | "2" [0-8] ) ) | leap-year "-02-29"`,
	"leap-year": `[0-9] [0-9] ( "0" [48] | [2468] [048] | [13579] [26] ) | ( "0" [048] | [2468] [048] | [13579] [26] ) "00"`,
	"time":      `( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{1,9} )? ( "Z" | [+-] ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`,
	"date-time": `date "T" time`,
	"uuid":      `[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12}`,
}

func (b *builder) format(f string) string {
	switch f {
	case "date":
		b.fixed("leap-year", formats["leap-year"])
	case "date-time":
		b.format("date")
		b.format("time")
	}
	return b.fixed(f, formats[f])
}

func (b *builder) stringSchema(s *jsonx.Value, path, name string) (string, error) {
	if s.Get("pattern") != nil {
		b.warnf(path, "pattern is not enforced")
	}
	if f, ok := s.Get("format").AsString(); ok {
		if _, known := formats[f]; known && f != "leap-year" {
			if s.Get("minLength") != nil || s.Get("maxLength") != nil {
				b.warnf(path, "minLength/maxLength next to format %q are not enforced", f)
			}
			return b.rule(name, b.quoted(func(byte) string { return b.format(f) })), nil
		}
		b.warnf(path, "format %q is not enforced", f)
	}
	lo, hi, err := bounds(s, "minLength", "maxLength", path)
	if err != nil {
		return "", err
	}
	hi = b.strLimit(lo, hi, path)
	if lo == 0 && hi == b.strLimit(0, -1, path) {
		return b.str(), nil
	}
	return b.rule(name, b.quoted(func(q byte) string { return b.repeat(name, b.chars(q), lo, hi) })), nil
}

// bound reads minimum/maximum and their exclusive forms (numeric as in
// draft 6+, or boolean as in draft 4).
func bound(s *jsonx.Value, key, exclKey, path string) (v float64, excl, ok bool, err error) {
	if m := s.Get(key); m != nil {
		if m.Kind != jsonx.Number {
			return 0, false, false, fmt.Errorf("%w: %s/%s: want a number", ErrSchema, path, key)
		}
		v, _ = strconv.ParseFloat(m.Text, 64)
		ok = true
	}
	if e := s.Get(exclKey); e != nil {
		switch e.Kind {
		case jsonx.Bool:
			excl = e.Bool && ok
		case jsonx.Number:
			ev, _ := strconv.ParseFloat(e.Text, 64)
			if !ok || (key == "minimum" && ev >= v) || (key == "maximum" && ev <= v) {
				v, excl, ok = ev, true, true
			}
		default:
			return 0, false, false, fmt.Errorf("%w: %s/%s: want a number", ErrSchema, path, exclKey)
		}
	}
	return v, excl, ok, nil
}

// maxDigitsValue is the largest integer the integer grammar can write.
var maxDigitsValue = int64(math.Pow10(maxIntDigits)) - 1

func (b *builder) integer(s *jsonx.Value, path, name string) (string, error) {
	if s.Get("multipleOf") != nil {
		b.warnf(path, "multipleOf is not enforced")
	}
	minV, minX, hasMin, err := bound(s, "minimum", "exclusiveMinimum", path)
	if err != nil {
		return "", err
	}
	maxV, maxX, hasMax, err := bound(s, "maximum", "exclusiveMaximum", path)
	if err != nil {
		return "", err
	}
	if !hasMin && !hasMax {
		return b.integerRule(), nil
	}
	lo, hi := -maxDigitsValue, maxDigitsValue
	if hasMin {
		m := math.Ceil(minV)
		if minX && m == minV {
			m++
		}
		lo = int64(math.Max(m, float64(lo)))
	}
	if hasMax {
		m := math.Floor(maxV)
		if maxX && m == maxV {
			m--
		}
		hi = int64(math.Min(m, float64(hi)))
	}
	if lo > hi {
		return "", fmt.Errorf("%w: %s: no integer lies between minimum and maximum", ErrSchema, path)
	}
	return b.rule(name, intRange(lo, hi)), nil
}

func (b *builder) number(s *jsonx.Value, path, name string) (string, error) {
	if s.Get("multipleOf") != nil {
		b.warnf(path, "multipleOf is not enforced")
	}
	minV, minX, hasMin, err := bound(s, "minimum", "exclusiveMinimum", path)
	if err != nil {
		return "", err
	}
	_, _, hasMax, err := bound(s, "maximum", "exclusiveMaximum", path)
	if err != nil {
		return "", err
	}
	if hasMax || (hasMin && (minV != 0 || minX)) {
		b.warnf(path, "minimum/maximum on a number are enforced only as minimum 0")
	}
	if hasMin && minV == 0 && !minX && !hasMax {
		return b.rule(name, fmt.Sprintf(`( "0" | [1-9] [0-9]{0,%d} ) ( "." [0-9]{1,%d} )? ( [eE] [-+]? [0-9]{1,%d} )?`,
			maxIntDigits-1, maxFracDigits, maxExpDigits)), nil
	}
	return b.numberRule(), nil
}

// intRange is the grammar of the decimal integers in [lo, hi], written
// without leading zeros.
func intRange(lo, hi int64) string {
	var alts []string
	if lo < 0 {
		nhi := min(hi, -1)
		alts = append(alts, `"-" `+posRange(-nhi, -lo))
	}
	if hi >= 0 {
		alts = append(alts, posRange(max(lo, 0), hi))
	}
	return strings.Join(alts, " | ")
}

// posRange covers [a, b], 0 <= a <= b, grouping numbers by digit count.
func posRange(a, b int64) string {
	as, bs := strconv.FormatInt(a, 10), strconv.FormatInt(b, 10)
	var alts []string
	for n := len(as); n <= len(bs); n++ {
		l, h := as, bs
		if n > len(as) {
			l = "1" + strings.Repeat("0", n-1)
		}
		if n < len(bs) {
			h = strings.Repeat("9", n)
		}
		alts = append(alts, sameLen(l, h)...)
	}
	return group(alts)
}

// sameLen covers the numbers from a to b, strings of equal length.
func sameLen(a, b string) []string {
	if a == b {
		return []string{`"` + a + `"`}
	}
	if a[0] == b[0] {
		rest := sameLen(a[1:], b[1:])
		return []string{`"` + a[:1] + `" ` + group(rest)}
	}
	n := len(a) - 1
	digits := func(k int) string {
		switch k {
		case 0:
			return ""
		case 1:
			return "[0-9]"
		}
		return fmt.Sprintf("[0-9]{%d}", k)
	}
	var alts []string
	lo, hi := a[0], b[0]
	if strings.Trim(a[1:], "0") != "" {
		alts = append(alts, `"`+a[:1]+`" `+group(sameLen(a[1:], strings.Repeat("9", n))))
		lo++
	}
	var last []string
	if strings.Trim(b[1:], "9") != "" {
		last = []string{`"` + b[:1] + `" ` + group(sameLen(strings.Repeat("0", n), b[1:]))}
		hi--
	}
	if lo <= hi {
		cls := fmt.Sprintf("[%c-%c]", lo, hi)
		if lo == hi {
			cls = `"` + string(lo) + `"`
		}
		alts = append(alts, seq(cls, digits(n)))
	}
	return append(alts, last...)
}
