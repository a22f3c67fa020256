//go:build !unix

package mcp

import "os/exec"

func childAttrs(*exec.Cmd) {}

// killGroup kills the server; what it started is left.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

func termGroup(*exec.Cmd) {}
