package shellword

import "mvdan.cc/sh/v3/syntax"

// Literal reports whether w expands to fixed text (globs and braces
// aside): plain, single- and double-quoted text only, with no parameter,
// command or arithmetic expansion.
func Literal(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
