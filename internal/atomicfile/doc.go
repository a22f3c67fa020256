// Package atomicfile replaces files so that a reader, or a crash, sees the
// old content or the new, never a mix.
package atomicfile
