package app

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"starcolor/internal/filelock"
)

// ErrServed is a database file served by another process: one server per database file.
var ErrServed = errors.New("one server per database file")

// LockServed makes sure that one server at a time sells from a database file: the writer keeps
// each open block's sales cursor in memory, so a second server would have its batches refused
// (the guarded cursor update) instead of selling. It holds an advisory lock on a file beside the
// database for the life of the process; the system releases it when the process ends, even
// killed, so a crashed server never blocks the next one. The file holds the server's pid, for the
// message. Other commands (ledger check, exports, emission create) do not take it; the fill
// tool, which sells, does. Where the system has no advisory locks, nothing is checked.
func LockServed(db string) (release func(), err error) {
	path := db + "-serve.lock"
	l, err := filelock.TryLock(path, true)
	switch {
	case errors.Is(err, filelock.ErrUnsupported):
		return func() {}, nil
	case errors.Is(err, filelock.ErrLocked):
		pid, _ := os.ReadFile(path)
		return nil, fmt.Errorf("%s is already served by process %s: %w", db, strings.TrimSpace(string(pid)), ErrServed)
	case err != nil:
		return nil, err
	}
	if err := l.File().Truncate(0); err == nil {
		l.File().WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { l.Unlock() }, nil
}
