//go:build cgo

package inference_test

import "testing"

// TestKVCacheBytes: the tiny model has 2 layers and 2 KV heads of 16
// dimensions: 2 × 2 × (16 + 16) × 2 bytes per token.
func TestKVCacheBytes(t *testing.T) {
	m := loadTiny(t)
	for _, n := range []int{0, 1, 8192} {
		if got, want := m.KVCacheBytes(n), uint64(n)*256; got != want {
			t.Errorf("KVCacheBytes(%d) = %d, want %d", n, got, want)
		}
	}
}
