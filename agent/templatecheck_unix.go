//go:build unix

package agent

import "syscall"

// limitSelf caps the process's data segment (the memory it writes; not
// RLIMIT_AS, since Go reserves over a gigabyte of address space it never
// uses) and CPU time; past them the kernel fails allocations or kills the
// process.
func limitSelf(memory, cpuSeconds uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: memory, Max: memory})
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpuSeconds, Max: cpuSeconds + 1})
}
