// Package mcp gives offgrid's agent the tools of Model Context Protocol
// servers: it starts each server as a child process, lists its tools and
// registers them in a [tools.Registry] as SERVER_TOOL, so they are
// offered to the model, decoded under a grammar built from their input
// schemas, permission-checked and run like the built-in tools.
//
// A call goes to the server with a timeout; its content becomes the
// result's data, and a server error, a timeout or a server that died
// becomes a failed result, never an error of the session. When a server
// says its tool list changed, the registry is updated.
package mcp
