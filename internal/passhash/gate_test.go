package passhash

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// No more than the slots run at once; the queue waits its turn; the rest are refused at once.
func TestGate(t *testing.T) {
	g := NewGate(2, 3, time.Second)
	var running, peak atomic.Int64
	release := make(chan struct{})
	var ran, busy atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			err := g.Run(context.Background(), func() {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				<-release
				running.Add(-1)
			})
			switch {
			case err == nil:
				ran.Add(1)
			case errors.Is(err, ErrBusy):
				busy.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	for busy.Load() < 15 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if peak.Load() != 2 || ran.Load() != 5 || busy.Load() != 15 {
		t.Fatalf("peak %d running, %d ran, %d refused; want 2, 5 (2 + a queue of 3), 15", peak.Load(), ran.Load(), busy.Load())
	}
}

// A wait in the queue ends with ErrBusy after the longest wait, or with the context.
func TestGateWaitBounded(t *testing.T) {
	g := NewGate(1, 5, 50*time.Millisecond)
	hold := make(chan struct{})
	go g.Run(context.Background(), func() { <-hold })
	time.Sleep(10 * time.Millisecond)
	start := time.Now()
	if err := g.Run(context.Background(), func() { t.Error("ran while the slot was held") }); !errors.Is(err, ErrBusy) {
		t.Fatalf("a wait past the bound: %v", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > time.Second {
		t.Fatalf("waited %v, want about 50ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Run(ctx, func() {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	close(hold)
}
