package fakewallet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"starcolor/internal/wallet"
)

// BenchmarkDebitCredit is a play as Star Color makes it: a debit, then its credit, signed,
// through the wallet's handler (no network), from many goroutines at once, on a store that is not
// durable (--not-durable, as under a load test). One op is one play, two calls; cpu-µs/call is
// the CPU the process spent (user and system) per call, the whole benchmark's divided by its
// calls.
func BenchmarkDebitCredit(b *testing.B) { benchDebitCredit(b, nil) }

// BenchmarkDebitCreditLogged is BenchmarkDebitCredit with a line logged for each call, as
// `starcolor-fakewallet` does (to io.Discard here).
func BenchmarkDebitCreditLogged(b *testing.B) {
	benchDebitCredit(b, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func benchDebitCredit(b *testing.B, log *slog.Logger) {
	s, err := OpenWith(context.Background(), filepath.Join(b.TempDir(), "wallet.db"), false)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	h := NewServer(s, secret, Faults{})
	h.Log = log
	const players = 64 // as in the load test of docs/PERFORMANCE.md
	var next atomic.Int64
	call := func(b *testing.B, name string, v any) {
		body, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		req := httptest.NewRequest("POST", "/"+name, bytes.NewReader(body))
		key.Stamp(req, body, time.Now())
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	b.SetParallelism(16) // 16 goroutines per core: the plays of many players at once
	b.ResetTimer()
	s.batches.Store(0)
	s.batched.Store(0)
	cpu0, wall0 := cpuTime(), time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			player := fmt.Sprintf("p%d", i%players)
			// Ids as Star Color makes them: the time in ms, then 64 random bits.
			id := fmt.Sprintf("%012x%016x", time.Now().UnixMilli(), rand.Uint64())
			call(b, wallet.CallDebit, debit("debit-"+id, player, 100))
			call(b, wallet.CallCredit, credit("credit-"+id, player, 100, "debit-"+id))
		}
	})
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.StopTimer()
	calls := float64(2 * b.N)
	b.ReportMetric(float64(cpu.Microseconds())/calls, "cpu-µs/call")
	b.ReportMetric(calls/wall.Seconds(), "calls/s")
	if n := s.batches.Load(); n > 0 {
		b.ReportMetric(float64(s.batched.Load())/float64(n), "calls/commit")
	}
}

// cpuTime is the CPU the process spent so far, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
