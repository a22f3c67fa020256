// Package shellword holds what offgrid asks of shell words parsed by
// mvdan.cc/sh: the permission rules for bash and the --mcp command lines
// both accept only words that are fixed text.
package shellword
