package bench

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schemas of results.json (bench/schema), one per kind of run: the
// format's documentation, and what every results.json offgrid reads is
// checked against.
//
//go:embed schema/*.schema.json
var schemas embed.FS

// Kinds of results.json, by their schema's file.
const (
	agentSchema = "schema/results-agent.schema.json"
	bfclSchema  = "schema/results-bfcl.schema.json"
)

// checkSchema validates data, a results.json, against the schema named.
func checkSchema(name string, data []byte) error {
	raw, err := schemas.ReadFile(name)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("bench: %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(name, doc); err != nil {
		return err
	}
	s, err := c.Compile(name)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
