package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files, and returns their
// paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "starcolor test"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// With --tls-cert and --tls-key the server speaks HTTPS only: HTTP/2 to a client that offers it,
// a year of Strict-Transport-Security, Secure session cookies; plain HTTP on its port is refused.
// Wrong or half-given TLS flags stop it before it opens the database.
func TestServeTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("creates an emission of 3,000,000 units at start; skipped with -short")
	}
	certFile, keyFile, pool := selfSigned(t)
	db := filepath.Join(t.TempDir(), "tls.db")
	srv := startServer(t, db, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(srv.url, "https://127.0.0.1:") {
		t.Fatalf("served at %q, want https", srv.url)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	res, err := client.Get(srv.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.ProtoMajor != 2 || res.TLS == nil || res.TLS.Version < tls.VersionTLS12 {
		t.Fatalf("GET /healthz over TLS: %d, %s, %+v", res.StatusCode, res.Proto, res.TLS)
	}
	if hsts := res.Header.Get("Strict-Transport-Security"); hsts != "max-age=31536000" {
		t.Errorf("Strict-Transport-Security %q", hsts)
	}
	body := strings.NewReader(`{"last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01","username":"tina","password":"pw-tina-long"}`)
	if res, err = client.Post(srv.url+"/api/v1/players", "application/json", body); err != nil || res.StatusCode != 201 {
		t.Fatalf("sign up over TLS: %v %v", res, err)
	}
	res.Body.Close()
	body = strings.NewReader(`{"username":"tina","password":"pw-tina-long"}`)
	if res, err = client.Post(srv.url+"/api/v1/session", "application/json", body); err != nil || res.StatusCode != 200 {
		t.Fatalf("log in over TLS: %v %v", res, err)
	}
	res.Body.Close()
	if c := res.Header.Get("Set-Cookie"); !strings.Contains(c, "; Secure") || !strings.Contains(c, "; HttpOnly") {
		t.Errorf("session cookie over TLS: %q", c)
	}

	plain, err := http.Get("http://" + strings.TrimPrefix(srv.url, "https://") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(plain.Body)
	plain.Body.Close()
	if plain.StatusCode != http.StatusBadRequest {
		t.Errorf("plain HTTP to the TLS port: %d %s", plain.StatusCode, msg)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tls-cert", certFile}, 2, "go together"},
		{[]string{"--tls-key", keyFile}, 2, "go together"},
		{[]string{"--tls-cert", filepath.Join(t.TempDir(), "none.pem"), "--tls-key", keyFile}, 1, "TLS certificate"},
		{[]string{"--tls-cert", keyFile, "--tls-key", certFile}, 1, "TLS certificate"},
	} {
		other := filepath.Join(t.TempDir(), "never.db")
		r := cli(append([]string{"serve", "--db", other, "--addr", "127.0.0.1:0"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %v: exit %d, %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Errorf("serve %v created the database", c.args)
		}
	}
}
