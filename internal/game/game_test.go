package game

import (
	"testing"
	"time"
)

func TestLockFor(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 0, 4: 0, 5: 2 * time.Second, 6: 4 * time.Second, 10: 64 * time.Second, 14: 15 * time.Minute, 100: 15 * time.Minute} {
		if got := lockFor(n); got != want {
			t.Errorf("lockFor(%d) = %v, want %v", n, got, want)
		}
	}
}
