package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/fault"
)

var t0 = time.Date(2026, 12, 2, 6, 30, 0, 0, time.UTC)

// testKey makes a key file in a test's folder.
func testKey(t testing.TB, name string) *Key {
	t.Helper()
	k, err := CreateKey(filepath.Join(t.TempDir(), "journal.key"), name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// event is the i-th of a journal of every kind of event, in turn.
func event(i int) Event {
	n := int64(i)
	var unit [32]byte
	unit[0], unit[1] = byte(i), byte(i>>8)
	switch i % 7 {
	case 0:
		return Sale{Game: n, AccountID: n%5 + 1, Stake: 200, Prize: 400, Emission: "E1", Block: 0, Index: i, Unit: unit, Mode: "auto", Transfer: 2 * n}
	case 1:
		return Prize{AccountID: n%5 + 1, Game: n - 1, Amount: 400, Transfer: 2*n + 1}
	case 2:
		return Payment{AccountID: n%5 + 1, Amount: 1000, Transfer: 3 * n}
	case 3:
		return Payment{Withdrawal: true, AccountID: n%5 + 1, Amount: 300, Transfer: 3*n + 1, Reason: "closure"}
	case 4:
		return Limits{AccountID: n%5 + 1, Limit: "stake", New: 5000, Effective: t0, By: "player"}
	case 5:
		return Operator{Operator: "alice", Action: "login", Detail: fmt.Sprint(i)}
	}
	return Exclusion{AccountID: n%5 + 1, Until: t0.Add(7 * 24 * time.Hour), Paid: 0}
}

// fill appends n events to a store.
func fill(s *memStore, n int) {
	for range n {
		s.append(t0, event(len(s.entries)))
	}
}

// merkleRoot is the RFC 6962 root of entries computed by transparency-dev/merkle, an
// implementation apart from tlog's.
func merkleRoot(entries [][]byte) []byte {
	if len(entries) == 0 {
		return rfc6962.DefaultHasher.EmptyRoot()
	}
	f := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := f.NewEmptyRange(0)
	for _, e := range entries {
		if err := r.Append(rfc6962.DefaultHasher.HashLeaf(e), nil); err != nil {
			panic(err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		panic(err)
	}
	return root
}

// parse reads a checkpoint with the formats library and the key's verifier.
func parse(t testing.TB, k *Key, c Checkpoint) *log.Checkpoint {
	t.Helper()
	v, err := note.NewVerifier(k.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	cp, _, _, err := log.ParseCheckpoint(c.Note, k.Origin, v)
	if err != nil {
		t.Fatalf("checkpoint %q: %v", c.Note, err)
	}
	if int64(cp.Size) != c.Size {
		t.Fatalf("checkpoint kept as of size %d signs %d", c.Size, cp.Size)
	}
	return cp
}

// step runs a Log's step at a time, failing the test on an error.
func step(t testing.TB, l *Log, now time.Time) {
	t.Helper()
	if err := l.Step(context.Background(), now); err != nil {
		t.Fatal(err)
	}
}

// The root each checkpoint signs is the RFC 6962 root of the entries, as transparency-dev/merkle
// computes it, for every small tree; the checkpoint reads back with log.ParseCheckpoint.
func TestCheckpointRoots(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "starcolor-journal-test")
	s := newMemStore()
	l := NewLog(s, k)
	now := t0
	for n := 1; n <= 70; n++ {
		fill(s, 1)
		now = now.Add(SignEvery)
		step(t, l, now)
		c, err := l.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cp := parse(t, k, c)
		if want := merkleRoot(s.entries); cp.Size != uint64(n) || !bytes.Equal(cp.Hash, want) {
			t.Fatalf("size %d: checkpoint of %d with root %x, want %x", n, cp.Size, cp.Hash, want)
		}
		if cp.Origin != k.Origin || !c.SignedAt.Equal(now) {
			t.Fatalf("checkpoint of %s signed at %v", cp.Origin, c.SignedAt)
		}
	}
	// A known answer, so that a change of the entries' bytes or of the tree shows: the root of
	// the first 7 entries, computed with transparency-dev/merkle when this test was written.
	if got, want := hex.EncodeToString(merkleRoot(s.entries[:7])), "03ce23b6ddd30adc378fcd7d8574ad91f505764ab95836604918f47f5b635a85"; got != want {
		t.Errorf("root of 7 entries %s, want %s", got, want)
	}
	text := string(s.checkpoints[70].Note)
	if want := k.Origin + "\n70\n"; !strings.HasPrefix(text, want) || !strings.Contains(text, "\n\n— "+k.Origin+" ") {
		t.Errorf("checkpoint text %q is not a C2SP checkpoint of %s", text, k.Origin)
	}
}

// Every inclusion and consistency proof of every small tree verifies with transparency-dev/merkle.
func TestProofs(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	fill(s, 33)
	step(t, l, t0)
	for size := int64(1); size <= 33; size++ {
		root := merkleRoot(s.entries[:size])
		for i := range size {
			path, err := l.InclusionProof(ctx, i, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(i), uint64(size), rfc6962.DefaultHasher.HashLeaf(s.entries[i]), slices2(path), root); err != nil {
				t.Fatalf("entry %d in %d: %v", i, size, err)
			}
		}
		for old := int64(1); old <= size; old++ {
			path, err := l.ConsistencyProof(ctx, old, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(old), uint64(size), slices2(path), merkleRoot(s.entries[:old]), root); err != nil {
				t.Fatalf("%d to %d: %v", old, size, err)
			}
		}
	}
}

// slices2 turns a tlog proof into the merkle library's form.
func slices2(p []tlog.Hash) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = p[i][:]
	}
	return out
}

// The tree's stored hashes are the same however the entries are cut into chunks, and whenever
// they are integrated: one entry at a time, in chunks that cross the powers of two, or at once.
func TestIntegrateChunks(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	const n = 300
	one := newMemStore()
	fill(one, n)
	if err := NewLog(one, k).Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	if want := tlog.StoredHashCount(n); int64(len(one.hashes)) != want || one.hashed != n {
		t.Fatalf("%d stored hashes for %d entries, want %d", len(one.hashes), one.hashed, want)
	}
	for _, chunk := range []int64{1, 2, 3, 5, 63, 64, 65, 255, 256, 1000} {
		for _, every := range []int{1, 7, 100, n} {
			s := newMemStore()
			l := NewLog(s, k)
			l.chunk = chunk
			for len(s.entries) < n {
				fill(s, min(every, n-len(s.entries)))
				if err := l.Integrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(s.hashes, one.hashes) {
				t.Fatalf("chunks of %d, integrated every %d entries: other stored hashes", chunk, every)
			}
		}
	}
}

// Two Logs on one store, each integrating and signing while entries are appended, end with the
// tree of a single Log, and every checkpoint either kept signs the root of its entries.
func TestLogsRace(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	raced := 0
	for round := range 20 {
		s := newMemStore()
		logs := []*Log{NewLog(s, k), NewLog(s, k)}
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Go(func() {
			defer close(done)
			for range 200 {
				fill(s, 3)
				// The appends wait for the tree to keep up, so that the Logs run beside them
				// however the scheduler goes.
				for {
					s.mu.Lock()
					behind := int64(len(s.entries)) - s.hashed
					s.mu.Unlock()
					if behind < 30 || t.Failed() {
						break
					}
					runtime.Gosched()
				}
			}
		})
		var clock sync.Mutex
		now := t0
		tick := func() time.Time {
			clock.Lock()
			defer clock.Unlock()
			now = now.Add(SignEvery / 4)
			return now
		}
		for _, l := range logs {
			l.chunk = 7
			wg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					if err := l.Step(ctx, tick()); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		for _, l := range logs {
			step(t, l, tick().Add(SignEvery))
		}
		if len(s.checkpoints) < 2 {
			t.Fatalf("%d checkpoints: the Logs did not run beside the appends", len(s.checkpoints))
		}
		want := newMemStore()
		want.entries = s.entries
		if err := NewLog(want, k).Integrate(ctx); err != nil {
			t.Fatal(err)
		}
		if s.hashed != 600 || !slices.Equal(s.hashes, want.hashes) {
			t.Fatalf("round %d: %d entries hashed, the stored hashes differ from one Log's", round, s.hashed)
		}
		for size, c := range s.checkpoints {
			if cp := parse(t, k, c); !bytes.Equal(cp.Hash, merkleRoot(s.entries[:size])) {
				t.Fatalf("round %d: the checkpoint of %d signs another root", round, size)
			}
		}
		raced += s.raced
	}
	if raced == 0 {
		t.Fatal("no write of the tree raced: the test proves nothing")
	}
	t.Logf("%d writes of the tree raced and were retried", raced)
}

// A checkpoint is signed when the tree grew and the latest is SignEvery old, not more often.
func TestSignCadence(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	signed := func(now time.Time) bool {
		t.Helper()
		if err := l.Integrate(ctx); err != nil {
			t.Fatal(err)
		}
		ok, err := l.Sign(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if signed(t0) {
		t.Fatal("signed an empty journal")
	}
	fill(s, 1)
	if !signed(t0) {
		t.Fatal("the first entry was not signed")
	}
	fill(s, 1)
	if signed(t0.Add(SignEvery - time.Millisecond)) {
		t.Fatal("signed twice within SignEvery")
	}
	if !signed(t0.Add(SignEvery)) {
		t.Fatal("not signed after SignEvery")
	}
	if signed(t0.Add(time.Hour)) {
		t.Fatal("signed a tree that did not grow")
	}
	if s.verifier != k.VerifierKey {
		t.Fatalf("the store keeps the verifier %q", s.verifier)
	}
}

// A server with another key than the journal's does not sign.
func TestSignOtherKey(t *testing.T) {
	ctx := context.Background()
	s := newMemStore()
	fill(s, 2)
	step(t, NewLog(s, testKey(t, "")), t0)
	fill(s, 1)
	err := NewLog(s, testKey(t, "")).Step(ctx, t0.Add(time.Hour))
	if !errors.Is(err, ErrOtherKey) {
		t.Fatalf("signing with another key: %v, want ErrOtherKey", err)
	}
	if len(s.checkpoints) != 1 {
		t.Fatalf("%d checkpoints kept", len(s.checkpoints))
	}
}

// The reads serve what the latest checkpoint signs, and no more: beyond it, not found;
// malformed, invalid.
func TestReads(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	fill(s, 5)
	if _, err := l.Checkpoint(ctx); !fault.Is(err, fault.NotFound) {
		t.Fatalf("checkpoint before the first: %v", err)
	}
	if _, err := l.Entries(ctx, 0, 1); !fault.Is(err, fault.NotFound) {
		t.Fatalf("entries before the first checkpoint: %v", err)
	}
	step(t, l, t0)
	fill(s, 2000)
	if err := l.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(ctx, 1, 5)
	if err != nil || len(got) != 4 || !bytes.Equal(got[0], s.entries[1]) || !bytes.Equal(got[3], s.entries[4]) {
		t.Fatalf("entries 1 to 4: %q, %v", got, err)
	}
	if got, err := l.Entries(ctx, 5, 5); err != nil || len(got) != 0 {
		t.Fatalf("no entries: %q, %v", got, err)
	}
	notFound := []func() error{
		func() error { _, err := l.Entries(ctx, 0, 6); return err },
		func() error { _, err := l.InclusionProof(ctx, 0, 6); return err },
		func() error { _, err := l.ConsistencyProof(ctx, 1, 6); return err },
	}
	for i, f := range notFound {
		if err := f(); !fault.Is(err, fault.NotFound) {
			t.Errorf("read %d beyond the checkpoint: %v, want not found", i, err)
		}
	}
	step(t, l, t0.Add(SignEvery))
	if _, err := l.Entries(ctx, 0, MaxEntries); err != nil {
		t.Errorf("%d entries: %v", MaxEntries, err)
	}
	invalid := []func() error{
		func() error { _, err := l.Entries(ctx, -1, 2); return err },
		func() error { _, err := l.Entries(ctx, 3, 2); return err },
		func() error { _, err := l.Entries(ctx, 0, MaxEntries+1); return err },
		func() error { _, err := l.InclusionProof(ctx, -1, 3); return err },
		func() error { _, err := l.InclusionProof(ctx, 3, 3); return err },
		func() error { _, err := l.InclusionProof(ctx, 0, 0); return err },
		func() error { _, err := l.ConsistencyProof(ctx, 0, 3); return err },
		func() error { _, err := l.ConsistencyProof(ctx, 4, 3); return err },
	}
	for i, f := range invalid {
		if err := f(); !fault.Is(err, fault.Invalid) {
			t.Errorf("malformed read %d: %v, want invalid", i, err)
		}
	}
}

// A game's proof appears once a checkpoint covers its sale, and verifies with
// transparency-dev/merkle against the root the checkpoint signs.
func TestGameProof(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	fill(s, 14) // game 7 is sold at seq 7
	step(t, l, t0)
	fill(s, 1) // game 14 at seq 14, the first entry after the checkpoint
	if err := l.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, game := range []int64{14, 99} {
		if _, ok, err := l.GameProof(ctx, game); err != nil || ok {
			t.Fatalf("game %d: a proof (%v, %v) before a checkpoint covers it", game, ok, err)
		}
	}
	step(t, l, t0.Add(SignEvery))
	for _, game := range []int64{7, 14} {
		p, ok, err := l.GameProof(ctx, game)
		if err != nil || !ok {
			t.Fatalf("game %d: no proof (%v, %v)", game, ok, err)
		}
		cp := parse(t, k, Checkpoint{Size: 15, Note: p.Checkpoint})
		if p.Index != game || !bytes.Equal(p.Entry, s.entries[game]) {
			t.Fatalf("game %d: entry %d %s", game, p.Index, p.Entry)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(p.Index), cp.Size, rfc6962.DefaultHasher.HashLeaf(p.Entry), slices2(p.Path), cp.Hash); err != nil {
			t.Fatalf("game %d: %v", game, err)
		}
	}
}
