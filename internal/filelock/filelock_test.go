package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A lock is exclusive, even between two opens in one process, and free again once released.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.lock")
	if _, err := TryLock(path, false); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file without create: %v", err)
	}
	l, err := TryLock(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path, true); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TryLock(path, false)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// A lock taken on a file that its holder then removes is not a lock on the path: the next taker
// gets the new file.
func TestTryLockFollowsThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.lock")
	l, err := TryLock(path, true)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	l2, err := TryLock(path, true)
	if err != nil {
		t.Fatalf("a new file at the path: %v", err)
	}
	l.Unlock()
	l2.Unlock()
}
