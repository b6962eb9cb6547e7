package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve --wallet and wallet reconcile --wallet refuse a plain http:// URL to a host that is not
// a loopback address (exit 2, saying why, before anything is opened), unless
// --wallet-insecure-http; https:// and http:// on 127.0.0.0/8, ::1 or localhost are accepted.
// An accepted command goes on to open its store, which the test's context, cancelled already,
// stops at once: the exit is then 1, not 2.
func TestWalletURLMustBeHTTPS(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		command []string
		url     string
		flags   []string
		refused bool
	}{
		{[]string{"serve"}, "http://example.com", nil, true},
		{[]string{"serve"}, "http://192.0.2.7:9000/wallet", nil, true},
		{[]string{"serve"}, "ftp://127.0.0.1", nil, true},
		{[]string{"serve"}, "http://example.com", []string{"--wallet-insecure-http"}, false},
		{[]string{"serve"}, "https://wallet.example", nil, false},
		{[]string{"serve"}, "http://127.0.0.1:9000", nil, false},
		{[]string{"serve"}, "http://[::1]:9000", nil, false},
		{[]string{"serve"}, "http://localhost:9000", nil, false},
		{[]string{"wallet", "reconcile"}, "http://example.com", nil, true},
		{[]string{"wallet", "reconcile"}, "http://example.com", []string{"--wallet-insecure-http"}, false},
		{[]string{"wallet", "reconcile"}, "http://127.0.0.1:9000", nil, false},
	} {
		db := filepath.Join(t.TempDir(), "starcolor.db")
		args := append(append(append([]string{}, c.command...), "--db", db, "--wallet", c.url, "--wallet-secret-file", secret), c.flags...)
		var out, errOut bytes.Buffer
		code := run(cancelled, args, &out, &errOut)
		said := strings.Contains(errOut.String(), "--wallet: ") && strings.Contains(errOut.String(), "loopback")
		if strings.HasPrefix(c.url, "ftp:") {
			said = strings.Contains(errOut.String(), "not an http:// or https:// URL")
		}
		switch {
		case c.refused && (code != 2 || !said):
			t.Errorf("%v: exit %d, %q; want exit 2 saying the URL is refused", args, code, errOut.String())
		case c.refused:
			if _, err := os.Stat(db); err == nil {
				t.Errorf("%v: refused, but its database was made", args)
			}
		case !c.refused && (code != 1 || !strings.Contains(errOut.String(), "context canceled")):
			t.Errorf("%v: exit %d, %q; want the URL accepted, and the store's opening stopped", args, code, errOut.String())
		}
	}
	if r := cli("serve", "-h"); !strings.Contains(r.stderr, "-wallet-insecure-http") || !strings.Contains(r.stderr, "loopback") {
		t.Errorf("serve's usage does not tell the rule: %s", r.stderr)
	}
}
