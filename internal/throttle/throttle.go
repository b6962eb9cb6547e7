// Package throttle slows down whoever tries passwords: a rate per client address for the
// requests that cost a password hash (logins and sign-ups), and the lock that failed logins earn
// a name from an address. Both are rules over a few numbers that the store keeps (its Throttle and
// ReserveLogin), so that they hold across requests, restarts and every server of the game.
package throttle

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// FreeAttempts is how many failed logins in a row a name may have from one address before the
// next attempts wait.
const FreeAttempts = 4

// MaxLock is the longest wait after failed logins.
const MaxLock = 15 * time.Minute

// LockFor is how long a name is refused from an address after n failed logins in a row there:
// nothing for the first FreeAttempts, then 2 s doubling up to MaxLock.
func LockFor(n int) time.Duration {
	if n <= FreeAttempts {
		return 0
	}
	return min(time.Duration(1<<min(n-FreeAttempts, 20))*time.Second, MaxLock)
}

// Forget is how long failures are remembered after the last one: a name and address quiet this
// long start again from nothing.
const Forget = time.Hour

// Address is the key of a client's address: the host of a request's RemoteAddr (the client's
// own, or the one a trusted load balancer gave: app's behindProxies), and for IPv6 its /64,
// which one client usually holds whole.
func Address(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// Rate limits the requests of each address: Burst at once, then one every Every. The zero Rate
// is no limit. What it keeps of each address is one number, kept by the store so that every
// server of the game counts the same requests.
type Rate struct {
	Burst int
	Every time.Duration
}

// PerMinute is n requests at once, then n a minute; 0 is no limit.
func PerMinute(n int) Rate {
	if n <= 0 {
		return Rate{}
	}
	return Rate{Burst: n, Every: time.Minute / time.Duration(n)}
}

// Limited tells whether the rate limits anything.
func (r Rate) Limited() bool { return r.Burst > 0 && r.Every > 0 }

// Take decides one request of an address by the generic cell rate algorithm. tat is the
// theoretical arrival time kept for the address, in unix nanoseconds (0 for an address never
// seen).
//
//  1. The request goes through if tat is no further ahead of now than the burst allows.
//  2. It then moves tat on by Every, and Take returns the tat to keep.
//  3. Otherwise Take returns how long the request must wait; tat is to be kept as it was.
func (r Rate) Take(tat int64, now time.Time) (next int64, wait time.Duration) {
	n := now.UnixNano()
	tat = max(tat, n)
	if ahead, limit := time.Duration(tat-n), time.Duration(r.Burst-1)*r.Every; ahead > limit {
		return tat, ahead - limit
	}
	return tat + int64(r.Every), 0
}

// Local is a Rate counted in this process's memory, per key. It is for a limit that protects this
// server's own work, such as the moves of demo games, which move no money. There each server
// counting its own requests is enough, and a write of the store per request would cost more than
// the request. It keeps at most maxLocal keys.
type Local struct {
	rate Rate
	now  func() time.Time

	mu   sync.Mutex
	tats map[string]int64
}

// maxLocal bounds the keys a Local keeps: 100,000 addresses, a few megabytes.
const maxLocal = 100_000

// NewLocal counts a rate in memory on a clock (nil: time.Now).
func NewLocal(r Rate, now func() time.Time) *Local {
	if now == nil {
		now = time.Now
	}
	return &Local{rate: r, now: now, tats: map[string]int64{}}
}

// Take takes one request of a key: 0 if it goes through, else how long it must wait.
func (l *Local) Take(key string) time.Duration {
	if !l.rate.Limited() {
		return 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, known := l.tats[key]; !known && len(l.tats) >= maxLocal {
		// Keys whose requests are all back count as new ones: forgetting them changes nothing.
		for k, tat := range l.tats {
			if tat <= now.UnixNano() {
				delete(l.tats, k)
			}
		}
		if len(l.tats) >= maxLocal {
			clear(l.tats) // more busy addresses than kept: start again rather than grow
		}
	}
	next, wait := l.rate.Take(l.tats[key], now)
	if wait == 0 {
		l.tats[key] = next
	}
	return wait
}
