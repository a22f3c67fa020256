package tools_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/offgrid-ai/offgrid/tools"
)

func ExampleRegister() {
	type weatherArgs struct {
		City string `json:"city" jsonschema:"the city name"`
		Unit string `json:"unit,omitempty" enum:"celsius,fahrenheit" default:"celsius"`
	}
	r := tools.NewRegistry()
	err := tools.Register(r, "get_weather", "Get the weather in a city.", tools.Safe,
		func(ctx context.Context, a weatherArgs) (string, error) {
			return fmt.Sprintf("21 degrees %s in %s", a.Unit, a.City), nil
		})
	if err != nil {
		panic(err)
	}
	t, _ := r.Lookup("get_weather")
	fmt.Println(string(t.Parameters))

	res := r.Execute(context.Background(), "get_weather", json.RawMessage(`"{\"city\":\"Oslo\"}"`))
	fmt.Println(res.Success, res.Text())
	res = r.Execute(context.Background(), "get_weather", json.RawMessage(`{"city":"Oslo","unit":"kelvin"}`))
	fmt.Println(res.ErrorType, res.Message())
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city name"},"unit":{"type":"string","default":"celsius","enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}
	// true 21 degrees celsius in Oslo
	// validation_failed invalid arguments for get_weather: argument "unit" must be one of "celsius", "fahrenheit", not "kelvin"
}
