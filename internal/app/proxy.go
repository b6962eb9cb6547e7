package app

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ParseProxies reads --trusted-proxy: addresses or CIDR prefixes, separated by commas.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a prefix (10.0.0.0/8, ::1)", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// behindProxies makes a request that came through a trusted proxy (a load balancer in front of
// several servers) carry the player's address as its RemoteAddr, read from X-Forwarded-For, so
// that the limits per address (logins, sign-ups) and the logs see the player, not the proxy.
//
// The header is read from its end: each trusted proxy appends the address it was reached from,
// and the first address from the right that is not a trusted proxy's is the client's. Whatever a
// client wrote into the header itself is to the left of it, and never taken. A request that did
// not come from a trusted proxy keeps its own address, whatever its header says.
func behindProxies(trusted []netip.Prefix, next http.Handler) http.Handler {
	if len(trusted) == 0 {
		return next
	}
	isTrusted := func(a netip.Addr) bool {
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		peer, perr := netip.ParseAddr(host)
		if err != nil || perr != nil || !isTrusted(peer) {
			next.ServeHTTP(w, r)
			return
		}
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // garbage: the proxies' own entries are all to its right
			}
			if !isTrusted(a) {
				r2 := r.Clone(r.Context())
				r2.RemoteAddr = netip.AddrPortFrom(a.Unmap(), 0).String()
				next.ServeHTTP(w, r2)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
