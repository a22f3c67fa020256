// Package jsonx is offgrid's one home for JSON that standard encoding/json
// does not give: values that keep object key order and number text
// ([Value]), and the canonical compact encoding the grammars expect.
package jsonx
