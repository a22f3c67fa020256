package gbnf_test

import (
	"fmt"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

func ExampleGrammar_Accepts() {
	g, err := gbnf.Parse(`root ::= "[" ( item ( "," item )* )? "]"
item ::= [0-9]{1,3}`)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Accepts("root", "[1,22,333]"))
	fmt.Println(g.Accepts("root", "[1,2222]"))
	fmt.Println(g.IsPrefix("root", "[1,2"))
	// Output:
	// true
	// false
	// true
}
