//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes flock's exclusive lock. It belongs to the open file, so a second open of the same
// file, even in the same process, is refused. It never interferes with SQLite's own locks:
// those are fcntl's, which are apart from flock's on a local file system.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return nil
}
