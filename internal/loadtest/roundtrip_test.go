package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRoundTrip is the raw cost, on this machine, of the HTTP part of an « Auto » play with
// nothing behind it: 64 players, each on the load tool's own keep-alive connection, send the
// play's request over loopback TCP to a net/http server, which reads it and answers 201 with a
// body the size of an auto game's (1.5 KB on average). Client and server share the process, so
// the CPU reported (user and system, from getrusage) is the whole machine's cost of a round trip:
// both sides, and the kernel's loopback TCP. The game server can be no cheaper than this.
func BenchmarkRoundTrip(b *testing.B) {
	answer := []byte(`{"id":1,"status":"finished","board":"` + string(bytes.Repeat([]byte("x"), 1460)) + `"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		w.WriteHeader(http.StatusCreated)
		w.Write(answer)
	}))
	defer srv.Close()
	ctx := context.Background()
	target, err := resolveTarget(ctx, srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	const players = 64
	body := []byte(`{"stake":100,"mode":"auto"}`)
	var next atomic.Int64
	var wg sync.WaitGroup
	before := processCPU()
	start := time.Now()
	b.ResetTimer()
	for range players {
		wg.Go(func() {
			h := &httpConn{t: target, origin: srv.URL, host: u.Host, timeout: 10 * time.Second, cookie: "starcolor_session=0123456789abcdef0123456789abcdef"}
			defer h.close()
			var out bytes.Buffer
			for n := 0; next.Add(1) <= int64(b.N); n++ {
				out.Reset()
				status, err := h.post(ctx, "/api/v1/games", fmt.Appendf(nil, "0198c6a4-0000-7000-8000-%012d", n), body, &out)
				if err != nil || status != http.StatusCreated || out.Len() != len(answer) {
					b.Errorf("round trip: status %d, %d bytes, %v", status, out.Len(), err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	elapsed, cpu := time.Since(start), processCPU()-before
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "µs-cpu/req")
}
