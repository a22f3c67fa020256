package grammar

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// pyString writes s as a Python string literal quoted with q, escaping
// only what must be escaped so the result is also what the grammar's
// string rule accepts.
func pyString(s string, q byte) string {
	var sb strings.Builder
	sb.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte(q)
	return sb.String()
}

// pyLiteral writes v as a Python literal: True/False/None, lists, dicts
// with ", " and ": " separators, double-quoted strings.
func pyLiteral(v *jsonx.Value) string {
	var sb strings.Builder
	writePy(&sb, v)
	return sb.String()
}

func writePy(sb *strings.Builder, v *jsonx.Value) {
	switch v.Kind {
	case jsonx.Null:
		sb.WriteString("None")
	case jsonx.Bool:
		if v.Bool {
			sb.WriteString("True")
		} else {
			sb.WriteString("False")
		}
	case jsonx.Number:
		sb.WriteString(v.Text)
	case jsonx.String:
		sb.WriteString(pyString(v.Text, '"'))
	case jsonx.Array:
		sb.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			writePy(sb, e)
		}
		sb.WriteByte(']')
	case jsonx.Object:
		sb.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(pyString(m.Key, '"'))
			sb.WriteString(": ")
			writePy(sb, m.Value)
		}
		sb.WriteByte('}')
	}
}

// pyParser reads Python call lists and literals.
type pyParser struct {
	s   string
	pos int
}

var errPy = errors.New("not a Python call list")

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", errPy, p.pos, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *pyParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	p.space()
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 || !first && '0' <= c && c <= '9'
}

// name reads a dotted identifier.
func (p *pyParser) name() string {
	p.space()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRuneInString(p.s[p.pos:]); r != utf8.RuneError && unicode.IsLetter(r) {
				p.pos += n
				continue
			}
			break
		}
		if isIdentByte(c, p.pos == start) || p.pos > start && (c == '.' || c == '-') {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// callList reads [f(a=1), g()] (or a single bare call).
func (p *pyParser) callList() ([]Call, error) {
	bracket := p.eat('[')
	var calls []Call
	for {
		p.space()
		if bracket && p.peek() == ']' && len(calls) > 0 {
			break
		}
		c, err := p.call()
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
		if !p.eat(',') {
			break
		}
	}
	if bracket && !p.eat(']') {
		return nil, p.errorf("expecting ']'")
	}
	return calls, nil
}

func (p *pyParser) call() (Call, error) {
	name := p.name()
	if name == "" {
		return Call{}, p.errorf("expecting a function name")
	}
	if !p.eat('(') {
		return Call{}, p.errorf("expecting '(' after %s", name)
	}
	args := &jsonx.Value{Kind: jsonx.Object}
	for !p.eat(')') {
		if len(args.Members) > 0 && !p.eat(',') {
			return Call{}, p.errorf("expecting ',' or ')'")
		}
		if p.eat(')') {
			break
		}
		key := p.name()
		if key == "" || !p.eat('=') {
			return Call{}, p.errorf("expecting a keyword argument in the call to %s", name)
		}
		v, err := p.literal()
		if err != nil {
			return Call{}, err
		}
		if args.Get(key) != nil {
			return Call{}, p.errorf("repeated keyword argument %q", key)
		}
		args.Set(key, v)
	}
	return Call{Name: name, Arguments: args.JSON()}, nil
}

func (p *pyParser) literal() (*jsonx.Value, error) {
	p.space()
	switch c := p.peek(); {
	case c == '"' || c == '\'':
		s, err := p.str()
		return jsonx.NewString(s), err
	case c == '[' || c == '(':
		p.pos++
		end := byte(']')
		if c == '(' {
			end = ')'
		}
		arr, err := p.elems(end)
		if err != nil {
			return nil, err
		}
		return &jsonx.Value{Kind: jsonx.Array, Elems: arr}, nil
	case c == '{':
		return p.dict()
	case c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9':
		return p.number()
	case isIdentByte(c, true):
		switch w := p.name(); w {
		case "True", "true":
			return &jsonx.Value{Kind: jsonx.Bool, Bool: true}, nil
		case "False", "false":
			return &jsonx.Value{Kind: jsonx.Bool}, nil
		case "None", "null":
			return &jsonx.Value{Kind: jsonx.Null}, nil
		default:
			return nil, p.errorf("unknown name %q", w)
		}
	}
	return nil, p.errorf("expecting a value")
}

func (p *pyParser) elems(end byte) ([]*jsonx.Value, error) {
	arr := []*jsonx.Value{}
	for !p.eat(end) {
		if len(arr) > 0 && !p.eat(',') {
			return nil, p.errorf("expecting ',' or '%c'", end)
		}
		if p.eat(end) {
			break
		}
		v, err := p.literal()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	return arr, nil
}

func (p *pyParser) dict() (*jsonx.Value, error) {
	p.pos++ // {
	obj := &jsonx.Value{Kind: jsonx.Object}
	for !p.eat('}') {
		if len(obj.Members) > 0 && !p.eat(',') {
			return nil, p.errorf("expecting ',' or '}'")
		}
		if p.eat('}') {
			break
		}
		k, err := p.literal()
		if err != nil {
			return nil, err
		}
		if k.Kind != jsonx.String {
			return nil, p.errorf("dict keys must be strings")
		}
		if !p.eat(':') {
			return nil, p.errorf("expecting ':'")
		}
		v, err := p.literal()
		if err != nil {
			return nil, err
		}
		obj.Set(k.Text, v)
	}
	return obj, nil
}

func (p *pyParser) number() (*jsonx.Value, error) {
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte("+-0123456789._eExXabcdefABCDEFoObB", p.s[p.pos]) >= 0 {
		if p.pos > start && (p.s[p.pos] == '-' || p.s[p.pos] == '+') && p.s[p.pos-1] != 'e' && p.s[p.pos-1] != 'E' {
			break
		}
		p.pos++
	}
	text := p.s[start:p.pos]
	if t := strings.TrimPrefix(text, "+"); isJSONNumber(t) {
		return &jsonx.Value{Kind: jsonx.Number, Text: t}, nil
	}
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		return &jsonx.Value{Kind: jsonx.Number, Text: strconv.FormatInt(i, 10)}, nil
	}
	clean := strings.ReplaceAll(text, "_", "")
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || math.IsInf(f, 0) || strings.ContainsAny(clean, "xXpP") {
		return nil, p.errorf("bad number %q", text)
	}
	if isJSONNumber(clean) {
		return &jsonx.Value{Kind: jsonx.Number, Text: strings.TrimPrefix(clean, "+")}, nil
	}
	return &jsonx.Value{Kind: jsonx.Number, Text: strconv.FormatFloat(f, 'g', -1, 64)}, nil
}

func isJSONNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if n := digits(); n == 0 || n > 1 && s[0] == '0' {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// str reads a single- or double-quoted Python string with its escapes.
func (p *pyParser) str() (string, error) {
	q := p.s[p.pos]
	p.pos++
	var sb strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.pos]
		switch {
		case c == q:
			p.pos++
			return sb.String(), nil
		case c == '\n':
			return "", p.errorf("newline in string")
		case c != '\\':
			r, n := utf8.DecodeRuneInString(p.s[p.pos:])
			sb.WriteRune(r)
			p.pos += n
			continue
		}
		if p.pos+1 >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		e := p.s[p.pos+1]
		p.pos += 2
		switch e {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'v':
			sb.WriteByte('\v')
		case 'a':
			sb.WriteByte('\a')
		case '0':
			sb.WriteByte(0)
		case '\\', '\'', '"':
			sb.WriteByte(e)
		case '\n':
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.pos+n > len(p.s) {
				return "", p.errorf("short \\%c escape", e)
			}
			v, err := strconv.ParseUint(p.s[p.pos:p.pos+n], 16, 32)
			if err != nil {
				return "", p.errorf("bad \\%c escape", e)
			}
			p.pos += n
			sb.WriteRune(rune(v))
		default:
			sb.WriteByte('\\') // Python keeps unknown escapes
			sb.WriteByte(e)
		}
	}
}
