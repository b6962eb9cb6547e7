package wallet

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// CheckURL tells whether the wallet's URL may be used (docs/spec/WALLET.md 1.1: "the wallet's URL is
// https://, except on a loopback address"): https://, or http:// on 127.0.0.0/8, ::1 or
// localhost; plain http:// to any other host only if insecureHTTP (a test bench behind its
// own protection, said out loud). The secret never crosses a network in the clear, but the
// players' movements would, and anyone on the path could read them and hold them back.
func CheckURL(raw string, insecureHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("the wallet's URL %q is not an absolute http:// or https:// URL", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if insecureHTTP || loopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("the wallet's URL %q is plain http:// to a host that is not a loopback address: use https:// (or --wallet-insecure-http, for a test bench only)", raw)
	}
	return fmt.Errorf("the wallet's URL %q is not an http:// or https:// URL", raw)
}

// loopback tells whether a URL's host is this machine: localhost, or an address of 127.0.0.0/8
// or ::1 (also written as an IPv4-mapped IPv6 address).
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}
