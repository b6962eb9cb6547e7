//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockServed makes sure that one server at a time sells from a database file: the writer keeps
// each open block's sales cursor in memory, so a second server would have its batches refused
// (the guarded cursor update) instead of selling. It holds an advisory lock on a file beside the
// database for the life of the process; the system releases it when the process ends, even
// killed, so a crashed server never blocks the next one. The file holds the server's pid, for the
// message. Other commands (ledger check, exports, emission create) do not take it.
func lockServed(db string) (release func(), err error) {
	path := db + "-serve.lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := make([]byte, 32)
			n, _ := f.ReadAt(pid, 0)
			return nil, fmt.Errorf("%s is already served by process %s: one server per database file", db, strings.TrimSpace(string(pid[:n])))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
