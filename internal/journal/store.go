package journal

import (
	"context"
	"errors"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// State is where the journal stands in its store.
type State struct {
	// Size is how many entries have been appended (the next entry's seq).
	Size int64
	// Hashed is how many of them the tree's stored tiles cover (tiles.go).
	Hashed int64
	// Verifier is the note verifier key the journal's checkpoints are signed for, "" until a
	// server has signed one. A server started with another key refuses to sign: one journal
	// has one key.
	Verifier string
	// Queued is how many entries are written and not appended yet: PostgreSQL's writes queue
	// theirs for a server's sequencer (SQLite's writer appends its own).
	Queued int64
}

// Checkpoint is a signed tree head as kept.
type Checkpoint struct {
	Size     int64
	Note     []byte // the signed note's text (a C2SP tlog-checkpoint)
	SignedAt time.Time
}

// Store is what the journal needs of the game's store. The entries themselves are queued by the
// store, in the transactions of the changes they record (Pending), and appended at their seqs by
// Sequence; the tree over them and its checkpoints are built after, by Log, through these calls.
type Store interface {
	// Sequence appends the entries queued by the writes committed, in the order they were
	// queued, each sealed at its seq (Seal), and returns how many.
	Sequence(ctx context.Context) (int64, error)
	// JournalState reads where the journal stands.
	JournalState(ctx context.Context) (State, error)
	// JournalEntries reads the entries from start to end-1, each its exact bytes.
	JournalEntries(ctx context.Context, start, end int64) ([][]byte, error)
	// JournalLeaves reads the leaf hashes (Leaf) of the entries from start to end-1: what the
	// tree is built of. A store may keep an entry as its leaf alone, and rebuild its bytes.
	JournalLeaves(ctx context.Context, start, end int64) ([]tlog.Hash, error)
	// JournalTiles reads stored tiles of the tree (tiles.go), by their level and number: for
	// each, its stored hashes from the first, at least t.W of them.
	JournalTiles(ctx context.Context, tiles []tlog.Tile) ([][]byte, error)
	// AddJournalTiles stores the tiles that entries from to to-1 complete or extend, whole
	// (CheckTiles), and sets State.Hashed to to. It fails with ErrRaced, writing nothing, if
	// State.Hashed is no longer from. A stored tile is only ever extended.
	AddJournalTiles(ctx context.Context, from, to int64, tiles []tlog.Tile, data [][]byte) error
	// AddCheckpoint keeps a signed checkpoint of size entries, and the verifier key it is
	// signed for (State.Verifier is set to it if it was ""; a different one fails with
	// ErrOtherKey, writing nothing). A checkpoint of that size already kept is left as it is.
	AddCheckpoint(ctx context.Context, c Checkpoint, verifier string) error
	// LatestCheckpoint reads the checkpoint of the largest size kept (ok false: none yet).
	LatestCheckpoint(ctx context.Context) (c Checkpoint, ok bool, err error)
	// SaleEntry says which entry records a game's sale (ok false: none, a game sold before the
	// journal began).
	SaleEntry(ctx context.Context, game int64) (seq int64, ok bool, err error)
}

// The faults of the journal's store.
var (
	// ErrRaced is a write of the tree that another server made first.
	ErrRaced = errors.New("journal: the tree was extended meanwhile")
	// ErrOtherKey is a checkpoint signed with a key that is not the journal's.
	ErrOtherKey = errors.New("journal: the journal's checkpoints are signed with another key")
)
