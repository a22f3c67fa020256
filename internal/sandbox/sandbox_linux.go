package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minABI is the oldest Landlock ABI accepted: ABI 3 (Linux 6.2) is the
// first that stops truncate(2) on files outside the writable directories.
const minABI = 3

// Check reports the confinement this system offers ("Landlock ABI 7 and
// a seccomp filter"), or an error wrapping [ErrUnavailable] that says why
// there is none.
func Check() (string, error) {
	if _, ok := seccompArch[runtime.GOARCH]; !ok {
		return "", fmt.Errorf("%w: no seccomp filter for %s", ErrUnavailable, runtime.GOARCH)
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return "", fmt.Errorf("%w: the kernel has no Landlock (Linux 6.2 or later with Landlock enabled is needed)", ErrUnavailable)
	}
	if abi < minABI {
		return "", fmt.Errorf("%w: the kernel's Landlock ABI %d cannot stop truncating files outside the working directory (ABI %d, Linux 6.2, is needed)", ErrUnavailable, abi, minABI)
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return "", fmt.Errorf("%w: the kernel has no seccomp filters: %v", ErrUnavailable, err)
	}
	return fmt.Sprintf("Landlock ABI %d and a seccomp filter", abi), nil
}

// Start starts cmd confined to s: helper (an executable that calls
// [Serve]) is run in its place, confines itself, and executes cmd.Path
// with cmd.Args. Start returns once the command runs confined; then the
// caller waits for it with cmd.Wait. If the confinement cannot be
// applied the command does not run and the error wraps [ErrConfine] (or
// [ErrUnavailable]).
func Start(cmd *exec.Cmd, helper string, s Spec) error {
	if _, err := Check(); err != nil {
		return err
	}
	if err := s.validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfine, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrConfine, err)
	}
	defer r.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	fd := 2 + len(cmd.ExtraFiles)
	argv := append([]string{helper, Command, "--root", s.Root, "--tmp", s.Tmp, "--report", strconv.Itoa(fd), "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = helper, argv
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err
	}
	// The helper writes "ready" once confined, then its end closes on a
	// successful exec (close-on-exec); else it writes why it failed.
	msg, _ := io.ReadAll(io.LimitReader(r, 4<<10))
	why, ok := bytes.CutPrefix(msg, []byte(ready))
	switch {
	case ok && len(why) == 0:
		return nil
	case len(why) == 0:
		why = []byte(fmt.Sprintf("%s does not serve %s", helper, Command))
	}
	cmd.Wait()
	return fmt.Errorf("%w: %s", ErrConfine, why)
}

// ready is what the helper reports once confined, before the exec.
const ready = "ready\n"

// serve is the helper's body: parse the arguments, confine this process
// and execute the command. It returns only on failure.
func serve(args []string) error {
	var s Spec
	report := -1
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			return fmt.Errorf("flag %s needs a value", args[0])
		}
		switch args[0] {
		case "--root":
			s.Root = args[1]
		case "--tmp":
			s.Tmp = args[1]
		case "--report":
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 3 {
				return fmt.Errorf("--report %q: want a file descriptor above 2", args[1])
			}
			report = n
		default:
			return fmt.Errorf("unknown flag %q", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 {
		return errors.New("want -- PROGRAM ARGS…")
	}
	argv := args[1:]
	out := os.Stderr
	if report >= 0 {
		syscall.CloseOnExec(report)
		out = os.NewFile(uintptr(report), "report")
	}
	fail := func(err error) error {
		if out != os.Stderr {
			fmt.Fprint(out, err)
		}
		return err
	}
	if err := s.validate(); err != nil {
		return fail(err)
	}
	if !filepath.IsAbs(argv[0]) {
		return fail(fmt.Errorf("program %q is not an absolute path", argv[0]))
	}
	// Landlock and the seccomp filter are applied to every thread, but the
	// exec must come from a thread known to carry them: this one.
	runtime.LockOSThread()
	if err := confine(s, argv[0]); err != nil {
		return fail(err)
	}
	if out != os.Stderr {
		fmt.Fprint(out, ready)
	}
	err := syscall.Exec(argv[0], argv, os.Environ())
	return fail(fmt.Errorf("exec %s: %w", argv[0], err))
}

// systemDirs are read (and executed) by confined commands; missing ones
// are skipped.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store", "/proc", "/sys"}

// devices are read and written by confined commands.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// confine restricts this process (all its threads) and its future
// children: Landlock allows reading the system, the program's own
// directory and the two directories of s, writing only the latter, and
// no TCP bind or connect (ABI 4 and later); every capability is dropped;
// the seccomp filter refuses sockets other than AF_UNIX and leaving the
// process group.
func confine(s Spec, prog string) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < minABI {
		return fmt.Errorf("%w: Landlock ABI %d (want %d or later): %v", ErrUnavailable, abi, minABI, err)
	}
	rules := []landlock.Rule{
		landlock.RODirs(systemDirs...).IgnoreIfMissing(),
		landlock.RODirs(filepath.Dir(prog)),
		landlock.RWFiles(devices...).IgnoreIfMissing(),
		landlock.RWDirs(s.Root, s.Tmp),
	}
	// BestEffort lowers the rules to the kernel's ABI, which Check and the
	// test above require to be at least minABI: never down to nothing.
	if err := landlock.V11.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	if err := installSeccomp(); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// dropCapabilities empties this thread's capability sets and bounding
// set, so that a command started by root does not get them back at exec:
// root's capabilities (CAP_PERFMON, CAP_SYS_PTRACE…) would let it read
// other processes' memory and environment, which Landlock alone allows
// to capable processes.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Permitted|data[1].Permitted != 0 {
		for c := 0; c < 64; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); errors.Is(err, unix.EINVAL) {
				break // past the last capability
			} else if err != nil {
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}
