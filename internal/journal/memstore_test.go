package journal

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// memStore is a journal Store in memory, for the tests of this package: a real one, with the
// contract of Store (ErrRaced, ErrOtherKey, a checkpoint kept once), that yields between its
// calls so that two Logs on it interleave.
type memStore struct {
	mu          sync.Mutex
	key         AccountKey
	entries     [][]byte
	tiles       map[tileKey][]byte
	hashed      int64
	verifier    string
	checkpoints map[int64]Checkpoint
	sales       map[int64]int64
	raced       int // AddJournalTiles refused with ErrRaced
	queue       []memQueued
}

// tileKey is a tile as a store keeps it: its level and number.
type tileKey struct {
	l int
	n int64
}

// memQueued is an entry queued, as a store's journal_queue keeps it.
type memQueued struct {
	pending []byte
	account int64
	game    int64 // a sale's
}

func newMemStore() *memStore {
	s := &memStore{checkpoints: map[int64]Checkpoint{}, sales: map[int64]int64{}, tiles: map[tileKey][]byte{}}
	copy(s.key[:], "the tests' journal account key..")
	return s
}

// append queues events, as a store does in the transaction of their change, and appends them
// at once, so that the tests see them as the sequencer will have appended them.
func (s *memStore) append(at time.Time, evs ...Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range evs {
		q := memQueued{pending: Pending(at, ev), account: ev.Account()}
		if sale, ok := ev.(Sale); ok {
			q.game = sale.Game
		}
		s.queue = append(s.queue, q)
	}
	if _, err := s.sequence(); err != nil {
		panic(err)
	}
}

func (s *memStore) Sequence(ctx context.Context) (int64, error) {
	defer s.lock()()
	return s.sequence()
}

func (s *memStore) sequence() (int64, error) {
	for _, q := range s.queue {
		seq := int64(len(s.entries))
		e, err := Seal(q.pending, uint64(seq), q.account, &s.key)
		if err != nil {
			return 0, err
		}
		s.entries = append(s.entries, e)
		if q.game != 0 {
			s.sales[q.game] = seq
		}
	}
	n := int64(len(s.queue))
	s.queue = nil
	return n, nil
}

func (s *memStore) lock() func() {
	runtime.Gosched()
	s.mu.Lock()
	return s.mu.Unlock
}

func (s *memStore) JournalState(ctx context.Context) (State, error) {
	defer s.lock()()
	return State{Size: int64(len(s.entries)), Hashed: s.hashed, Verifier: s.verifier}, nil
}

func (s *memStore) JournalEntries(ctx context.Context, start, end int64) ([][]byte, error) {
	defer s.lock()()
	if start < 0 || end < start || end > int64(len(s.entries)) {
		return nil, fmt.Errorf("memstore: entries %d to %d of %d", start, end, len(s.entries))
	}
	out := make([][]byte, end-start)
	for i := range out {
		out[i] = append([]byte(nil), s.entries[start+int64(i)]...)
	}
	return out, nil
}

func (s *memStore) JournalLeaves(ctx context.Context, start, end int64) ([]tlog.Hash, error) {
	entries, err := s.JournalEntries(ctx, start, end)
	out := make([]tlog.Hash, len(entries))
	for i, e := range entries {
		out[i] = Leaf(e)
	}
	return out, err
}

func (s *memStore) JournalTiles(ctx context.Context, tiles []tlog.Tile) ([][]byte, error) {
	defer s.lock()()
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		d := s.tiles[tileKey{t.L, t.N}]
		if len(d) < t.W*tlog.HashSize {
			return nil, fmt.Errorf("memstore: tile %s holds %d bytes", t.Path(), len(d))
		}
		out[i] = append([]byte(nil), d...)
	}
	return out, nil
}

func (s *memStore) AddJournalTiles(ctx context.Context, from, to int64, tiles []tlog.Tile, data [][]byte) error {
	defer s.lock()()
	if from != s.hashed {
		s.raced++
		return ErrRaced
	}
	if to < from || to > int64(len(s.entries)) {
		return fmt.Errorf("memstore: hashes of entries %d to %d of %d", from, to, len(s.entries))
	}
	if err := CheckTiles(from, to, tiles, data); err != nil {
		return err
	}
	for i, t := range tiles {
		k := tileKey{t.L, t.N}
		if old := s.tiles[k]; !bytes.HasPrefix(data[i], old) {
			return fmt.Errorf("memstore: tile %s changed", t.Path())
		}
		s.tiles[k] = append([]byte(nil), data[i]...)
	}
	s.hashed = to
	return nil
}

func (s *memStore) AddCheckpoint(ctx context.Context, c Checkpoint, verifier string) error {
	defer s.lock()()
	if s.verifier != "" && s.verifier != verifier {
		return ErrOtherKey
	}
	s.verifier = verifier
	if _, ok := s.checkpoints[c.Size]; !ok {
		s.checkpoints[c.Size] = c
	}
	return nil
}

func (s *memStore) LatestCheckpoint(ctx context.Context) (Checkpoint, bool, error) {
	defer s.lock()()
	var latest Checkpoint
	ok := false
	for _, c := range s.checkpoints {
		if !ok || c.Size > latest.Size {
			latest, ok = c, true
		}
	}
	return latest, ok, nil
}

func (s *memStore) SaleEntry(ctx context.Context, game int64) (int64, bool, error) {
	defer s.lock()()
	seq, ok := s.sales[game]
	return seq, ok, nil
}
