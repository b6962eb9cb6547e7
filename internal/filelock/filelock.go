// Package filelock holds advisory locks on files that the system releases when their process
// ends, even killed. With one, a process says that a file is still its own (a server's database,
// an emission's staging file), and leaves no stale claim behind when it dies.
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is a lock held by another open file, in this process or another.
var ErrLocked = errors.New("locked by another process")

// ErrUnsupported is returned where the system has no advisory locks.
var ErrUnsupported = errors.New("advisory file locks are not supported on this system")

// Lock is an exclusive lock on a file, held until Unlock or the end of the process.
type Lock struct {
	f *os.File
}

// File is the locked file, open for reading and writing.
func (l *Lock) File() *os.File { return l.f }

// Unlock releases the lock and closes the file.
func (l *Lock) Unlock() error { return l.f.Close() }

// TryLock takes the lock of the file at path without waiting, creating the file if create is
// set; a missing file is otherwise an error for which errors.Is(err, os.ErrNotExist). A lock
// held elsewhere is ErrLocked. The lock is on the file that path names once it is held: if the
// file was removed or replaced meanwhile (by a holder that cleaned it up), it is tried again.
func TryLock(path string, create bool) (*Lock, error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	for {
		f, err := os.OpenFile(path, flags, 0o644)
		if err != nil {
			return nil, err
		}
		if err := tryLock(f); err != nil {
			f.Close()
			return nil, err
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		named, err := os.Stat(path)
		if err == nil && os.SameFile(held, named) {
			return &Lock{f: f}, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if !create {
			return nil, os.ErrNotExist
		}
	}
}
