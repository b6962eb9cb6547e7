package sqlstore

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"starcolor/internal/journal"
)

// A write's entries read back from their queued value as they were queued: kind, account,
// game, transfer and pending bytes, in order.
func TestQueuedRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	events := []Dated{
		{at, journal.Payment{AccountID: 7, Amount: 1000, Transfer: 5}},
		{at, journal.Sale{Game: 42, AccountID: 7, Stake: 100, Prize: 200, Emission: "E1", Mode: "auto", Transfer: 6}},
		{at, journal.Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 7}},
		{at, journal.Operator{Operator: "alice", Action: "note", Detail: "é"}},
	}
	want := pendingOf(events)
	for i := range want {
		want[i].id = 9
	}
	got, err := readQueued(9, QueueValue(events))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	// A row queued before migration 0029: its one entry, from its columns.
	old := queuedRow{id: 3, one: pending{id: 3, kind: "sale", account: 7, game: int64(42), entry: []byte(`{"seq":0}`)}}
	if ps, err := old.entries(); err != nil || len(ps) != 1 || ps[0].game != int64(42) {
		t.Fatalf("a row of one entry: %+v %v", ps, err)
	}
	if _, err := (queuedRow{id: 4}).entries(); !errors.Is(err, errQueued) {
		t.Fatalf("a row of neither form: %v", err)
	}
}

// A queued value cut anywhere, or with a length beyond it, is refused, never read past.
func TestQueuedMalformed(t *testing.T) {
	v := QueueValue([]Dated{{time.Unix(0, 0), journal.Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 7}}})
	for n := range len(v) {
		if ps, err := readQueued(1, v[:n]); !errors.Is(err, errQueued) {
			t.Fatalf("cut at %d of %d: %+v %v", n, len(v), ps, err)
		}
	}
	if _, err := readQueued(1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}); !errors.Is(err, errQueued) {
		t.Fatalf("a length of 4 GB: %v", err)
	}
}

// The reader of a queued value, a row of the database, fails cleanly on any bytes, and what it
// reads it writes back the same.
func FuzzReadQueued(f *testing.F) {
	f.Add(QueueValue([]Dated{{time.Unix(0, 0), journal.Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 7}}}))
	f.Add([]byte{})
	f.Add([]byte{1, 'x', 2, 4, 6, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := readQueued(1, b)
		if err != nil {
			return
		}
		if again := appendQueued(nil, ps); len(again) > len(b) {
			t.Fatalf("%x read as %d entries, written back as %x", b, len(ps), again)
		}
	})
}
