//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Check reports that this system offers no confinement.
func Check() (string, error) {
	return "", fmt.Errorf("%w on %s", ErrUnavailable, runtime.GOOS)
}

// Start fails: this system offers no confinement.
func Start(cmd *exec.Cmd, helper string, s Spec) error {
	_, err := Check()
	return err
}

func serve([]string) error { _, err := Check(); return err }
