//go:build cgo

package inference

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// KVCacheBytes estimates the memory of the KV cache of a context of nCtx
// tokens from the model's metadata: for every layer, a key and a value
// vector per KV head and token, in f16 (the engine's default). It returns
// 0 when the metadata lacks the sizes.
func (m *Model) KVCacheBytes(nCtx int) uint64 {
	arch := m.Architecture()
	num := func(key string) uint64 {
		v, ok := m.Meta(arch + "." + key)
		if !ok {
			return 0
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0
		}
		return n
	}
	layers, heads, kvHeads := num("block_count"), num("attention.head_count"), num("attention.head_count_kv")
	if kvHeads == 0 {
		kvHeads = heads
	}
	keyLen, valLen := num("attention.key_length"), num("attention.value_length")
	if heads > 0 && (keyLen == 0 || valLen == 0) {
		embd := num("embedding_length")
		keyLen, valLen = embd/heads, embd/heads
	}
	const f16 = 2
	return uint64(max(nCtx, 0)) * layers * kvHeads * (keyLen + valLen) * f16
}

// AvailableMemory is the memory this process can still allocate without
// swapping, in bytes: Linux's MemAvailable, lowered to the room left under
// a cgroup (v2) memory limit. ok is false where it cannot be read.
func AvailableMemory() (avail uint64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return 0, false
			}
			avail, ok = kb<<10, true
		}
	}
	if !ok {
		return 0, false
	}
	limit, err1 := readUint("/sys/fs/cgroup/memory.max")
	used, err2 := readUint("/sys/fs/cgroup/memory.current")
	if err1 == nil && err2 == nil && limit > used {
		avail = min(avail, limit-used)
	}
	return avail, true
}

// readUint reads a file holding one number ("max" is an error).
func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}
