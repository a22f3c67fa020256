package grammar

import (
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// builder accumulates GBNF rules. Rules are named after the schema path
// that needs them, deduplicated by body, and printed in creation order
// with the root first.
type builder struct {
	opts     SchemaOptions
	python   bool // literals in Python syntax (pythonic format)
	order    []string
	bodies   map[string]string // name -> body
	byBody   map[string]string // body -> name
	warnings []string
	refs     map[string]string // $ref -> rule name
	root     *jsonx.Value      // document $ref pointers resolve in
}

func newBuilder(opts SchemaOptions, python bool) *builder {
	return &builder{
		opts:   opts,
		python: python,
		bodies: map[string]string{},
		byBody: map[string]string{},
		refs:   map[string]string{},
	}
}

func (b *builder) warnf(path, format string, args ...any) {
	if path == "" {
		path = "/"
	}
	b.warnings = append(b.warnings, path+": "+fmt.Sprintf(format, args...))
}

// ruleName turns any text into a GBNF rule name ([a-zA-Z0-9-]+).
func ruleName(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			sb.WriteRune(r)
			dash = false
		} else if !dash && sb.Len() > 0 {
			sb.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(sb.String(), "-")
	if out == "" {
		out = "r"
	}
	return out
}

// reserve claims a unique rule name derived from name.
func (b *builder) reserve(name string) string {
	base := ruleName(name)
	n := base
	for i := 2; ; i++ {
		if _, taken := b.bodies[n]; !taken {
			break
		}
		n = fmt.Sprintf("%s-%d", base, i)
	}
	b.bodies[n] = ""
	b.order = append(b.order, n)
	return n
}

// define sets the body of a reserved rule.
func (b *builder) define(name, body string) {
	b.bodies[name] = body
	if _, ok := b.byBody[body]; !ok {
		b.byBody[body] = name
	}
}

// rule returns a rule with body, reusing an existing rule with the same
// body, or creating one named after name.
func (b *builder) rule(name, body string) string {
	if n, ok := b.byBody[body]; ok {
		return n
	}
	n := b.reserve(name)
	b.define(n, body)
	return n
}

// fixed defines a shared rule under exactly name (primitives such as ws
// and string) once.
func (b *builder) fixed(name, body string) string {
	if _, ok := b.bodies[name]; !ok {
		b.bodies[name] = body
		b.order = append(b.order, name)
		if _, ok := b.byBody[body]; !ok && body != "" {
			b.byBody[body] = name
		}
	}
	return name
}

// gbnf prints the grammar, root first.
func (b *builder) gbnf(root string) string {
	var sb strings.Builder
	width := 0
	for _, n := range b.order {
		width = max(width, len(n))
	}
	width = min(width, 24)
	write := func(n string) {
		fmt.Fprintf(&sb, "%-*s ::= %s\n", width, n, b.bodies[n])
	}
	write(root)
	for _, n := range b.order {
		if n != root {
			write(n)
		}
	}
	return sb.String()
}

// lit returns s as a GBNF string literal.
func lit(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02X`, r)
		case r == 0x2028 || r == 0x2029 || r == 0xFEFF:
			fmt.Fprintf(&sb, `\u%04X`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// group wraps alternatives in parentheses when needed.
func group(alts []string) string {
	if len(alts) == 1 {
		return alts[0]
	}
	return "( " + strings.Join(alts, " | ") + " )"
}

// seq joins non-empty parts with spaces.
func seq(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// repeat writes expr{lo,hi} (hi < 0: unbounded) within llama.cpp's
// repetition limit, splitting larger counts into chunks.
func (b *builder) repeat(name, expr string, lo, hi int) string {
	const limit = 2000
	switch {
	case lo == 0 && hi == 0:
		return ""
	case lo == 1 && hi == 1:
		return expr
	case lo == 0 && hi == 1:
		return expr + "?"
	case lo == 0 && hi < 0:
		return expr + "*"
	case lo == 1 && hi < 0:
		return expr + "+"
	case hi >= 0 && hi <= limit:
		if lo == hi {
			return fmt.Sprintf("%s{%d}", expr, lo)
		}
		return fmt.Sprintf("%s{%d,%d}", expr, lo, hi)
	case hi < 0 && lo <= limit:
		return fmt.Sprintf("%s{%d,}", expr, lo)
	}
	// Too many for one repetition: peel whole chunks of limit.
	if lo >= limit {
		h := hi
		if h >= 0 {
			h -= limit
		}
		return seq(fmt.Sprintf("%s{%d}", expr, limit), b.repeat(name, expr, lo-limit, h))
	}
	// lo < limit < hi: up to limit-1, or a full chunk followed by the rest.
	rest := b.repeat(name, expr, max(0, lo-limit), hi-limit)
	short := fmt.Sprintf("%s{%d,%d}", expr, lo, limit-1)
	if rest == "" {
		return fmt.Sprintf("( %s | %s{%d} )", short, expr, limit)
	}
	return "( " + short + " | " + fmt.Sprintf("%s{%d}", expr, limit) + " " + b.rule(name+"-rest", rest) + " )"
}
