// Command units converts lengths with a typed tool: the argument struct's
// tags describe each argument to the model and limit the units to a list,
// and every call the model makes is valid for that schema. Events show the
// call and its result as they happen, and the answer as it streams.
//
//	go run ./examples/units -m qwen2.5-coder-1.5b "How many feet is 3 meters?"
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/offgrid-ai/offgrid"
)

// Length is the convert tool's arguments.
type Length struct {
	Value float64 `json:"value" jsonschema:"the length to convert"`
	From  string  `json:"from" enum:"mm,cm,m,km,in,ft,yd,mi" jsonschema:"the unit of value"`
	To    string  `json:"to" enum:"mm,cm,m,km,in,ft,yd,mi" jsonschema:"the unit wanted"`
}

// meters is each unit's length in meters.
var meters = map[string]float64{"mm": 0.001, "cm": 0.01, "m": 1, "km": 1000, "in": 0.0254, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344}

// Converted is the tool's result; it reaches the model as JSON.
type Converted struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

func convert(_ context.Context, l Length) (Converted, error) {
	from, okFrom := meters[l.From]
	to, okTo := meters[l.To]
	if !okFrom || !okTo { // the grammar already keeps units to the list
		return Converted{}, fmt.Errorf("unknown unit")
	}
	return Converted{Value: l.Value * from / to, Unit: l.To}, nil
}

func main() {
	model := flag.String("m", "default", "model: a store name, a GGUF path or a URL")
	flag.Parse()
	question := strings.Join(flag.Args(), " ")
	if question == "" {
		question = "How many feet is 3 meters?"
	}
	ctx := context.Background()
	m, err := offgrid.Open(ctx, *model, offgrid.WithLog(os.Stderr))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	show := func(e offgrid.Event) {
		switch e.Type {
		case offgrid.EventToolCall:
			fmt.Printf("→ %s %s\n", e.Tool, e.Arguments)
		case offgrid.EventToolResult:
			fmt.Printf("← %s\n", e.Record.Result.Text())
		case offgrid.EventToken:
			fmt.Print(e.Text)
		case offgrid.EventFinal:
			fmt.Println()
		}
	}
	a, err := m.Agent(offgrid.Tools(offgrid.Func("convert", "Convert a length from one unit to another", convert)),
		offgrid.WithEvents(show), offgrid.WithTemperature(0))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Ask(ctx, question); err != nil {
		log.Fatal(err)
	}
}
