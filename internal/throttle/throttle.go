// Package throttle slows down whoever tries passwords: a rate per client address for the
// requests that cost a password hash (logins and sign-ups), and the lock that failed logins earn
// a name from an address. A lock is kept by the store (sqlite.Tx.ReserveLogin), so that it holds
// across requests and restarts; the rates are kept in memory.
package throttle

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
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

// Address is the key of a client's address: the host of a request's RemoteAddr (the server
// faces clients directly: no proxy header is trusted), and for IPv6 its /64, which one client
// usually holds whole.
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

// Rates limits the requests of each address: a burst, then a steady rate. The zero Burst turns
// it off.
type Rates struct {
	Burst  int
	PerSec float64
	now    func() time.Time

	mu    sync.Mutex
	addrs map[string]*entry
}

type entry struct {
	lim  *rate.Limiter
	last time.Time
}

// NewRates limits each address to a burst of burst requests, then perSec a second; now is the
// clock (nil: time.Now).
func NewRates(burst int, perSec float64, now func() time.Time) *Rates {
	if now == nil {
		now = time.Now
	}
	return &Rates{Burst: burst, PerSec: perSec, now: now, addrs: map[string]*entry{}}
}

// maxAddrs is how many addresses are kept before those quiet long enough to have a full bucket
// again are forgotten.
const maxAddrs = 100_000

// Allow takes one request of an address; when it must wait, it says how long.
func (r *Rates) Allow(addr string) (ok bool, retryAfter time.Duration) {
	if r == nil || r.Burst <= 0 {
		return true, 0
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.addrs[addr]
	if e == nil {
		if len(r.addrs) >= maxAddrs {
			r.prune(now)
		}
		e = &entry{lim: rate.NewLimiter(rate.Limit(r.PerSec), r.Burst)}
		r.addrs[addr] = e
	}
	e.last = now
	res := e.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// prune forgets the addresses whose bucket has filled up again; mu is held.
func (r *Rates) prune(now time.Time) {
	full := time.Duration(float64(r.Burst) / r.PerSec * float64(time.Second))
	for a, e := range r.addrs {
		if now.Sub(e.last) > full {
			delete(r.addrs, a)
		}
	}
}
