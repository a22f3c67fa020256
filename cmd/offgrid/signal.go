package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// dieOf ends the process as sig would have, had it not been caught: the
// signal's default action where it can be raised again, else exit status
// 128 + its number.
func dieOf(sig syscall.Signal) {
	signal.Reset(sig)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
		time.Sleep(time.Second) // delivery is asynchronous
	}
	os.Exit(128 + int(sig))
}
