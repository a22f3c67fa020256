//go:build !unix

package tools

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available;
// cancellation kills the shell process only.
func ownProcessGroup(cmd *exec.Cmd) {}
