package passhash

import (
	"context"
	"errors"
	"runtime"
	"time"
)

// ErrBusy is a hash that could not start in time: too many are running or waiting.
var ErrBusy = errors.New("too many passwords are being checked right now")

// Gate bounds the hashes running at once, and so the memory they take: each argon2id hash holds
// its whole cost in memory, 64 MiB by default, for its duration. The others wait their turn in a
// queue of bounded length, for a bounded time, or are refused at once.
type Gate struct {
	slots   chan struct{}
	waiting chan struct{}
	maxWait time.Duration
}

// NewGate lets slots hashes run at once, queue more wait up to maxWait, and refuses the rest.
func NewGate(slots, queue int, maxWait time.Duration) *Gate {
	return &Gate{slots: make(chan struct{}, max(1, slots)), waiting: make(chan struct{}, max(0, queue)), maxWait: maxWait}
}

// DefaultGate suits this machine: a hash takes two threads (Default.Threads), so half as many
// running as there are cores keep them all busy; 64 wait, for up to 5 seconds. On two cores,
// two hashes of 64 MiB at once.
func DefaultGate() *Gate {
	return NewGate(max(2, runtime.GOMAXPROCS(0)/2), 64, 5*time.Second)
}

// Run runs fn once a slot is free, or fails with ErrBusy (or the context's error) without
// running it.
func (g *Gate) Run(ctx context.Context, fn func()) error {
	select {
	case g.slots <- struct{}{}:
	default:
		select {
		case g.waiting <- struct{}{}:
		default:
			return ErrBusy
		}
		t := time.NewTimer(g.maxWait)
		select {
		case g.slots <- struct{}{}:
			<-g.waiting
			t.Stop()
		case <-t.C:
			<-g.waiting
			return ErrBusy
		case <-ctx.Done():
			<-g.waiting
			t.Stop()
			return ctx.Err()
		}
	}
	defer func() { <-g.slots }()
	fn()
	return nil
}
