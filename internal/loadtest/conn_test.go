package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"testing"
)

// pipeConn is an httpConn talking to a fake server that reads one request and writes answer.
func pipeConn(t testing.TB, answer string) (*httpConn, <-chan *http.Request) {
	client, server := net.Pipe()
	reqs := make(chan *http.Request, 1)
	go func() {
		defer server.Close()
		req, err := http.ReadRequest(bufio.NewReader(server))
		if err != nil {
			close(reqs)
			return
		}
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		reqs <- req
		server.Write([]byte(answer))
	}()
	h := &httpConn{host: "127.0.0.1:9", cookie: "starcolor_session=abc"}
	h.c, h.br = client, bufio.NewReaderSize(client, 16<<10)
	t.Cleanup(h.close)
	return h, reqs
}

// The request is what net/http's server reads as the intended POST; every way HTTP/1.1 frames
// an answer is read.
func TestHTTPConnAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		status       int
		body         string
		keepsOpen    bool
	}{
		{"length", "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}", 201, `{"a":1}`, true},
		{"chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\nTrailer: z\r\n\r\n", 200, `{"a":1}`, true},
		{"close", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 503, `{}`, false},
		{"until EOF", "HTTP/1.0 402 Payment Required\r\n\r\n{\"e\":2}", 402, `{"e":2}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, reqs := pipeConn(t, tc.answer)
			var out bytes.Buffer
			status, err := h.post(context.Background(), "/api/v1/games", []byte("k-1"), []byte(`{"stake":100}`), &out)
			if err != nil {
				t.Fatal(err)
			}
			req := <-reqs
			body, _ := io.ReadAll(req.Body)
			if req.Method != "POST" || req.URL.Path != "/api/v1/games" || req.Host != "127.0.0.1:9" || string(body) != `{"stake":100}` ||
				req.Header.Get("Idempotency-Key") != "k-1" || req.Header.Get("Content-Type") != "application/json" {
				t.Errorf("server read %s %s host %q key %q body %q", req.Method, req.URL, req.Host, req.Header.Get("Idempotency-Key"), body)
			}
			if c, err := req.Cookie("starcolor_session"); err != nil || c.Value != "abc" {
				t.Errorf("cookie: %v %v", c, err)
			}
			if status != tc.status || out.String() != tc.body {
				t.Errorf("read %d %q, want %d %q", status, out.String(), tc.status, tc.body)
			}
			if (h.c != nil) != tc.keepsOpen {
				t.Errorf("connection kept open: %v, want %v", h.c != nil, tc.keepsOpen)
			}
		})
	}
}

// An answer that is not HTTP is an error, and the connection is dropped.
func TestHTTPConnRefusesGarbage(t *testing.T) {
	for _, answer := range []string{"SSH-2.0-OpenSSH\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n"} {
		h, _ := pipeConn(t, answer)
		var out bytes.Buffer
		if _, err := h.post(context.Background(), "/", nil, nil, &out); !errors.Is(err, errProtocol) {
			t.Errorf("%q: %v, want a protocol error", answer, err)
		}
		if h.c != nil {
			t.Errorf("%q: connection kept", answer)
		}
	}
}

// Whatever the server sends, the reader returns (no panic, no unbounded read).
func FuzzHTTPConnAnswer(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
	f.Fuzz(func(t *testing.T, answer string) {
		h, _ := pipeConn(t, answer)
		var out bytes.Buffer
		if _, err := h.post(context.Background(), "/", nil, nil, &out); err == nil && out.Len() > maxBody {
			t.Fatalf("read %d bytes", out.Len())
		}
	})
}

// Keys are RFC 9562 version 7 UUIDs, in the order they were made, or 32 random hex digits.
func TestIdempotencyKeys(t *testing.T) {
	uuid7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	p := &player{r: &runner{cfg: Config{Keys: "uuid7"}}, keys: mrand.NewChaCha8([32]byte{1})}
	prev := ""
	for range 1000 {
		k := string(p.newKey())
		if !uuid7.MatchString(k) {
			t.Fatalf("key %q is not a version 7 UUID", k)
		}
		if k <= prev {
			t.Fatalf("key %q made after %q sorts before it", k, prev)
		}
		prev = k
	}
	p.r.cfg.Keys = "random"
	if k := string(p.newKey()); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(k) {
		t.Fatalf("random key %q", k)
	}
}
