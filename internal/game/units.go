package game

import (
	"context"
	"errors"
	"sync"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// The unit cache: one reader per emission for the server's life. Every page of units it reads is
// checked against the emission's commitment; what fails is told to the integrity record.

// units is the unit cache. It is also the reader of the units a sale asks for in the store's turn
// (lottery.Prizes).
type units struct {
	db        store.Emissions
	onCorrupt func(*emission.Corrupt) // told once of each page found corrupt (integrity.go)

	mu      sync.Mutex
	readers map[string]*emission.Reader
}

func newUnits(db store.Emissions, onCorrupt func(*emission.Corrupt)) *units {
	return &units{db: db, onCorrupt: onCorrupt, readers: map[string]*emission.Reader{}}
}

// Unit reads the prize of a unit, checked against its emission's commitment, and the leaf hash
// of its audit line, which the sale's journal entry names: its page's check made it.
func (u *units) Unit(ctx context.Context, emission string, block, unit int) (lottery.SoldUnit, error) {
	rec, leaf, err := u.unit(ctx, emission, block, unit)
	if err != nil {
		return lottery.SoldUnit{}, err
	}
	return lottery.SoldUnit{Prize: rec.Prize, Leaf: leaf}, nil
}

// unit reads a unit of an emission, checked against its commitment, with its leaf hash; a unit
// that fails its check is a 503, never a prize.
func (u *units) unit(ctx context.Context, id string, block, index int) (audit.Record, audit.Hash, error) {
	r, err := u.reader(ctx, id)
	if err != nil {
		return audit.Record{}, audit.Hash{}, err
	}
	rec, leaf, err := r.UnitLeaf(ctx, block, index)
	if errors.Is(err, emission.ErrCorrupt) {
		return rec, leaf, corruptUnits(err)
	}
	return rec, leaf, err
}

// reader is the reader of an emission's units, made at its first use. Its checked pages are
// cached (64: sales read a page once for its 256 units, replays find recent ones).
func (u *units) reader(ctx context.Context, id string) (*emission.Reader, error) {
	u.mu.Lock()
	r := u.readers[id]
	u.mu.Unlock()
	if r != nil {
		return r, nil
	}
	e, err := u.db.Emission(ctx, id)
	if err != nil {
		return nil, err
	}
	if r, err = emission.NewReaderWith(e, u.db, emission.ReaderConfig{CachePages: 64, OnCorrupt: u.onCorrupt}); err != nil {
		return nil, err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if first := u.readers[id]; first != nil {
		return first, nil // another request made it meanwhile
	}
	u.readers[id] = r
	return r, nil
}
