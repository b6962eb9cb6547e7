package throttle

import (
	"testing"
	"time"
)

func TestLockFor(t *testing.T) {
	for n, want := range map[int]time.Duration{0: 0, 1: 0, 4: 0, 5: 2 * time.Second, 6: 4 * time.Second, 10: 64 * time.Second, 14: MaxLock, 1000: MaxLock} {
		if got := LockFor(n); got != want {
			t.Errorf("LockFor(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestAddress(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5123":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64", // the same /64
		"[::ffff:192.0.2.7]:80":      "192.0.2.7",
		"not an address":             "not an address",
		"[fe80::1%eth0]:1":           "fe80::/64",
	} {
		if got := Address(in); got != want {
			t.Errorf("Address(%q) = %q, want %q", in, got, want)
		}
	}
}

// An address gets its burst, then one request per Every; the wait told is the time until the next
// request is allowed, and a refused request leaves the state as it was.
func TestRate(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	r := Rate{Burst: 3, Every: 2 * time.Second}
	var tat int64
	take := func() (bool, time.Duration) {
		next, wait := r.Take(tat, now)
		if wait == 0 {
			tat = next
		} else if next != tat && next != now.UnixNano() {
			t.Fatalf("a refused request moved the state from %d to %d", tat, next)
		}
		return wait == 0, wait
	}
	for i := range 3 {
		if ok, _ := take(); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	if ok, wait := take(); ok || wait != 2*time.Second {
		t.Fatalf("past the burst: %v, wait %v, want refused for 2s", ok, wait)
	}
	now = now.Add(2 * time.Second)
	if ok, _ := take(); !ok {
		t.Fatal("refused after the wait")
	}
	if ok, _ := take(); ok {
		t.Fatal("two requests allowed for one token")
	}
	// Quiet long enough, an address has its whole burst again.
	now = now.Add(time.Hour)
	for i := range 3 {
		if ok, _ := take(); !ok {
			t.Fatalf("request %d of a new burst refused", i)
		}
	}
	if got := PerMinute(60); got != (Rate{Burst: 60, Every: time.Second}) || PerMinute(0).Limited() {
		t.Fatalf("PerMinute: %+v", got)
	}
}
