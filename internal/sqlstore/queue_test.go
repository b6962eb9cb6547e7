package sqlstore

import (
	"bytes"
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

// The reader of a queued value, a row of the database, fails cleanly on any bytes. What it reads
// of the first form it writes back the same; what it reads of the second it writes back in the
// first, which reads as the same entries.
func FuzzReadQueued(f *testing.F) {
	prize := []Dated{{time.Unix(0, 0), journal.Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 7}}}
	f.Add(QueueValue(prize))
	f.Add(appendQueued(nil, pendingOf(prize)))
	f.Add(QueueValue(mixed(time.Date(2026, 12, 4, 19, 0, 0, 123_456_789, time.UTC))))
	f.Add([]byte{})
	f.Add([]byte{1, 'x', 2, 4, 6, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := readQueued(1, b)
		if err != nil {
			return
		}
		again := appendQueued(nil, ps)
		if !bytes.HasPrefix(b, queuedV2) {
			if len(again) > len(b) {
				t.Fatalf("%x read as %d entries, written back as %x", b, len(ps), again)
			}
			return
		}
		if back, err := readQueued(1, again); err != nil || !reflect.DeepEqual(back, ps) {
			t.Fatalf("%x read as %+v, written back in the first form as %+v (%v)", b, ps, back, err)
		}
	})
}

// mixed are events of every kind a write queues, with a reason, a non-ASCII string and a time
// below the millisecond.
func mixed(at time.Time) []Dated {
	return []Dated{
		{at, journal.Payment{AccountID: 7, Amount: 1000, Transfer: 5}},
		{at.Add(time.Millisecond), journal.Sale{Game: 42, AccountID: 7, Stake: 100, Prize: 200, Emission: "E1-é", Block: 3, Index: 999_999,
			Unit: [32]byte{1, 2, 3, 31: 0xff}, Mode: "auto", Transfer: 6}},
		{at.Add(time.Second), journal.Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 7}},
		{at, journal.Payment{Withdrawal: true, AccountID: 7, Amount: 800, Transfer: 8, Reason: "self_exclusion"}},
		{at, journal.Operator{Operator: "alice", Action: "note", Detail: "é", AccountID: 7}},
		{at, journal.Limits{AccountID: 7, Limit: "stake", New: 5000, Effective: at, By: "player"}},
		{at, journal.Sale{Game: 1 << 40, AccountID: 1 << 40, Stake: 300, Emission: "<&>", Mode: "manual", Transfer: -1}},
	}
}

// Both forms read back as the events' pending entries: a value queued by a server before the
// second form, still in the queue when its successor starts, is sequenced as it was written.
func TestQueuedBothForms(t *testing.T) {
	events := mixed(time.Date(2026, 12, 4, 19, 0, 0, 123_456_789, time.UTC))
	want := pendingOf(events)
	for i := range want {
		want[i].id = 5
	}
	for _, v := range [][]byte{QueueValue(events), appendQueued(nil, pendingOf(events))} {
		got, err := readQueued(5, v)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
		}
	}
	// The second form is a quarter of the first, or less: a batch of 24 sales, a third of them
	// winning, stays about TOAST's 2 kB, where the first form took 9 kB.
	var batch []Dated
	for i := range 24 {
		g := int64(1000 + i)
		batch = append(batch, Dated{time.Now(), journal.Sale{Game: g, AccountID: 7, Stake: 100, Prize: 200, Emission: "SC-2026-12-04-EUR1", Index: 500_000 + i, Mode: "auto", Transfer: 2 * g}})
		if i%3 == 0 {
			batch = append(batch, Dated{time.Now(), journal.Prize{AccountID: 7, Game: g, Amount: 200, Transfer: 2*g + 1}})
		}
	}
	second, first := len(QueueValue(batch)), len(appendQueued(nil, pendingOf(batch)))
	if second*4 > first {
		t.Errorf("24 sales queue as %d bytes, more than a quarter of the first form's %d", second, first)
	}
	t.Logf("24 sales and 8 prizes: %d bytes queued, %d in the first form", second, first)
}
