//go:build unix

package filelock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The system releases a lock when its process ends, even killed.
func TestLockReleasedWhenTheProcessDies(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock command to hold a lock from another process")
	}
	path := filepath.Join(t.TempDir(), "f.lock")
	// -o: the lock is flock's own, not passed on to sleep, which is killed with it (its group).
	cmd := exec.Command("flock", "-o", path, "sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(path); err == nil {
			l, err := TryLock(path, false)
			if errors.Is(err, ErrLocked) {
				break
			}
			if err == nil {
				l.Unlock()
			}
		}
		time.Sleep(time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	// The group's processes finish dying (and closing their files) each in its own time.
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := TryLock(path, false)
		if err == nil {
			l.Unlock()
			return
		}
		if !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("after the holder was killed: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
}
