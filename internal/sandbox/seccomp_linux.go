package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompArch is the audit architecture of the system calls the filter
// expects, per GOARCH; calls of any other ABI (32-bit ones on amd64) kill
// the process, since their numbers differ.
var seccompArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}

// x32Bit marks the x32 ABI's system call numbers on amd64.
const x32Bit = 0x40000000

// refused are the system calls the filter fails with EPERM: leaving the
// process group (which the tool kills on timeout) and io_uring (which can
// open sockets without socket(2)).
var refused = []uint32{unix.SYS_SETSID, unix.SYS_SETPGID, unix.SYS_IO_URING_SETUP}

// socketFilter returns the seccomp program: socket(2) with a domain other
// than AF_UNIX and the calls in refused fail with EPERM; everything else
// is allowed.
func socketFilter() ([]unix.SockFilter, error) {
	arch, ok := seccompArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
	)
	// Offsets in struct seccomp_data: nr, arch, then args[6] from 16 (the
	// low 32 bits of args[0] on these little-endian machines).
	const offNr, offArch, offArg0 = 0, 4, 16
	var p []unix.SockFilter
	// Jumps to "allow" or "deny" are resolved at the end.
	type fix struct {
		at     int
		target string
		onTrue bool
	}
	var fixes []fix
	stmt := func(code uint16, k uint32) { p = append(p, unix.SockFilter{Code: code, K: k}) }
	jumpIf := func(code uint16, k uint32, target string) { // true: target; false: next
		fixes = append(fixes, fix{len(p), target, true})
		p = append(p, unix.SockFilter{Code: code, K: k})
	}
	jumpUnless := func(code uint16, k uint32, target string) { // false: target; true: next
		fixes = append(fixes, fix{len(p), target, false})
		p = append(p, unix.SockFilter{Code: code, K: k})
	}

	stmt(ldAbs, offArch)
	p = append(p, unix.SockFilter{Code: jeq, K: arch, Jt: 1})
	stmt(ret, unix.SECCOMP_RET_KILL_PROCESS)
	stmt(ldAbs, offNr)
	if runtime.GOARCH == "amd64" {
		jumpIf(jset, x32Bit, "deny")
	}
	for _, nr := range refused {
		jumpIf(jeq, nr, "deny")
	}
	jumpUnless(jeq, unix.SYS_SOCKET, "allow")
	stmt(ldAbs, offArg0)
	jumpIf(jeq, unix.AF_UNIX, "allow")
	labels := map[string]int{"deny": len(p)}
	stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	labels["allow"] = len(p)
	stmt(ret, unix.SECCOMP_RET_ALLOW)
	for _, f := range fixes {
		off := labels[f.target] - f.at - 1
		if off > 255 {
			return nil, fmt.Errorf("jump too far")
		}
		if f.onTrue {
			p[f.at].Jt = uint8(off)
		} else {
			p[f.at].Jf = uint8(off)
		}
	}
	return p, nil
}

// installSeccomp sets no_new_privs and loads the filter on every thread of
// the process (SECCOMP_FILTER_FLAG_TSYNC).
func installSeccomp() error {
	prog, err := socketFilter()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return errno
	}
	if r != 0 {
		return fmt.Errorf("thread %d could not take the filter", r)
	}
	return nil
}
