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

// A Local rate lets a key's burst through, then one request every Every, each key on its own;
// full, it forgets the keys whose requests are all back, and keeps counting the busy ones.
func TestLocal(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := NewLocal(Rate{Burst: 3, Every: 10 * time.Second}, func() time.Time { return now })
	for i := range 3 {
		if wait := l.Take("a"); wait != 0 {
			t.Fatalf("request %d of the burst waits %v", i+1, wait)
		}
	}
	if wait := l.Take("a"); wait != 10*time.Second {
		t.Fatalf("past the burst: wait %v, want 10s", wait)
	}
	if wait := l.Take("b"); wait != 0 {
		t.Fatalf("another key waits %v", wait)
	}
	now = now.Add(10 * time.Second)
	if l.Take("a") != 0 || l.Take("a") == 0 {
		t.Fatal("one request every 10 s once the burst is spent")
	}
	for i := range maxLocal - 2 {
		l.Take(string(rune(i + 0x10000)))
	}
	now = now.Add(time.Hour) // every key's requests are back but a's, taken again now
	if wait := l.Take("a"); wait != 0 {
		t.Fatalf("a key after an hour waits %v", wait)
	}
	l.Take("a")
	l.Take("a")
	l.Take("new") // the map is full: the idle keys are forgotten, not a
	if len(l.tats) > 3 {
		t.Fatalf("%d keys kept after the idle ones were forgotten", len(l.tats))
	}
	if wait := l.Take("a"); wait == 0 {
		t.Fatal("a busy key forgot its count when the map was full")
	}
	if wait := NewLocal(Rate{}, nil).Take("x"); wait != 0 {
		t.Fatalf("the zero Rate waits %v", wait)
	}
}
