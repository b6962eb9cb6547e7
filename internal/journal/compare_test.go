package journal

import (
	"slices"
	"testing"
	"time"
)

// Diff names the fields that differ, with both values as a person reads them, in the order of
// the entry rebuilt from the rows; an entry of the same bytes differs in nothing.
func TestDiff(t *testing.T) {
	var key AccountKey
	row := Encode(5, at, Sale{Game: 977, AccountID: 7, Stake: 100, Prize: 5000, Emission: "E1", Index: 3, Mode: "auto", Transfer: 90}, &key)
	entry := Encode(5, at, Sale{Game: 977, AccountID: 8, Stake: 100, Prize: 200, Emission: "E2", Index: 3, Mode: "auto", Transfer: 90}, &key)
	got, err := Diff(entry, row)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"account", key.Ref(8, 5), key.Ref(7, 5)}, {"prize", "200", "5000"}, {"emission", "E2", "E1"}}
	if !slices.Equal(got, want) {
		t.Fatalf("Diff: %q, want %q", got, want)
	}
	if same, err := Diff(row, row); err != nil || len(same) != 0 {
		t.Fatalf("an entry against itself: %q, %v", same, err)
	}
	// A field one has and the other has not.
	w := Encode(5, at, Payment{Withdrawal: true, AccountID: 7, Amount: 300, Transfer: 6, Reason: "closure"}, &key)
	plain := Encode(5, at, Payment{Withdrawal: true, AccountID: 7, Amount: 300, Transfer: 6}, &key)
	if got, err := Diff(plain, w); err != nil || !slices.Equal(got, []Field{{"reason", "none", "closure"}}) {
		t.Fatalf("a reason missing: %q, %v", got, err)
	}
	if got, err := Diff(w, plain); err != nil || !slices.Equal(got, []Field{{"reason", "closure", "none"}}) {
		t.Fatalf("a reason added: %q, %v", got, err)
	}
	if _, err := Diff([]byte(`not json`), row); err == nil {
		t.Fatal("an entry that is not JSON")
	}
}

// Parse reads each kind's fields that a player's rows are compared with, and refuses what
// Verify refuses.
func TestParse(t *testing.T) {
	var key AccountKey
	old := int64(5000)
	until := at.Add(30 * 24 * time.Hour)
	p, err := Parse(Encode(4, at, Limits{AccountID: 7, Limit: "stake", Old: &old, New: 9000, Effective: at.Add(48 * time.Hour), By: "olga"}, &key))
	if err != nil || p.Seq != 4 || p.Kind != KindLimits || p.Account != key.Ref(7, 4) || p.Limit != "stake" || *p.Old != 5000 || p.New != 9000 ||
		!p.Effective.Equal(at.Add(48*time.Hour).Truncate(time.Millisecond)) || p.By != "olga" || !p.Time.Equal(at.Truncate(time.Millisecond)) {
		t.Fatalf("limits: %+v, %v", p, err)
	}
	if p, err := Parse(Encode(5, at, Exclusion{AccountID: 7, Until: until, Paid: 1}, &key)); err != nil || !p.Until.Equal(until.Truncate(time.Millisecond)) {
		t.Fatalf("exclusion: %+v, %v", p, err)
	}
	if p, err := Parse(Encode(6, at, Closure{AccountID: 7, By: "register"}, &key)); err != nil || p.By != "register" || p.Account != key.Ref(7, 6) {
		t.Fatalf("closure: %+v, %v", p, err)
	}
	if p, err := Parse(Encode(7, at, Prize{AccountID: 7, Game: 9, Amount: 10, Transfer: 12}, &key)); err != nil || p.Game != 9 || p.Transfer != 12 {
		t.Fatalf("prize: %+v, %v", p, err)
	}
	if p, err := Parse(Encode(8, at, Emission{ID: "E1", Event: "created", Price: 100, Definition: "d", Roots: []string{"ab"}, Operator: "olga"}, &key)); err != nil ||
		p.Emission != "E1" || p.Event != "created" || p.Operator != "olga" {
		t.Fatalf("emission: %+v, %v", p, err)
	}
	if p, err := Parse([]byte(`{"seq":8,"time":"2026-12-02T06:30:00.123Z","kind":"closure","account":"x","by":"player","paid":0}`)); err == nil || p.Seq != 8 {
		t.Fatalf("fields out of order: %+v, %v", p, err)
	}
}

// ReadNamed finds the rows of every kind that names some; it does not judge the entry.
func TestReadNamed(t *testing.T) {
	var key AccountKey
	n, err := ReadNamed(Encode(3, at, Sale{Game: 42, AccountID: 7, Transfer: 90}, &key))
	if err != nil || n != (Named{Seq: 3, Kind: KindSale, Game: 42, Transfer: 90}) {
		t.Fatalf("sale: %+v, %v", n, err)
	}
	n, err = ReadNamed(Encode(4, at, Payment{AccountID: 7, Amount: 1, Transfer: 5}, &key))
	if err != nil || n != (Named{Seq: 4, Kind: KindDeposit, Transfer: 5}) {
		t.Fatalf("deposit: %+v, %v", n, err)
	}
}

// Diff reads whatever a database may hold in place of an entry without failing.
func FuzzDiff(f *testing.F) {
	var key AccountKey
	row := Encode(5, at, Sale{Game: 977, AccountID: 7, Stake: 100, Prize: 5000, Emission: "E1", Mode: "auto", Transfer: 90}, &key)
	f.Add(row)
	f.Add([]byte(`{"seq":5,"seq":6}`))
	f.Add([]byte(`{"a":[1,{"b":2}],"c":"\u00e9"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, entry []byte) {
		fields, err := Diff(entry, row)
		if err == nil && string(entry) == string(row) && len(fields) != 0 {
			t.Fatalf("the entry differs from itself: %q", fields)
		}
	})
}
