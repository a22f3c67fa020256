// Package gbnf parses grammars in llama.cpp's GBNF notation and recognizes
// text against them.
//
// The parser follows llama.cpp's grammar parser: the same rule-name
// characters, escapes, comments, repetition operators and limits, the same
// check for undefined rules and left recursion. The recognizer is an Earley
// parser over Unicode code points, so it handles any GBNF grammar
// (ambiguous, nullable, deeply repeated) in time polynomial in the input.
// Token references (<[id]>, <name>) need a vocabulary and are rejected.
package gbnf
