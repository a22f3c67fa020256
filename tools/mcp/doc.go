// Package mcp gives offgrid's agent the tools of Model Context Protocol
// servers: it starts each server as a child process, lists its tools and
// registers them in a [tools.Registry] as SERVER_TOOL, so they are
// offered to the model, decoded under a grammar built from their input
// schemas, permission-checked and run like the built-in tools.
//
// Servers start concurrently, each within its connect timeout (spawning,
// the opening handshake and the listing of its tools together); one that
// misses it, exits or does not speak MCP is reported with its command,
// what happened and the last lines of its stderr, and left out. A server
// that ignores server/discover is spoken to with initialize.
//
// A call goes to the server with a timeout; its content becomes the
// result's data, and a server error, a timeout, a result over
// [MaxMessage] or a server that died becomes a failed result, never an
// error of the session. A server that died is started again on a later
// call, at most once per [Options.RestartInterval]. Notifications
// offgrid does not use and the server's stderr are read as they come and
// kept in bounded memory. When a server says its tool list changed, the
// registry is updated.
package mcp
