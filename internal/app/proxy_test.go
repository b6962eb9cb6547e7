package app

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestBehindProxies(t *testing.T) {
	trusted, err := ParseProxies("10.0.0.0/8, 127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	h := behindProxies(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr }))
	for _, c := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"the player through one proxy", "10.0.0.5:4000", []string{"203.0.113.7"}, "203.0.113.7:0"},
		{"through two proxies", "10.0.0.5:4000", []string{"203.0.113.7, 10.1.2.3"}, "203.0.113.7:0"},
		{"a header a client wrote itself is never taken", "10.0.0.5:4000", []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7:0"},
		{"several headers read as one list", "10.0.0.5:4000", []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7:0"},
		{"an untrusted peer keeps its address", "192.0.2.9:5000", []string{"203.0.113.7"}, "192.0.2.9:5000"},
		{"no header: the proxy's address", "10.0.0.5:4000", nil, "10.0.0.5:4000"},
		{"only proxies: the proxy's address", "127.0.0.1:4000", []string{"10.9.9.9"}, "127.0.0.1:4000"},
		{"garbage stops the walk", "10.0.0.5:4000", []string{"203.0.113.7, nonsense, 10.0.0.6"}, "10.0.0.5:4000"},
		{"IPv6 players", "10.0.0.5:4000", []string{"2001:db8::1"}, "[2001:db8::1]:0"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if seen != c.want {
			t.Errorf("%s: RemoteAddr %q, want %q", c.name, seen, c.want)
		}
	}
	if _, err := ParseProxies("10.0.0.0/8,nope"); err == nil {
		t.Error("a bad --trusted-proxy was taken")
	}
}

// Without trusted proxies the header is ignored: the server faces its clients.
func TestNoProxyTrusted(t *testing.T) {
	var seen string
	h := behindProxies(nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr }))
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.5:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen != "10.0.0.5:4000" {
		t.Errorf("RemoteAddr %q", seen)
	}
}

// Whatever a client puts in X-Forwarded-For, the address taken is the peer's own or one of the
// header's that is not a trusted proxy's, and only when the peer is a trusted proxy.
func FuzzForwardedFor(f *testing.F) {
	f.Add("10.0.0.5:4000", "203.0.113.7, 10.1.2.3")
	f.Add("192.0.2.9:5000", "203.0.113.7")
	f.Add("10.0.0.5:4000", "2001:db8::1,,, ::ffff:10.0.0.1")
	f.Add("[::1]:80", "nonsense")
	trusted, _ := ParseProxies("10.0.0.0/8, ::1")
	f.Fuzz(func(t *testing.T, peer, xff string) {
		var seen string
		h := behindProxies(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr }))
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		h.ServeHTTP(httptest.NewRecorder(), r)
		if seen == peer {
			return
		}
		host, _, err := net.SplitHostPort(peer)
		p, perr := netip.ParseAddr(host)
		if err != nil || perr != nil || !isIn(trusted, p) {
			t.Fatalf("peer %q, not a trusted proxy, became %q", peer, seen)
		}
		ap, err := netip.ParseAddrPort(seen)
		if err != nil || isIn(trusted, ap.Addr()) {
			t.Fatalf("peer %q with X-Forwarded-For %q became %q", peer, xff, seen)
		}
		for hop := range strings.SplitSeq(xff, ",") {
			if a, err := netip.ParseAddr(strings.TrimSpace(hop)); err == nil && a.Unmap() == ap.Addr() {
				return
			}
		}
		t.Fatalf("peer %q with X-Forwarded-For %q became %q, which the header does not hold", peer, xff, seen)
	})
}

func isIn(prefixes []netip.Prefix, a netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}
