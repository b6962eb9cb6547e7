package fault

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWriteHealth(t *testing.T) {
	ctx := context.Background()
	h := &WriteHealth{Memory: 50 * time.Millisecond, Every: 50 * time.Millisecond}
	probes := 0
	ok := func(context.Context) error { probes++; return nil }
	if err := h.Check(ctx, ok); err != nil || probes != 1 {
		t.Fatalf("a sound store: %v after %d probes", err, probes)
	}
	// The probe's answer is kept for Every: one probe however often the check is called.
	for range 10 {
		h.Check(ctx, ok)
	}
	if probes != 1 {
		t.Errorf("%d probes within Every, want 1", probes)
	}
	// A write refused for the store's sake fails the check for Memory, whatever the probe says.
	full := &Error{Code: Unavailable, Message: "full", Cause: errors.New("disk full")}
	if err := h.Note(full); err != full {
		t.Fatalf("Note returned %v", err)
	}
	h.Note(&Error{Code: SoldOut, Message: "sold out"}) // not the store's: forgotten
	if err := h.Check(ctx, ok); err != full {
		t.Errorf("after a failed write: %v, want it", err)
	}
	time.Sleep(60 * time.Millisecond)
	if err := h.Check(ctx, ok); err != nil || probes != 2 {
		t.Errorf("after Memory: %v after %d probes", err, probes)
	}
	// A failing probe fails the check.
	time.Sleep(60 * time.Millisecond)
	if err := h.Check(ctx, func(context.Context) error { return full }); err != full {
		t.Errorf("a failing probe: %v", err)
	}
}
