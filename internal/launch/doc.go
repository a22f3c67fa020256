// Package launch opens a model and starts an agent over it the way offgrid
// does, for both the offgrid command and the offgrid library: it resolves
// a model reference (the executable's bundled model, a store name, a
// catalog name, a URL or a GGUF path), chooses the agent profile (the
// catalog model's, else its template family's), applies the settings
// given over it, sizes the context window and uses the prompt cache.
//
// Keeping these steps in one place is what makes a library user's agent
// the one `offgrid run` runs.
package launch
