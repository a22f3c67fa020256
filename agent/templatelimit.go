package agent

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// A chat template comes from the model file, which is untrusted input.
// gonja has no limits of its own, and a Go stack overflow or an
// out-of-memory error kills the process, so templates are bounded three
// ways: static checks on the source (size, nesting, recursive macros,
// includes), limits inside every render (output size, wall time checked on
// each write, a range() with a per-render budget), and a first render of
// sample conversations in a resource-limited child process, whose verdict
// is cached per template hash (templatecheck.go).
const (
	maxTemplateSource  = 1 << 20
	maxTemplateNesting = 64
	maxTemplateOutput  = 16 << 20
	maxTemplateRange   = 100_000 // range() items per render; gonja takes microseconds per loop iteration
	templateRenderTime = 5 * time.Second
)

var (
	errTemplateOutput = fmt.Errorf("output exceeds %d bytes", maxTemplateOutput)
	errTemplateTime   = fmt.Errorf("rendering takes longer than %v", templateRenderTime)
	errTemplateRange  = fmt.Errorf("range() makes more than %d items", maxTemplateRange)
)

var (
	templateIncludeTag = regexp.MustCompile(`\{%[-+]?\s*(include|import|extends|from)\b`)
	templateMacroTag   = regexp.MustCompile(`\{%[-+]?\s*macro\s+(\w+)\s*\(`)
	templateEndMacro   = regexp.MustCompile(`\{%[-+]?\s*endmacro\b`)
)

// vetTemplateSource checks what can be checked without running a template:
// its size, the nesting of brackets inside tags (gonja's parser recurses
// once per level), includes (a template could include itself), and macros
// that call themselves directly or through each other.
func vetTemplateSource(src string) error {
	if len(src) > maxTemplateSource {
		return fmt.Errorf("%w: %d bytes (at most %d)", ErrTemplate, len(src), maxTemplateSource)
	}
	if m := templateIncludeTag.FindStringSubmatch(src); m != nil {
		return fmt.Errorf("%w: %q tags are not supported", ErrTemplate, m[1])
	}
	if err := checkNesting(src); err != nil {
		return err
	}
	return checkMacroRecursion(src)
}

// checkNesting bounds the depth of (, [ and { inside {{ }} and {% %} tags,
// skipping string literals.
func checkNesting(src string) error {
	depth, inTag := 0, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inTag {
			if c == '{' && i+1 < len(src) && (src[i+1] == '{' || src[i+1] == '%') {
				inTag, depth = true, 0
				i++
			}
			continue
		}
		switch c {
		case '\'', '"':
			for i++; i < len(src) && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			if depth++; depth > maxTemplateNesting {
				return fmt.Errorf("%w: brackets nested more than %d deep", ErrTemplate, maxTemplateNesting)
			}
		case ')', ']':
			depth = max(0, depth-1)
		case '}', '%':
			if depth == 0 && i+1 < len(src) && src[i+1] == '}' {
				inTag = false
				i++
			} else if c == '}' {
				depth = max(0, depth-1)
			}
		}
	}
	return nil
}

// checkMacroRecursion refuses templates whose macros call each other in a
// cycle: unbounded recursion overflows the Go stack, which cannot be
// recovered from.
func checkMacroRecursion(src string) error {
	bodies := map[string]string{}
	var names []string
	for _, loc := range templateMacroTag.FindAllStringSubmatchIndex(src, -1) {
		name := src[loc[2]:loc[3]]
		body := src[loc[1]:]
		if end := templateEndMacro.FindStringIndex(body); end != nil {
			body = body[:end[0]]
		}
		bodies[name] = body
		names = append(names, name)
	}
	calls := map[string][]string{}
	for _, caller := range names {
		for _, callee := range names {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(callee) + `\s*\(`).MatchString(bodies[caller]) {
				calls[caller] = append(calls[caller], callee)
			}
		}
	}
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = active
		for _, m := range calls[n] {
			switch state[m] {
			case active:
				return []string{n, m}
			case unseen:
				if cycle := visit(m); cycle != nil {
					return append([]string{n}, cycle...)
				}
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range names {
		if state[n] == unseen {
			if cycle := visit(n); cycle != nil {
				return fmt.Errorf("%w: recursive macro (%s)", ErrTemplate, strings.Join(cycle, " → "))
			}
		}
	}
	return nil
}

// renderLimits bounds one render: its output is collected up to
// maxTemplateOutput bytes, writes fail after the deadline (gonja stops at
// the first failed write), and range() has a budget of items shared by
// every call. hit records the first limit reached, since gonja flattens
// errors to text.
type renderLimits struct {
	sb       strings.Builder
	deadline time.Time
	budget   int
	hit      error
}

func newRenderLimits() *renderLimits {
	return &renderLimits{deadline: time.Now().Add(templateRenderTime), budget: maxTemplateRange}
}

func (l *renderLimits) fail(err error) error {
	if l.hit == nil {
		l.hit = err
	}
	return err
}

func (l *renderLimits) Write(p []byte) (int, error) {
	if l.sb.Len()+len(p) > maxTemplateOutput {
		return 0, l.fail(errTemplateOutput)
	}
	if time.Now().After(l.deadline) {
		return 0, l.fail(errTemplateTime)
	}
	return l.sb.Write(p)
}

// rangeFunc is Jinja's range() returning a list within the render's
// budget. (gonja's own range streams from a goroutine that leaks when a
// loop breaks early, and has no bound.)
func (l *renderLimits) rangeFunc(_ *exec.Evaluator, params *exec.VarArgs) ([]int, error) {
	args := make([]int, len(params.Args))
	for i, a := range params.Args {
		if !a.IsInteger() {
			return nil, errors.New("range: arguments must be integers")
		}
		args[i] = a.Integer()
	}
	start, stop, step := 0, 0, 1
	switch len(args) {
	case 1:
		stop = args[0]
	case 2:
		start, stop = args[0], args[1]
	case 3:
		start, stop, step = args[0], args[1], args[2]
	default:
		return nil, errors.New("range: expected [start, ]stop[, step]")
	}
	if step == 0 {
		return nil, errors.New("range: step cannot be 0")
	}
	var n int
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		n = (start - stop - step - 1) / -step
	}
	if n < 0 || n > l.budget {
		return nil, l.fail(errTemplateRange)
	}
	l.budget -= n
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out, nil
}
