package models

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// CheckGGUF reports whether the file at path starts like a GGUF model: the
// magic, a supported version and plausible tensor and metadata counts.
// The error wraps ErrNotGGUF.
func CheckGGUF(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [24]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return fmt.Errorf("%w: %s: header: %v", ErrNotGGUF, path, err)
	}
	return checkGGUFHeader(hdr[:])
}

// checkGGUFHeader checks the fixed 24-byte GGUF header.
func checkGGUFHeader(hdr []byte) error {
	if string(hdr[:4]) != "GGUF" {
		return fmt.Errorf("%w: starts with %q", ErrNotGGUF, hdr[:4])
	}
	if v := binary.LittleEndian.Uint32(hdr[4:]); v < 2 || v > 3 {
		return fmt.Errorf("%w: unsupported GGUF version %d", ErrNotGGUF, v)
	}
	tensors, kvs := binary.LittleEndian.Uint64(hdr[8:]), binary.LittleEndian.Uint64(hdr[16:])
	if tensors > 1<<24 || kvs > 1<<24 {
		return fmt.Errorf("%w: implausible counts (%d tensors, %d metadata keys)", ErrNotGGUF, tensors, kvs)
	}
	return nil
}
