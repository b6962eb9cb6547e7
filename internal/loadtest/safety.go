package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The load tool only ever talks to the machine it runs on. This is checked three times:
// the base URL must name a loopback address (or localhost, which must resolve to loopback
// addresses only) before anything is sent; the transport dials only the addresses checked then;
// and every socket is checked again just before it connects. Proxies and redirects are off.

// ErrNotLoopback is returned (wrapped) for a base URL that does not name a loopback address.
var ErrNotLoopback = errors.New("the load tool only sends traffic to loopback addresses (127.0.0.0/8, ::1, localhost)")

// target is a checked base URL.
type target struct {
	base  string           // scheme://host[:port][/prefix], no trailing slash
	host  string           // the host as written in the URL (no port, no brackets)
	port  string           // the port, explicit or the scheme's default
	addrs []netip.AddrPort // the loopback addresses to dial, in order of preference
}

// CheckBaseURL tells whether baseURL is one the load tool may send traffic to: http or https,
// no user information, query or fragment, and a host that is a loopback IP address or
// "localhost" resolving to loopback addresses only. Any other host name is refused without
// being resolved. Nothing is sent to the target.
// Several URLs separated by commas are each checked.
func CheckBaseURL(ctx context.Context, baseURL string) error {
	for _, base := range strings.Split(baseURL, ",") {
		if _, err := resolveTarget(ctx, strings.TrimSpace(base)); err != nil {
			return err
		}
	}
	return nil
}

func resolveTarget(ctx context.Context, baseURL string) (*target, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %v", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: the scheme must be http or https", baseURL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("base URL %q: only scheme://host[:port][/path] is accepted", baseURL)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("base URL %q: no host", baseURL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	p64, err := strconv.ParseUint(port, 10, 16)
	p := uint16(p64)
	if err != nil || p == 0 {
		return nil, fmt.Errorf("base URL %q: bad port %q", baseURL, port)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return nil, fmt.Errorf("base URL %q: zoned addresses are not accepted", baseURL)
		}
		ips = []netip.Addr{ip}
	} else if strings.EqualFold(host, "localhost") {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ips, err = net.DefaultResolver.LookupNetIP(rctx, "ip", "localhost")
		cancel()
		if err != nil {
			return nil, fmt.Errorf("base URL %q: resolving localhost: %v", baseURL, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("base URL %q: localhost resolves to no address", baseURL)
		}
	} else {
		return nil, fmt.Errorf("base URL %q: host %q: %w", baseURL, host, ErrNotLoopback)
	}
	t := &target{host: host, port: port}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return nil, fmt.Errorf("base URL %q: %s is not a loopback address: %w", baseURL, ip, ErrNotLoopback)
		}
		t.addrs = append(t.addrs, netip.AddrPortFrom(ip.Unmap(), p))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	t.base = u.String()
	return t, nil
}

// checkLoopbackSocket is the dialer's last word: the socket about to connect must aim at a
// loopback address, whatever asked for it.
func checkLoopbackSocket(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s %s: %v", network, address, err)
	}
	if !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("dial %s %s: %w", network, address, ErrNotLoopback)
	}
	return nil
}

// newTransport makes the one transport all players share: keep-alives on, enough idle
// connections for every player, no proxy, no compression (it only costs CPU on loopback), and a
// dialer that connects only to the target's checked addresses. Requests are bounded by their
// client's timeout (or, while setting up, by the setup's deadline).
func newTransport(t *target, players int) *http.Transport {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if !strings.EqualFold(host, t.host) || port != t.port {
			return nil, fmt.Errorf("dial %s: not the load test's target: %w", addr, ErrNotLoopback)
		}
		return t.dial(ctx)
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		ForceAttemptHTTP2:     false,
		MaxIdleConns:          players + 16,
		MaxIdleConnsPerHost:   players + 16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		WriteBufferSize:       4 << 10,
		ReadBufferSize:        16 << 10,
	}
}

// noRedirect keeps the client from following a redirect anywhere: the API has none.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// dial connects to the target's first loopback address that answers; the socket is checked to
// be loopback before it connects.
func (t *target) dial(ctx context.Context) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: checkLoopbackSocket}
	var first error
	for _, ap := range t.addrs {
		c, err := d.DialContext(ctx, "tcp", ap.String())
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
