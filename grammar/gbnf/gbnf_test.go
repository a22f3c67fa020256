package gbnf

import (
	"errors"
	"strings"
	"testing"
)

func TestAccepts(t *testing.T) {
	tests := []struct {
		name    string
		grammar string
		yes, no []string
	}{
		{"literal", `root ::= "abc"`, []string{"abc"}, []string{"", "ab", "abcd"}},
		{"alternation", `root ::= "a" | "bc" | ""`, []string{"a", "bc", ""}, []string{"b", "abc"}},
		{"literal repeat", `root ::= "ab"*`, []string{"", "ab", "abab"}, []string{"a", "aba"}},
		{"plus", `root ::= [0-9]+`, []string{"0", "123"}, []string{"", "1a"}},
		{"optional", `root ::= "x" "y"?`, []string{"x", "xy"}, []string{"y", "xyy"}},
		{"bounded", `root ::= [a]{2,3}`, []string{"aa", "aaa"}, []string{"a", "aaaa"}},
		{"exact", `root ::= [a]{2}`, []string{"aa"}, []string{"a", "aaa"}},
		{"at least", `root ::= "a"{2,}`, []string{"aa", "aaaaaa"}, []string{"a", ""}},
		{"group repeat", `root ::= ("a" | "bb"){1,2} "c"`, []string{"ac", "bbc", "abbc", "bbac"}, []string{"c", "aaac", "bc"}},
		{"negated class", `root ::= [^"\\]*`, []string{"", "abc", "é"}, []string{`a"`, `\`}},
		{"escapes", `root ::= "\x41\u00e9\U0001F600\t\n\"\\\[\]"`, []string{"Aé😀\t\n\"\\[]"}, []string{"A"}},
		{"any", `root ::= . .`, []string{"ab", "😀x"}, []string{"a", "abc"}},
		{"class ranges", `root ::= [a-cx-z_]`, []string{"a", "b", "y", "_"}, []string{"d", "-"}},
		{"dash literal", `root ::= [a-]`, []string{"a", "-"}, []string{"b"}},
		{"nullable chain", "root ::= a b a\na ::= b*\nb ::= \"x\"?", []string{"", "x", "xxxx"}, []string{"y"}},
		{"nested nullable repeat", `root ::= ("a"?){3} "b"`, []string{"b", "ab", "aaab"}, []string{"aaaab"}},
		{"right recursion", "root ::= \"(\" root \")\" | \"\"", []string{"", "()", "((()))"}, []string{"(", "())"}},
		{"stacked ops", `root ::= "a"*?`, []string{"", "aaa"}, []string{"b"}},
		{"comments and newlines", "# c\nroot ::= ( # in group\n  \"a\"\n  | \"b\" ) # end\n\n", []string{"a", "b"}, []string{"ab"}},
		{"json", jsonGrammar, []string{`{"a":[1,2.5e3,true,null,"x\"y"]}`, `[]`, `"\u00e9"`}, []string{`{"a":}`, `[1,]`, `01`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.grammar)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.yes {
				if !g.Accepts("root", s) {
					t.Errorf("rejects %q", s)
				}
				if !g.IsPrefix("root", s) {
					t.Errorf("IsPrefix(%q) = false", s)
				}
			}
			for _, s := range tt.no {
				if g.Accepts("root", s) {
					t.Errorf("accepts %q", s)
				}
			}
		})
	}
}

const jsonGrammar = `
root   ::= value
value  ::= object | array | string | number | ("true" | "false" | "null")
object ::= "{" ( string ":" value ( "," string ":" value )* )? "}"
array  ::= "[" ( value ( "," value )* )? "]"
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
number ::= "-"? ( [0] | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
`

func TestIsPrefix(t *testing.T) {
	g, err := Parse(jsonGrammar)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`{"a":[1,`, `"ab`, `-`} {
		if !g.IsPrefix("root", s) || g.Accepts("root", s) {
			t.Errorf("%q: want a viable prefix that is not complete", s)
		}
	}
	if g.IsPrefix("root", `{"a" x`) {
		t.Error(`IsPrefix({"a" x) = true`)
	}
	if g.Accepts("root", "\"\xff\"") {
		t.Error("accepts invalid UTF-8")
	}
	if g.Accepts("nope", "1") {
		t.Error("accepts for an undefined root")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ grammar, want string }{
		{`root ::= foo`, "undefined rule"},
		{`root ::= "a`, "unexpected end"},
		{`root ::= [a`, "unexpected end"},
		{`root = "a"`, "expecting ::="},
		{`root ::= ("a"`, "expecting ')'"},
		{`root ::= *`, "preceding item"},
		{`root ::= "" *`, "preceding item"},
		{`root ::= "a"{2001}`, "exceeds"},
		{`root ::= "a"{3,2}`, "below min"},
		{`root ::= "a"{x}`, "integer"},
		{`root ::= "\q"`, "unknown escape"},
		{`root ::= "\x4"`, "hex"},
		{`root ::= root "a"`, "left-recursive"},
		{"root ::= a\na ::= b* root\nb ::= \"x\"", "left-recursive"},
		{`root ::= <[12]>`, "token"},
		{`ro_ot ::= "a"`, "::="},
	}
	for _, tt := range tests {
		_, err := Parse(tt.grammar)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tt.grammar, err, tt.want)
		}
	}
}

func TestRules(t *testing.T) {
	g, err := Parse("root ::= a (b)*\na ::= \"x\"\nb ::= \"y\"")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Rules(), ","); got != "root,a,b" {
		t.Errorf("Rules() = %s", got)
	}
	if !g.Has("b") || g.Has("c") {
		t.Error("Has is wrong")
	}
}

func BenchmarkAcceptsJSON(b *testing.B) {
	g, err := Parse(jsonGrammar)
	if err != nil {
		b.Fatal(err)
	}
	doc := `{"location":"San Francisco, CA","unit":"celsius","days":[1,2,3,4,5],"nested":{"a":true,"b":null,"c":-12.5e-3}}`
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if !g.Accepts("root", doc) {
			b.Fatal("rejected")
		}
	}
}
