package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
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

// storedOK checks that every stored hash of the tree of s's entries, as tlog makes them in
// memory, reads back the same through s's tiles.
func storedOK(t *testing.T, s *memStore) {
	t.Helper()
	var all []tlog.Hash
	mem := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = all[x]
		}
		return out, nil
	})
	for i, e := range s.entries {
		h, err := tlog.StoredHashes(int64(i), e, mem)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, h...)
	}
	indexes := make([]int64, len(all))
	for i := range indexes {
		indexes[i] = int64(i)
	}
	got, err := TileHashes(func(tiles []tlog.Tile) ([][]byte, error) { return s.JournalTiles(context.Background(), tiles) }).ReadHashes(indexes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, all) {
		t.Fatalf("the %d stored hashes of %d entries read back otherwise from the tiles", len(all), len(s.entries))
	}
}

// The tree's stored tiles hold every stored hash, as tlog makes them, and are the same however
// the entries are cut into chunks and whenever they are integrated: one entry at a time, in
// chunks that cross the powers of two and the tiles' edges, or at once.
func TestIntegrateChunks(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	const n = 300
	one := newMemStore()
	fill(one, n)
	if err := NewLog(one, k).Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	storedOK(t, one)
	// 300 entries: a full tile and one of 44 leaves' hashes, and a tile of 1 above them.
	if one.hashed != n || len(one.tiles) != 3 || len(one.tiles[tileKey{0, 1}]) != 44*tlog.HashSize || len(one.tiles[tileKey{1, 0}]) != tlog.HashSize {
		t.Fatalf("%d entries hashed into %d tiles", one.hashed, len(one.tiles))
	}
	for _, chunk := range []int64{1, 2, 3, 5, 63, 64, 65, 255, 256, 257, 1000} {
		for _, every := range []int{1, 7, 100, 256, n} {
			s := newMemStore()
			l := NewLog(s, k)
			l.chunk = chunk
			for len(s.entries) < n {
				fill(s, min(every, n-len(s.entries)))
				if err := l.Integrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if !maps.EqualFunc(s.tiles, one.tiles, bytes.Equal) {
				t.Fatalf("chunks of %d, integrated every %d entries: other stored tiles", chunk, every)
			}
		}
	}
}

// A tree of three levels of tiles (more than 2^16 entries), integrated in chunks that end
// anywhere, holds every stored hash, and proves its records against tlog's own root.
func TestIntegrateTileLevels(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	r := rand.New(rand.NewPCG(3, 4))
	for len(s.entries) < 1<<16+700 {
		fill(s, 1+r.IntN(3000))
		if err := l.Integrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	storedOK(t, s)
	n := int64(len(s.entries))
	if _, ok := s.tiles[tileKey{2, 0}]; !ok {
		t.Fatalf("%d entries and no tile of level 2", n)
	}
	root, err := tlog.TreeHash(n, l.reader(ctx))
	if err != nil || !bytes.Equal(root[:], merkleRoot(s.entries)) {
		t.Fatalf("the root from the tiles %x (%v), want transparency-dev's", root, err)
	}
	for _, i := range []int64{0, 255, 256, 65535, 65536, n - 1} {
		p, err := tlog.ProveRecord(n, i, l.reader(ctx))
		if err != nil || tlog.CheckRecord(p, n, root, i, tlog.RecordHash(s.entries[i])) != nil {
			t.Fatalf("the proof of entry %d: %v", i, err)
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
		if s.hashed != 600 || !maps.EqualFunc(s.tiles, want.tiles, bytes.Equal) {
			t.Fatalf("round %d: %d entries hashed, the stored tiles differ from one Log's", round, s.hashed)
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

// A Log signs no checkpoint of a tree that does not extend the latest one's: a tile changed
// under it since, say by whoever holds the database, stops the signing with ErrFork.
func TestSignRefusesFork(t *testing.T) {
	ctx := context.Background()
	k := testKey(t, "")
	s := newMemStore()
	l := NewLog(s, k)
	fill(s, 300)
	step(t, l, t0)
	fill(s, 10)
	step(t, l, t0.Add(SignEvery))  // the tree extends the checkpoint of 300
	s.tiles[tileKey{0, 1}][5] ^= 1 // a hash of the tree of 310, in the partial tile of the leaves 256 on
	fill(s, 10)
	if err := l.Step(ctx, t0.Add(2*SignEvery)); !errors.Is(err, ErrFork) {
		t.Fatalf("a checkpoint signed over a changed tile: %v", err)
	}
	if c, _, _ := s.LatestCheckpoint(ctx); c.Size != 310 {
		t.Fatalf("the latest checkpoint is of %d entries, want 310", c.Size)
	}
}
