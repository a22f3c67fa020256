//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the command in a new process group and makes
// cancellation kill the whole group, so children it started die with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
