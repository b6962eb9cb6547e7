package fault

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// WriteHealth is what a store knows of whether it can write, for /healthz (Check) and for the
// writes that fail meanwhile (Note). Each store keeps one.
type WriteHealth struct {
	failure atomic.Pointer[stamped] // the last write that failed for the store's sake
	mu      sync.Mutex
	probe   *stamped // the last answer of Check's own write
	// Memory is how long a write that failed for the store's sake keeps Check failing: a probe
	// of one small row may fit where the writes of sales do not (a disk full but for a log's own
	// length). Every is how often Check writes at most: its answer is kept that long, so that
	// however often the health check is called, the store sees one probe. Zero: 5 s and 1 s.
	Memory, Every time.Duration
}

type stamped struct {
	at  time.Time
	err error
}

// Note keeps the error of a write if the store caused it (an Unavailable fault with its cause),
// and returns it.
func (h *WriteHealth) Note(err error) error {
	var f *Error
	if errors.As(err, &f) && f.Code == Unavailable && f.Cause != nil {
		h.failure.Store(&stamped{at: time.Now(), err: err})
	}
	return err
}

// Check says whether the store can write now: it fails if a write has failed for the store's
// sake in the last Memory, or if probe (a write of one small row) fails; probe runs at most once
// every Every.
func (h *WriteHealth) Check(ctx context.Context, probe func(context.Context) error) error {
	memory, every := h.Memory, h.Every
	if memory == 0 {
		memory = 5 * time.Second
	}
	if every == 0 {
		every = time.Second
	}
	if f := h.failure.Load(); f != nil && time.Since(f.at) < memory {
		return f.err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.probe; p != nil && time.Since(p.at) < every {
		return p.err
	}
	err := probe(ctx)
	if ctx.Err() == nil {
		h.probe = &stamped{at: time.Now(), err: err}
	}
	return err
}
