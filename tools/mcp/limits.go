package mcp

// Bounds on what a server declares: its tools are shown to the model in
// every prompt and compiled into its grammar.
const (
	// MaxTools is how many tools of one server are registered: the
	// first ones it lists; the others are left out with a warning.
	MaxTools = 128
)
