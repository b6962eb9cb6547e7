package journal

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// appended are the kinds that append their own bytes, and the strings they hold that json.Marshal
// must escape: quotes, backslashes, HTML, controls, non-ASCII, U+2028, invalid UTF-8.
func appended(emission, mode, reason string, n int64) []Event {
	return []Event{
		Sale{Game: n, AccountID: n ^ 7 | 1, Stake: n * 3, Prize: -n, Emission: emission, Block: int(n % 1000), Index: int(n % 100_000),
			Unit: [32]byte{byte(n), 0xff}, Mode: mode, Transfer: n + 1},
		Prize{AccountID: n | 1, Game: -n, Amount: n / 3, Transfer: math.MaxInt64 - n},
		Payment{AccountID: n | 1, Amount: n, Transfer: n, Reason: reason},
		Payment{Withdrawal: true, AccountID: n | 1, Amount: n, Transfer: n, Reason: reason},
	}
}

var tricky = []string{"", "E1", "auto", "closure", `a"b`, `a\b`, "<script>&", "\x00\x1f\t\n", "é ★", "\u2028\u2029", "\xff\xfe", "\x7f"}

// appendKey is the account key the appended entries are sealed with.
var appendKey = AccountKey{1, 2, 3}

// The appended bytes are json.Marshal's, byte for byte, for every kind that appends its own;
// sealed by Encode, they are Seal's of them.
func TestAppendMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ats := []time.Time{at, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)}
	for i := range 2000 {
		n := r.Int64() >> r.IntN(64)
		if i%2 == 1 {
			n = -n
		}
		s := func() string { return tricky[r.IntN(len(tricky))] }
		for _, ev := range appended(s(), s(), s(), n) {
			a := ats[i%len(ats)]
			got, want := ev.(appender).appendPending(nil, a), marshalPending(ev, a)
			if string(got) != string(want) {
				t.Fatalf("%s:\n got %s\nwant %s", ev.Kind(), got, want)
			}
			// Encode seals them where they are made: as Seal does the pending bytes.
			seq := r.Uint64() >> r.IntN(64)
			sealed, err := Seal(want, seq, ev.Account(), &appendKey)
			if enc := Encode(seq, a, ev, &appendKey); err != nil || string(enc) != string(sealed) {
				t.Fatalf("%s at %d: %v\nEncode %s\n  Seal %s", ev.Kind(), seq, err, enc, sealed)
			}
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, "auto", "", int64(42))
	}
	f.Fuzz(func(t *testing.T, emission, mode, reason string, n int64) {
		for _, ev := range appended(emission, mode, reason, n) {
			if got, want := ev.(appender).appendPending(nil, at), marshalPending(ev, at); string(got) != string(want) {
				t.Fatalf("%s:\n got %s\nwant %s", ev.Kind(), got, want)
			}
		}
	})
}

// BenchmarkPending is what a sale's entry costs to make, appended and through json.Marshal.
func BenchmarkPending(b *testing.B) {
	ev := Sale{Game: 123456789, AccountID: 4242, Stake: 100, Prize: 200, Emission: "20261202-0001-abcdefgh", Block: 3, Index: 65432, Mode: "auto", Transfer: 987654321}
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			Pending(at, ev)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			marshalPending(ev, at)
		}
	})
}

// BenchmarkEncode is what a sale's entry costs to make and seal, as a check rebuilds it.
func BenchmarkEncode(b *testing.B) {
	ev := Sale{Game: 123456789, AccountID: 4242, Stake: 100, Prize: 200, Emission: "20261202-0001-abcdefgh", Block: 3, Index: 65432, Mode: "auto", Transfer: 987654321}
	b.ReportAllocs()
	for b.Loop() {
		Encode(2493898, at, ev, &appendKey)
	}
}
