// Package bfcl holds what offgrid knows of the Berkeley Function Calling
// Leaderboard's own conventions: its function docs, whose type names are
// Python's and Java's rather than JSON Schema's, and its two tables for
// them (to JSON Schema, as BFCL converts functions to OpenAI tools, and to
// Python types, as its checker compares values). Package grammar knows
// only JSON Schema; bench and bench/checker read BFCL data through here.
package bfcl
