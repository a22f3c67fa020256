// Package filelock takes advisory locks between offgrid processes: the
// file tools' edit lock on a directory, and the lock on the folder a
// catalog model's wheels are fetched into.
package filelock

import (
	"context"
	"errors"
	"os"
	"time"
)

// ErrBusy is returned by Lock when another process held the lock for all
// of the wait.
var ErrBusy = errors.New("filelock: held by another process")

// Lock takes an exclusive advisory lock (flock on unix) on f, polling
// while another process holds it, until it is free, ctx ends or wait
// passes (ErrBusy; wait 0 waits as long as ctx). busy, if not nil, is
// called once when the lock is found held. A file system that cannot
// lock (some network ones), and a system without flock, take no lock and
// report none. Closing f releases the lock.
func Lock(ctx context.Context, f *os.File, wait time.Duration, busy func()) error {
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	for pause := time.Millisecond; ; pause = min(2*pause, 10*time.Millisecond) {
		held, err := try(f)
		if err != nil || !held {
			return err
		}
		if busy != nil {
			busy()
			busy = nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return ErrBusy
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
