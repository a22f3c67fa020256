// Package tools is what the agent acts through: a registry of tools with
// JSON Schema arguments, the ToolResult wire format, the built-in tools
// (files, search, tasks, shell) and the sandbox that confines their paths to
// one root directory.
//
// A Registry validates and runs calls; it does not ask for permission. The
// caller decides with a policy (see package agent/permission) before it
// calls [Registry.Execute].
package tools
