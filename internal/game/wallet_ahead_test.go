package game

import (
	"testing"
	"time"
)

// The rollbacks held ahead of players' next sales: one per player, handed out once, not to a
// copy of the sale that kept it, not past its time; two kept at once for one player are both
// dropped in time; a player who plays again within heldAheadFor is told so.
func TestHeldAhead(t *testing.T) {
	var a ahead
	t0 := time.Unix(1_800_000_000, 0)
	if a.played(7, t0) {
		t.Fatal("a first sale counted as playing again")
	}
	if !a.played(7, t0.Add(time.Second)) || a.played(7, t0.Add(time.Second+heldAheadFor)) {
		t.Fatal("playing again within heldAheadFor, and not after it")
	}
	h := heldAhead{game: 10, suffix: "a", until: t0.Add(heldAheadFor), after: "k1"}
	a.keep(7, h)
	if _, ok := a.take(7, "k1", t0); ok {
		t.Fatal("handed out to a copy of the sale that kept it")
	}
	if _, ok := a.take(8, "k2", t0); ok {
		t.Fatal("handed out to another player")
	}
	if got, ok := a.take(7, "k2", t0); !ok || got != h {
		t.Fatalf("the next sale got %+v %v", got, ok)
	}
	if _, ok := a.take(7, "k3", t0); ok {
		t.Fatal("handed out twice")
	}
	// Two sales of a player at once each keep one: neither is lost.
	a.keep(7, heldAhead{game: 11, suffix: "b", until: t0.Add(heldAheadFor)})
	a.keep(7, heldAhead{game: 12, suffix: "c", until: t0.Add(2 * heldAheadFor)})
	if _, ok := a.take(7, "k4", t0.Add(2*heldAheadFor)); ok {
		t.Fatal("handed out past its time")
	}
	if old := a.expired(t0.Add(heldAheadFor)); len(old) != 1 || old[0].game != 11 {
		t.Fatalf("expired at the first's time: %+v", old)
	}
	if old := a.expired(t0.Add(2 * heldAheadFor)); len(old) != 1 || old[0].game != 12 {
		t.Fatalf("expired at the second's time: %+v", old)
	}
	if len(a.held) != 0 {
		t.Fatalf("left: %+v", a.held)
	}
}
