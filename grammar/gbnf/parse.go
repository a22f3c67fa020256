package gbnf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxRepetitions is llama.cpp's limit on the bounds of {m,n}.
const MaxRepetitions = 2000

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("gbnf: syntax error")

// ErrLeftRecursive is wrapped by Parse errors about a rule that derives
// itself before any input, which llama.cpp refuses.
var ErrLeftRecursive = errors.New("gbnf: left-recursive rule")

// SyntaxError reports where a grammar failed to parse.
type SyntaxError struct {
	Line, Col int // 1-based position of the problem
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("gbnf: line %d col %d: %s", e.Line, e.Col, e.Msg)
}

// Unwrap lets errors.Is(err, ErrSyntax) match.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Grammar is a parsed GBNF grammar. It is immutable and safe for concurrent
// use.
type Grammar struct {
	names    map[string]int // rule name -> rule id
	rules    []rule
	prods    []prod
	nullable []bool // by rule id
}

type rule struct {
	name    string
	prods   []int32
	defined bool
}

type prod struct {
	rule int32
	syms []sym
}

type symKind uint8

const (
	symChar symKind = iota
	symRule
)

// sym is one grammar symbol with its repetition bounds; max < 0 means no
// upper bound.
type sym struct {
	kind     symKind
	ranges   []rune // inclusive pairs
	negate   bool
	rule     int32
	min, max int32
}

func (s *sym) matches(r rune) bool {
	in := false
	for i := 0; i < len(s.ranges); i += 2 {
		if s.ranges[i] <= r && r <= s.ranges[i+1] {
			in = true
			break
		}
	}
	return in != s.negate
}

// Rules returns the names of the rules written in the grammar, in order of
// first appearance.
func (g *Grammar) Rules() []string {
	var out []string
	for _, r := range g.rules {
		if !strings.Contains(r.name, "~") {
			out = append(out, r.name)
		}
	}
	return out
}

// Has reports whether the grammar defines rule name.
func (g *Grammar) Has(name string) bool {
	id, ok := g.names[name]
	return ok && g.rules[id].defined
}

// Parse parses GBNF text. It rejects what llama.cpp's parser rejects:
// syntax errors, undefined rules, repetition bounds above MaxRepetitions
// and left-recursive rules.
func Parse(text string) (*Grammar, error) {
	p := &parser{src: text, g: &Grammar{names: map[string]int{}}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	g := p.g
	for _, r := range g.rules {
		if !r.defined {
			return nil, fmt.Errorf("%w: undefined rule %q", ErrSyntax, r.name)
		}
	}
	g.computeNullable()
	if name, ok := g.leftRecursive(); ok {
		return nil, fmt.Errorf("%w: %w: %q", ErrSyntax, ErrLeftRecursive, name)
	}
	return g, nil
}

type parser struct {
	src  string
	pos  int
	g    *Grammar
	anon int
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, r := range p.src[:min(p.pos, len(p.src))] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) space(newlineOK bool) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || (newlineOK && (c == '\r' || c == '\n')):
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\r' && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || '0' <= c && c <= '9'
}

func (p *parser) name() (string, error) {
	start := p.pos
	for p.pos < len(p.src) && isWordChar(p.src[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		return "", p.errorf("expecting name")
	}
	return p.src[start:p.pos], nil
}

func (p *parser) ruleID(name string) int32 {
	if id, ok := p.g.names[name]; ok {
		return int32(id)
	}
	id := len(p.g.rules)
	p.g.names[name] = id
	p.g.rules = append(p.g.rules, rule{name: name})
	return int32(id)
}

func (p *parser) newAnon(parent string) int32 {
	p.anon++
	// '~' cannot appear in a written rule name, so anonymous rules never
	// collide with written ones.
	return p.ruleID(fmt.Sprintf("%s~%d", parent, p.anon))
}

func (p *parser) parse() error {
	p.space(true)
	for p.pos < len(p.src) {
		if err := p.parseRule(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) parseRule() error {
	name, err := p.name()
	if err != nil {
		return err
	}
	p.space(false)
	if !strings.HasPrefix(p.src[p.pos:], "::=") {
		return p.errorf("expecting ::=")
	}
	p.pos += 3
	p.space(true)
	id := p.ruleID(name)
	if err := p.alternates(name, id, false); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(p.src[p.pos:], "\r\n"):
		p.pos += 2
	case p.peek() == '\r' || p.peek() == '\n':
		p.pos++
	case p.pos < len(p.src):
		return p.errorf("expecting newline or end")
	}
	p.space(true)
	return nil
}

func (p *parser) alternates(ruleName string, id int32, nested bool) error {
	r := &p.g.rules[id]
	if r.defined {
		// llama.cpp silently replaces a redefined rule; we do the same.
		r.prods = nil
	}
	p.g.rules[id].defined = true
	for {
		syms, err := p.sequence(ruleName, nested)
		if err != nil {
			return err
		}
		p.g.rules[id].prods = append(p.g.rules[id].prods, int32(len(p.g.prods)))
		p.g.prods = append(p.g.prods, prod{rule: id, syms: syms})
		if p.peek() != '|' {
			return nil
		}
		p.pos++
		p.space(true)
	}
}

// sequence parses one alternative. Each element is kept as a group of
// symbols so a repetition operator applies to the whole last element, as
// in llama.cpp (a literal "abc"* repeats "abc").
func (p *parser) sequence(ruleName string, nested bool) ([]sym, error) {
	var out []sym
	last := -1 // start of the last element in out
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			last = len(out)
			for p.peek() != '"' {
				if p.pos >= len(p.src) {
					return nil, p.errorf("unexpected end of input")
				}
				r, err := p.char()
				if err != nil {
					return nil, err
				}
				out = append(out, sym{kind: symChar, ranges: []rune{r, r}, min: 1, max: 1})
			}
			p.pos++
			if last == len(out) {
				last = -2 // empty literal: nothing to repeat
			}
		case c == '[':
			p.pos++
			s := sym{kind: symChar, min: 1, max: 1}
			if p.peek() == '^' {
				p.pos++
				s.negate = true
			}
			for p.peek() != ']' {
				if p.pos >= len(p.src) {
					return nil, p.errorf("unexpected end of input")
				}
				lo, err := p.char()
				if err != nil {
					return nil, err
				}
				hi := lo
				if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
					p.pos++
					if hi, err = p.char(); err != nil {
						return nil, err
					}
				}
				s.ranges = append(s.ranges, lo, hi)
			}
			p.pos++
			last = len(out)
			out = append(out, s)
		case c == '<' || c == '!':
			return nil, p.errorf("token references need a vocabulary and are not supported")
		case isWordChar(c):
			name, _ := p.name()
			last = len(out)
			out = append(out, sym{kind: symRule, rule: p.ruleID(name), min: 1, max: 1})
		case c == '(':
			p.pos++
			p.space(true)
			id := p.newAnon(ruleName)
			if err := p.alternates(ruleName, id, true); err != nil {
				return nil, err
			}
			if p.peek() != ')' {
				return nil, p.errorf("expecting ')'")
			}
			p.pos++
			last = len(out)
			out = append(out, sym{kind: symRule, rule: id, min: 1, max: 1})
		case c == '.':
			p.pos++
			last = len(out)
			out = append(out, sym{kind: symChar, negate: true, min: 1, max: 1})
		case c == '*' || c == '+' || c == '?' || c == '{':
			lo, hi, err := p.repetition()
			if err != nil {
				return nil, err
			}
			if last < 0 {
				return nil, p.errorf("expecting preceding item to */+/?/{")
			}
			out = p.repeat(ruleName, out, last, lo, hi)
		default:
			return out, nil
		}
		p.space(nested)
	}
	return out, nil
}

// repeat applies bounds to the element out[last:].
func (p *parser) repeat(ruleName string, out []sym, last int, lo, hi int32) []sym {
	elem := out[last:]
	if len(elem) == 1 && elem[0].min == 1 && elem[0].max == 1 {
		out[last].min, out[last].max = lo, hi
		return out
	}
	id := p.newAnon(ruleName)
	p.g.rules[id].defined = true
	p.g.rules[id].prods = []int32{int32(len(p.g.prods))}
	p.g.prods = append(p.g.prods, prod{rule: id, syms: append([]sym(nil), elem...)})
	return append(out[:last], sym{kind: symRule, rule: id, min: lo, max: hi})
}

func (p *parser) repetition() (lo, hi int32, err error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '*':
		return 0, -1, nil
	case '+':
		return 1, -1, nil
	case '?':
		return 0, 1, nil
	}
	p.space(true)
	n, err := p.int()
	if err != nil {
		return 0, 0, err
	}
	lo, hi = n, n
	p.space(true)
	switch p.peek() {
	case '}':
	case ',':
		p.pos++
		p.space(true)
		hi = -1
		if c := p.peek(); '0' <= c && c <= '9' {
			if hi, err = p.int(); err != nil {
				return 0, 0, err
			}
			p.space(true)
		}
		if p.peek() != '}' {
			return 0, 0, p.errorf("expecting '}'")
		}
	default:
		return 0, 0, p.errorf("expecting ',' or '}'")
	}
	p.pos++
	if lo > MaxRepetitions || hi > MaxRepetitions {
		return 0, 0, p.errorf("number of repetitions exceeds %d", MaxRepetitions)
	}
	if hi >= 0 && hi < lo {
		return 0, 0, p.errorf("repetition {%d,%d} has max below min", lo, hi)
	}
	return lo, hi, nil
}

func (p *parser) int() (int32, error) {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start {
		return 0, p.errorf("expecting an integer")
	}
	n, err := strconv.ParseInt(p.src[start:p.pos], 10, 32)
	if err != nil || n > MaxRepetitions {
		return 0, p.errorf("number of repetitions exceeds %d", MaxRepetitions)
	}
	return int32(n), nil
}

func (p *parser) char() (rune, error) {
	s := p.src[p.pos:]
	if s[0] != '\\' {
		r, n := utf8.DecodeRuneInString(s)
		p.pos += n
		return r, nil
	}
	if len(s) < 2 {
		return 0, p.errorf("unexpected end of input")
	}
	hex := 0
	switch s[1] {
	case 'x':
		hex = 2
	case 'u':
		hex = 4
	case 'U':
		hex = 8
	case 't':
		p.pos += 2
		return '\t', nil
	case 'r':
		p.pos += 2
		return '\r', nil
	case 'n':
		p.pos += 2
		return '\n', nil
	case '\\', '"', '[', ']':
		p.pos += 2
		return rune(s[1]), nil
	default:
		return 0, p.errorf("unknown escape")
	}
	if len(s) < 2+hex {
		return 0, p.errorf("expecting %d hex chars", hex)
	}
	v, err := strconv.ParseUint(s[2:2+hex], 16, 32)
	if err != nil || strings.ContainsAny(s[2:2+hex], "+-_") {
		return 0, p.errorf("expecting %d hex chars", hex)
	}
	p.pos += 2 + hex
	return rune(v), nil
}

func (g *Grammar) symNullable(s *sym) bool {
	return s.min == 0 || s.kind == symRule && g.nullable[s.rule]
}

func (g *Grammar) computeNullable() {
	g.nullable = make([]bool, len(g.rules))
	for changed := true; changed; {
		changed = false
		for _, pr := range g.prods {
			if g.nullable[pr.rule] {
				continue
			}
			all := true
			for i := range pr.syms {
				if !g.symNullable(&pr.syms[i]) {
					all = false
					break
				}
			}
			if all {
				g.nullable[pr.rule] = true
				changed = true
			}
		}
	}
}

// leftRecursive reports a rule that can derive itself at its leftmost
// position, which llama.cpp refuses (its stack machine would not end).
func (g *Grammar) leftRecursive() (string, bool) {
	const (
		unvisited = iota
		inProgress
		done
	)
	state := make([]uint8, len(g.rules))
	var visit func(r int32) bool
	visit = func(r int32) bool {
		switch state[r] {
		case inProgress:
			return true
		case done:
			return false
		}
		state[r] = inProgress
		for _, pi := range g.rules[r].prods {
			for i := range g.prods[pi].syms {
				s := &g.prods[pi].syms[i]
				if s.kind == symRule && visit(s.rule) {
					return true
				}
				if !g.symNullable(s) {
					break
				}
			}
		}
		state[r] = done
		return false
	}
	for i := range g.rules {
		if visit(int32(i)) {
			name, _, _ := strings.Cut(g.rules[i].name, "~")
			return name, true
		}
	}
	return "", false
}
