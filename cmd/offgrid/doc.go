// Command offgrid runs a GGUF language model in-process and lets it call tools
// through grammar-constrained decoding: no server, no network.
//
// Usage:
//
//	offgrid <command> [flags]
//
// Commands: run, bench, models, bundle, grammar, tools, version. Run
// `offgrid <command> -h` for the flags of one command.
package main
