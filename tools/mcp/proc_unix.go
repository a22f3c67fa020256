//go:build unix && !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// childAttrs puts a server in its own process group, so Ctrl-C at the
// terminal, meant for offgrid, does not reach it, and Close can kill what
// it started.
func childAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of a server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// termGroup asks a server's process group to end.
func termGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
