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

// An address gets its burst, then one request per 1/PerSec; another address is not affected; the
// wait told is the time until the next request is allowed.
func TestRates(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	r := NewRates(3, 0.5, func() time.Time { return now })
	for i := range 3 {
		if ok, _ := r.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := r.Allow("a")
	if ok || wait != 2*time.Second {
		t.Fatalf("past the burst: %v, wait %v, want refused for 2s", ok, wait)
	}
	if ok, _ := r.Allow("b"); !ok {
		t.Fatal("another address refused")
	}
	now = now.Add(2 * time.Second)
	if ok, _ := r.Allow("a"); !ok {
		t.Fatal("refused after the wait")
	}
	if ok, _ := r.Allow("a"); ok {
		t.Fatal("two requests allowed for one token")
	}
	var off *Rates
	if ok, _ := off.Allow("a"); !ok {
		t.Fatal("no limit refused a request")
	}
}
