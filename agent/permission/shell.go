package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/offgrid-ai/offgrid/internal/shellword"
)

// shellArgs names, per tool, the argument holding a shell command. Rules
// on it are matched against the parsed command (see matchShell).
var shellArgs = map[string]string{"bash": "command"}

// matchShell matches a shell command against a rule's pattern. A pattern
// with wildcards allows exactly one simple command: a command name with
// literal arguments, no lists (;, &&, ||, newlines), pipes, background
// jobs, redirections, variable assignments, or substitutions and
// expansions ($(...), `...`, <(...), $VAR, $((...))). Anything else is
// allowed only by a rule that spells it out exactly, with no wildcard.
// So "go test *" allows "go test ./..." but not "go test ./... ; echo hi".
func matchShell(pattern, command string) bool {
	if !wildcard(pattern, command) {
		return false
	}
	return !hasWildcard(pattern) || simpleCommand(command)
}

// hasWildcard reports whether pattern holds an unescaped '*' or '?'.
func hasWildcard(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		}
	}
	return false
}

// simpleCommand reports whether command parses as one simple command whose
// words are literal (quoting allowed).
func simpleCommand(command string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || st.Disown || len(st.Redirs) > 0 {
		return false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	for _, w := range call.Args {
		if !shellword.Literal(w) {
			return false
		}
	}
	return true
}
