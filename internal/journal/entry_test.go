package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"testing"
	"time"
)

var at = time.Date(2026, 12, 2, 6, 30, 0, 123_456_789, time.UTC)

// The bytes of each kind of entry, fixed: a change of field, order or format shows here.
func TestEncodeKnownAnswers(t *testing.T) {
	var key AccountKey
	copy(key[:], "a journal account key, 32 bytes")
	old := int64(5000)
	unit := sha256.Sum256([]byte("a unit's audit line"))
	tests := []struct {
		ev   Event
		want string
	}{
		{Sale{Game: 42, AccountID: 7, Stake: 100, Prize: 200, Emission: "E1", Block: 0, Index: 12, Unit: unit, Mode: "auto", Transfer: 90},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"sale","game":42,"account":"` + key.Ref(7, 3) + `","stake":100,"prize":200,"emission":"E1","block":0,"index":12,"unit":"` + hex.EncodeToString(unit[:]) + `","mode":"auto","transfer":90}`},
		{Prize{AccountID: 7, Game: 42, Amount: 200, Transfer: 91},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"prize","account":"` + key.Ref(7, 3) + `","game":42,"amount":200,"transfer":91}`},
		{Payment{AccountID: 7, Amount: 1000, Transfer: 5},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"deposit","account":"` + key.Ref(7, 3) + `","amount":1000,"transfer":5}`},
		{Payment{Withdrawal: true, AccountID: 7, Amount: 300, Transfer: 6, Reason: "closure"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"withdrawal","account":"` + key.Ref(7, 3) + `","amount":300,"transfer":6,"reason":"closure"}`},
		{Limits{AccountID: 7, Limit: "deposit", New: 10000, Effective: at.Add(72 * time.Hour), By: "player"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"limits","account":"` + key.Ref(7, 3) + `","limit":"deposit","old":null,"new":10000,"effective":"2026-12-05T06:30:00.123Z","by":"player"}`},
		{Limits{AccountID: 7, Limit: "stake", Old: &old, New: 100, Effective: at, By: "alice"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"limits","account":"` + key.Ref(7, 3) + `","limit":"stake","old":5000,"new":100,"effective":"2026-12-02T06:30:00.123Z","by":"alice"}`},
		{Exclusion{AccountID: 7, Until: at.Add(7 * 24 * time.Hour), Paid: 300},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"exclusion","account":"` + key.Ref(7, 3) + `","until":"2026-12-09T06:30:00.123Z","paid":300}`},
		{Closure{AccountID: 7, Paid: 0, By: "player"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"closure","account":"` + key.Ref(7, 3) + `","paid":0,"by":"player"}`},
		{RegisterImport{Import: 2, Operator: "command line", Listed: 10, Added: 3, Gone: 1, Closed: 2},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"register_import","import":2,"operator":"command line","listed":10,"added":3,"gone":1,"closed":2}`},
		{Emission{ID: "E1", Event: "created", Price: 100, Definition: "starcolor-fdj-2013/1", Roots: []string{"ab", "cd"}, Operator: "alice"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"emission","emission":"E1","event":"created","price":100,"definition":"starcolor-fdj-2013/1","roots":["ab","cd"],"operator":"alice"}`},
		{Emission{ID: "E1", Event: "suspended", Price: 100, Definition: "starcolor-fdj-2013/1", Operator: "bob"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"emission","emission":"E1","event":"suspended","price":100,"definition":"starcolor-fdj-2013/1","roots":[],"operator":"bob"}`},
		{Operator{Operator: "alice", Action: "login", Detail: "é <ok>"},
			`{"seq":3,"time":"2026-12-02T06:30:00.123Z","kind":"operator","operator":"alice","action":"login","detail":"é \u003cok\u003e"}`},
	}
	for _, tt := range tests {
		if got := string(Encode(3, at, tt.ev, &key)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.ev.Kind(), got, tt.want)
		}
	}
}

// An account's references differ from entry to entry and from key to key, and are the HMAC the
// spec names.
func TestAccountRefs(t *testing.T) {
	var k1, k2 AccountKey
	k2[0] = 1
	if k1.Ref(7, 1) == k1.Ref(7, 2) || k1.Ref(7, 1) == k2.Ref(7, 1) || k1.Ref(7, 1) == k1.Ref(8, 1) {
		t.Fatal("references link entries")
	}
	// HMAC-SHA256 of the 8-byte big-endian account and seq, under the all-zero key, cut to 128
	// bits (computed apart, with Python's hmac).
	if got, want := k1.Ref(1, 0), "f64b92117253a5d406891e869c067511"; got != want {
		t.Fatalf("ref %s, want %s", got, want)
	}
}

// The leaf is RFC 6962's: SHA-256 of a zero byte and the entry.
func TestLeaf(t *testing.T) {
	e := []byte(`{"seq":0}`)
	if got, want := Leaf(e), sha256.Sum256(append([]byte{0}, e...)); got != want {
		t.Fatalf("leaf %x, want %x", got, want)
	}
}

// A pending entry seals to the entry Encode makes, at any seq; only its seq and its account's
// place change, whatever the event's strings hold.
func TestPendingSeals(t *testing.T) {
	var key AccountKey
	copy(key[:], "a journal account key, 32 bytes")
	look := `"account":"00000000000000000000000000000000"`
	events := []Event{
		Sale{Game: 42, AccountID: 7, Stake: 100, Prize: 200, Emission: look, Mode: "auto", Transfer: 90},
		Closure{AccountID: 9, By: look},
		Operator{Operator: "alice", Action: "note", Detail: look},
		Emission{ID: "E1", Event: "created", Operator: `{"seq":0,`},
	}
	for _, ev := range events {
		p := Pending(at, ev)
		for _, seq := range []uint64{0, 1, 9, 10, 1 << 40} {
			got, err := Seal(p, seq, ev.Account(), &key)
			if err != nil {
				t.Fatalf("%s at %d: %v", ev.Kind(), seq, err)
			}
			if want := Encode(seq, at, ev, &key); string(got) != string(want) {
				t.Fatalf("%s at %d:\n got %s\nwant %s", ev.Kind(), seq, got, want)
			}
			if _, err := Parse(got); err != nil {
				t.Fatalf("%s at %d: %v", ev.Kind(), seq, err)
			}
		}
	}
	for _, bad := range []struct {
		pending string
		account int64
	}{
		{`{"seq":1,"time":"2026-12-02T06:30:00.123Z","kind":"closure","paid":0,"by":"player"}`, 0},
		{`{"seq":0,"time":"2026-12-02T06:30:00.123Z","kind":"closure","paid":0,"by":"player"}`, 7},
		{``, 0},
	} {
		if got, err := Seal([]byte(bad.pending), 3, bad.account, &key); err == nil {
			t.Errorf("Seal(%q, account %d) = %s, want an error", bad.pending, bad.account, got)
		}
	}
}

// TestRefKeyed holds Ref, whose keyed HMACs are kept and reused, to a fresh HMAC under each of
// two keys used in turn from several goroutines, and to a known answer.
func TestRefKeyed(t *testing.T) {
	var k1, k2 AccountKey
	k2[0] = 1
	want := func(k *AccountKey, account int64, seq uint64) string {
		m := hmac.New(sha256.New, k[:])
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], uint64(account))
		binary.BigEndian.PutUint64(b[8:], seq)
		m.Write(b[:])
		return hex.EncodeToString(m.Sum(nil)[:16])
	}
	// HMAC-SHA256 under 32 zero bytes of 7 and 3 as two big-endian uint64, by Python's hmac.
	if got := k1.Ref(7, 3); got != "648122526c7f3e6b8b4da2bc02ad5d20" {
		t.Fatalf("Ref(7, 3) = %s", got)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := &k1
				if (i+g)%3 == 0 {
					k = &k2
				}
				if got, w := k.Ref(int64(i), uint64(g)), want(k, int64(i), uint64(g)); got != w {
					t.Errorf("key %d, Ref(%d, %d) = %s, want %s", k[0], i, g, got, w)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkRef is an entry's account reference.
func BenchmarkRef(b *testing.B) {
	var k AccountKey
	for b.Loop() {
		k.Ref(4242, 987654)
	}
}
