// Package grammar turns JSON Schema into GBNF grammars that make a model's
// output valid by construction, and reads and writes tool calls in the
// formats models are trained on.
//
// [FromSchema] compiles one JSON Schema to a grammar for a JSON document.
// [ForTools] builds the grammar for a reply that may call tools: text, or
// calls in a [Format] (generic JSON, Hermes, Llama 3, Mistral, or Python
// syntax), each call's arguments constrained by its tool's parameter
// schema, with the trigger words and patterns a lazy grammar needs.
// [Render] writes calls in a format and [Parse] reads them back.
//
// The package knows JSON Schema and GBNF only; tool definitions in other
// conventions (BFCL's function docs, for one) are translated by their
// readers before [ParseTools].
package grammar
