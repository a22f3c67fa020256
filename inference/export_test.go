package inference

// Freed reports whether m's weights have been freed.
func Freed(m *Model) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.c == nil
}
