package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/fault"
)

// The bounds of the reads and writes of the tree.
const (
	// ChunkSize is how many entries Integrate hashes per write: 4096 entries of about 300 bytes
	// are 1.2 MB read, and 16 tiles of 256 hashes (131 kB) and the partial ones above written
	// in one transaction.
	ChunkSize = 4096
	// MaxEntries is the most entries one call of Entries returns (docs/spec/API.md 1.2).
	MaxEntries = 1000
	// SignEvery is the least time between two checkpoints: a checkpoint is a signature and a
	// row, and a second is fresh enough for a reader (the spec asks for 10 s at most).
	SignEvery = time.Second
)

// Log builds the journal's tree and signs its checkpoints over a Store, and answers the reads of
// the API from them. Every server runs one; they share the tree through the store (ErrRaced), so
// one of them at a time is enough (the caller's lock on PostgreSQL) but two do no harm.
type Log struct {
	store Store
	key   *Key
	chunk int64
}

// NewLog makes the Log of a store, signing with key.
func NewLog(store Store, key *Key) *Log {
	return &Log{store: store, key: key, chunk: ChunkSize}
}

// Step is what the background loop does on each tick: integrate the entries appended since the
// last call into the tree, then sign a checkpoint if it is due.
func (l *Log) Step(ctx context.Context, now time.Time) error {
	if err := l.Integrate(ctx); err != nil {
		return err
	}
	_, err := l.Sign(ctx, now)
	return err
}

// Integrate appends the entries queued (Store.Sequence), then adds to the tree's stored tiles
// the entries appended since they were last integrated, ChunkSize entries per write, until it
// has caught up with the size it read first. A chunk another Log stored first is not an error:
// the work goes on from where that one left.
func (l *Log) Integrate(ctx context.Context) error {
	if _, err := l.store.Sequence(ctx); err != nil {
		return err
	}
	st, err := l.store.JournalState(ctx)
	if err != nil {
		return err
	}
	size, from := st.Size, st.Hashed
	for from < size {
		to := min(from+l.chunk, size)
		err := l.integrate(ctx, from, to)
		if errors.Is(err, ErrRaced) {
			if st, err = l.store.JournalState(ctx); err != nil {
				return err
			}
			from = st.Hashed
			continue
		}
		if err != nil {
			return err
		}
		from = to
	}
	return nil
}

// integrate stores the hashes of entries from to to-1.
func (l *Log) integrate(ctx context.Context, from, to int64) error {
	leaves, err := l.store.JournalLeaves(ctx, from, to)
	if err != nil {
		return err
	}
	if int64(len(leaves)) != to-from {
		return fmt.Errorf("journal: read %d leaves from %d, want %d", len(leaves), from, to-from)
	}
	// The chunk's hashes are consecutive stored hashes from base on; tlog.StoredHashes reads
	// those of the entries before it in the chunk from memory, and the older ones, the tree's
	// right edge at from, from the store, once each.
	base := tlog.StoredHashIndex(0, from)
	hashes := make([]tlog.Hash, 0, tlog.StoredHashCount(to)-base)
	older := map[int64]tlog.Hash{}
	r := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		var missing []int64
		for _, x := range indexes {
			if _, ok := older[x]; x < base && !ok {
				missing = append(missing, x)
			}
		}
		if len(missing) > 0 {
			got, err := l.readHashes(ctx, missing)
			if err != nil {
				return nil, err
			}
			for i, x := range missing {
				older[x] = got[i]
			}
		}
		for i, x := range indexes {
			if x >= base {
				if x-base >= int64(len(hashes)) {
					return nil, fmt.Errorf("journal: stored hash %d asked before it is made", x)
				}
				out[i] = hashes[x-base]
			} else {
				out[i] = older[x]
			}
		}
		return out, nil
	})
	for i, leaf := range leaves {
		h, err := tlog.StoredHashesForRecordHash(from+int64(i), leaf, r)
		if err != nil {
			return err
		}
		hashes = append(hashes, h...)
	}
	// The tiles the chunk completes or extends, each whole: a partial tile's older hashes come
	// from its stored part, through r.
	tiles := tlog.NewTiles(TileHeight, from, to)
	data := make([][]byte, len(tiles))
	for i, t := range tiles {
		if data[i], err = tlog.ReadTileData(t, r); err != nil {
			return err
		}
	}
	return l.store.AddJournalTiles(ctx, from, to, tiles, data)
}

// readHashes reads stored hashes from the store's tiles.
func (l *Log) readHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error) {
	return l.reader(ctx).ReadHashes(indexes)
}

// reader reads the tree's stored hashes from the store's tiles.
func (l *Log) reader(ctx context.Context) tlog.HashReader {
	return TileHashes(func(tiles []tlog.Tile) ([][]byte, error) { return l.store.JournalTiles(ctx, tiles) })
}

// Sign signs and keeps a checkpoint of the tree as far as it is integrated, if it grew since the
// latest checkpoint and that one is at least SignEvery old. It says whether it signed one.
// A journal whose checkpoints are signed with another key fails with ErrOtherKey.
func (l *Log) Sign(ctx context.Context, now time.Time) (bool, error) {
	st, err := l.store.JournalState(ctx)
	if err != nil {
		return false, err
	}
	if st.Verifier != "" && st.Verifier != l.key.VerifierKey {
		return false, fmt.Errorf("%w: %s, this server's is %s", ErrOtherKey, st.Verifier, l.key.VerifierKey)
	}
	latest, ok, err := l.store.LatestCheckpoint(ctx)
	if err != nil {
		return false, err
	}
	if st.Hashed == 0 || ok && (st.Hashed <= latest.Size || now.Sub(latest.SignedAt) < SignEvery) {
		return false, nil
	}
	root, err := tlog.TreeHash(st.Hashed, l.reader(ctx))
	if err != nil {
		return false, err
	}
	if ok {
		if err := l.extends(ctx, latest, st.Hashed, root); err != nil {
			return false, err
		}
	}
	body := log.Checkpoint{Origin: l.key.Origin, Size: uint64(st.Hashed), Hash: root[:]}.Marshal()
	msg, err := note.Sign(&note.Note{Text: string(body)}, l.key.Signer)
	if err != nil {
		return false, err
	}
	c := Checkpoint{Size: st.Hashed, Note: msg, SignedAt: now}
	if err := l.store.AddCheckpoint(ctx, c, l.key.VerifierKey); err != nil {
		return false, err
	}
	return true, nil
}

// ErrFork is a tree that does not extend the latest checkpoint's: its entries or its tiles
// were changed since that was signed. The Log signs no checkpoint of it.
var ErrFork = errors.New("journal: the tree does not extend the latest checkpoint's")

// extends checks that the tree of size entries and root extends the latest checkpoint's, by the
// consistency proof its own tiles give. Signing a tree that does not would sign a fork, whose
// checkpoints contradict those kept by the readers: rather stop, for ledger check to name the
// entries changed.
func (l *Log) extends(ctx context.Context, latest Checkpoint, size int64, root tlog.Hash) error {
	old, oldRoot, err := OpenCheckpoint(latest.Note, l.key.Verifier)
	if err != nil {
		return fmt.Errorf("journal: the latest checkpoint: %w", err)
	}
	if old != latest.Size {
		return fmt.Errorf("journal: the latest checkpoint signs %d entries, kept as %d", old, latest.Size)
	}
	p, err := tlog.ProveTree(size, old, l.reader(ctx))
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(p, size, root, old, oldRoot); err != nil {
		return fmt.Errorf("%w (%d entries, then %d): %v", ErrFork, old, size, err)
	}
	return nil
}

// Checkpoint is the latest checkpoint; a fault.NotFound before the first.
func (l *Log) Checkpoint(ctx context.Context) (Checkpoint, error) {
	c, ok, err := l.store.LatestCheckpoint(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	if !ok {
		return Checkpoint{}, fault.Errorf(fault.NotFound, "the journal has no signed checkpoint yet")
	}
	return c, nil
}

// within checks that a tree size is that of the latest checkpoint or below: the API serves only
// what a checkpoint signs, so that a reader can check every answer against one.
func (l *Log) within(ctx context.Context, size int64, what string) (Checkpoint, error) {
	c, err := l.Checkpoint(ctx)
	if err != nil {
		return c, err
	}
	if size > c.Size {
		return c, fault.Errorf(fault.NotFound, "%s %d is beyond the latest checkpoint's size, %d", what, size, c.Size)
	}
	return c, nil
}

// Entries reads the entries from start to end-1, each its exact bytes: at most MaxEntries, all
// within the latest checkpoint.
func (l *Log) Entries(ctx context.Context, start, end int64) ([][]byte, error) {
	switch {
	case start < 0 || end < start:
		return nil, fault.Errorf(fault.Invalid, "entries from %d to %d: want 0 ≤ start ≤ end", start, end)
	case end-start > MaxEntries:
		return nil, fault.Errorf(fault.Invalid, "entries from %d to %d: at most %d a call", start, end, MaxEntries)
	}
	if _, err := l.within(ctx, end, "end"); err != nil {
		return nil, err
	}
	if start == end {
		return [][]byte{}, nil
	}
	return l.store.JournalEntries(ctx, start, end)
}

// InclusionProof is the RFC 6962 audit path of entry index in the tree of size entries.
func (l *Log) InclusionProof(ctx context.Context, index, size int64) (tlog.RecordProof, error) {
	if index < 0 || size <= index {
		return nil, fault.Errorf(fault.Invalid, "the proof of entry %d in a tree of %d: want 0 ≤ index < size", index, size)
	}
	if _, err := l.within(ctx, size, "size"); err != nil {
		return nil, err
	}
	return tlog.ProveRecord(size, index, l.reader(ctx))
}

// ConsistencyProof is the RFC 6962 proof that the tree of old entries is a prefix of the tree
// of new entries.
func (l *Log) ConsistencyProof(ctx context.Context, old, new int64) (tlog.TreeProof, error) {
	if old < 1 || new < old {
		return nil, fault.Errorf(fault.Invalid, "the consistency of trees of %d and %d: want 1 ≤ old ≤ new", old, new)
	}
	if _, err := l.within(ctx, new, "new"); err != nil {
		return nil, err
	}
	return tlog.ProveTree(new, old, l.reader(ctx))
}

// GameProof is a game's sale in the journal: its entry, the checkpoint that covers it and the
// entry's audit path in that checkpoint's tree.
type GameProof struct {
	Index      int64
	Entry      []byte
	Checkpoint []byte // the signed note's text
	Path       tlog.RecordProof
}

// GameProof proves a game's sale entry in the tree of the latest checkpoint. ok is false for a
// game with no sale entry (sold before the journal began) and until a checkpoint covers it.
func (l *Log) GameProof(ctx context.Context, game int64) (p GameProof, ok bool, err error) {
	seq, ok, err := l.store.SaleEntry(ctx, game)
	if err != nil || !ok {
		return GameProof{}, false, err
	}
	c, ok, err := l.store.LatestCheckpoint(ctx)
	if err != nil || !ok || seq >= c.Size {
		return GameProof{}, false, err
	}
	entries, err := l.store.JournalEntries(ctx, seq, seq+1)
	if err != nil {
		return GameProof{}, false, err
	}
	if len(entries) != 1 {
		return GameProof{}, false, fmt.Errorf("journal: no entry %d, the sale of game %d", seq, game)
	}
	path, err := tlog.ProveRecord(c.Size, seq, l.reader(ctx))
	if err != nil {
		return GameProof{}, false, err
	}
	return GameProof{Index: seq, Entry: entries[0], Checkpoint: c.Note, Path: path}, true, nil
}
