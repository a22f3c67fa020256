//go:build unix

package filelock

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// Two opens of one directory are two holders, as two processes are.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	open := func() *os.File {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := open()
	if err := Lock(t.Context(), first, time.Second, nil); err != nil {
		t.Fatal(err)
	}
	second := open()
	defer second.Close()
	calls := 0
	if err := Lock(t.Context(), second, 30*time.Millisecond, func() { calls++ }); !errors.Is(err, ErrBusy) || calls != 1 {
		t.Fatalf("second lock: %v, busy called %d times; want ErrBusy, once", err, calls)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if err := Lock(ctx, second, 0, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock waiting on ctx: %v", err)
	}
	// Released by close, the lock is taken by the waiter.
	done := make(chan error, 1)
	go func() { done <- Lock(t.Context(), second, 0, nil) }()
	time.Sleep(20 * time.Millisecond)
	first.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not taken once released")
	}
}
