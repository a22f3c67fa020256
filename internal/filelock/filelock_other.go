//go:build !unix

package filelock

import "os"

// try takes no lock here: flock is unix's.
func try(f *os.File) (held bool, err error) { return false, nil }
