package shellword

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestLiteral(t *testing.T) {
	for _, tc := range []struct {
		word string
		want bool
	}{
		{"plain", true}, {"'single $x'", true}, {`"double"`, true}, {"a'b'\"c\"", true},
		{"$HOME", false}, {`"$HOME"`, false}, {"$(id)", false}, {"`id`", false}, {"$((1+2))", false}, {`"a$(id)"`, false},
	} {
		var got []bool
		for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(tc.word)) {
			if err != nil {
				t.Fatalf("%s: %v", tc.word, err)
			}
			got = append(got, Literal(w))
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("Literal(%s) = %v, want %v", tc.word, got, tc.want)
		}
	}
}
