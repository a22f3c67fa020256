//go:build !unix

package agent

// limitSelf is a no-op where rlimits do not exist; the parent's wall-clock
// timeout still bounds the checker.
func limitSelf(memory, cpuSeconds uint64) {}
