package grammar_test

import (
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

// A grammar from a JSON Schema accepts the documents the schema allows and
// nothing else. llama.cpp takes the GBNF text as it is; here package gbnf
// checks documents against it.
func ExampleFromSchema() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {"city": {"type": "string", "maxLength": 20}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
		"required": ["city", "days"]
	}`)
	g, err := grammar.FromSchema(schema, grammar.SchemaOptions{})
	if err != nil {
		panic(err)
	}
	parsed, err := gbnf.Parse(g.GBNF)
	if err != nil {
		panic(err)
	}
	for _, doc := range []string{
		`{"city": "Lyon", "days": 3}`,
		`{"city": "Lyon", "days": 9}`, // above the maximum
		`{"days": 3, "city": "Lyon"}`, // properties in declared order only
		`{"city": "Lyon"}`,            // a required property missing
	} {
		fmt.Println(parsed.Accepts(g.Root, doc), doc)
	}
	// Output:
	// true {"city": "Lyon", "days": 3}
	// false {"city": "Lyon", "days": 9}
	// false {"days": 3, "city": "Lyon"}
	// false {"city": "Lyon"}
}

// The grammar of a reply that may call tools, in the Hermes format: free
// text until the trigger word, then only well-formed calls of the tools.
// Render writes calls in the format and Parse reads them back.
func ExampleForTools() {
	tools, err := grammar.ParseTools([]byte(`[{"type": "function", "function": {
		"name": "get_weather", "description": "Weather for a city.",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]`))
	if err != nil {
		panic(err)
	}
	tg, err := grammar.ForTools(tools, grammar.Hermes, grammar.ToolOptions{ToolChoice: grammar.Auto})
	if err != nil {
		panic(err)
	}
	fmt.Println("lazy:", tg.Lazy(), tg.TriggerWords)

	reply := grammar.Render(grammar.Hermes, []grammar.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo"}`)}})
	parsed, err := gbnf.Parse(tg.GBNF)
	if err != nil {
		panic(err)
	}
	fmt.Println("accepted:", parsed.Accepts(tg.Root, reply))
	fmt.Println("other tool accepted:", parsed.Accepts(tg.Root, `<tool_call>{"name": "rm", "arguments": {}}</tool_call>`))

	content, calls, err := grammar.Parse(grammar.Hermes, "Checking. "+reply)
	if err != nil {
		panic(err)
	}
	fmt.Printf("content %q, call %s %s\n", content, calls[0].Name, calls[0].Arguments)
	// Output:
	// lazy: true [<tool_call>]
	// accepted: true
	// other tool accepted: false
	// content "Checking.", call get_weather {"city":"Oslo"}
}
