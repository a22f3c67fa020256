package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

// profile is the Seatbelt profile of a confined command: everything is
// denied but reading files, running programs, and writing below ROOT and
// TMP (parameters given with -D). The network is denied. It has not been
// run on a Mac by the project's tests.
const profile = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow file-read*)
(allow file-write*
  (subpath (param "ROOT"))
  (subpath (param "TMP"))
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/dtracehelper"))
(allow file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))
(allow sysctl-read)
(allow ipc-posix-sem)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.logger"))
`

// Check reports the confinement this system offers, or an error wrapping
// [ErrUnavailable].
func Check() (string, error) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return "", fmt.Errorf("%w: %s is missing", ErrUnavailable, sandboxExec)
	}
	return "Seatbelt (sandbox-exec)", nil
}

// Start starts cmd under sandbox-exec with the profile, writable below
// s.Root and s.Tmp; helper is not used on macOS. A profile that
// sandbox-exec refuses shows as the command's exit status and stderr.
func Start(cmd *exec.Cmd, helper string, s Spec) error {
	if _, err := Check(); err != nil {
		return err
	}
	if err := s.validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfine, err)
	}
	argv := append([]string{sandboxExec, "-p", profile, "-D", "ROOT=" + s.Root, "-D", "TMP=" + s.Tmp, cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = sandboxExec, argv
	return cmd.Start()
}

func serve([]string) error {
	return errors.New("not used on macOS: commands run under sandbox-exec")
}
