package emission

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"starcolor/internal/gamedef"
)

// Order is an emission to be made: its id, its game definition and price, how many blocks, the
// seed its units are drawn from, and when it is made, by the caller's clock.
type Order struct {
	ID         string
	Definition *gamedef.Definition
	Price      int64 // cents
	Blocks     int
	Seed       [SeedSize]byte
	CreatedAt  time.Time
	OnSaleAt   time.Time // when its sales open, if after CreatedAt: scheduled until then (zero: at once)
	Progress   Progress  // told as units are made; nil for none
	Words      io.Writer // given the generator's words that drew the sale orders (Plan.Words); nil for none
}

// Write is a store's write of a new emission (CreateEmission, or CreateEmissionStaged while the
// game sells): the emission's row, then every page build hands it, all or nothing. It sets
// e.Blocks to the blocks build returns.
type Write func(ctx context.Context, e *Emission, seed [SeedSize]byte, build func(put func(Page) error) ([]Block, error)) error

// NewSeed draws an emission's seed from crypto/rand.
func NewSeed() [SeedSize]byte {
	var seed [SeedSize]byte
	rand.Read(seed[:])
	return seed
}

// Create makes the emission an order asks for, through write, its only write: the command line's
// emission create and derive, the back office's creation and the emissions a server makes at
// start all come here. An order that cannot make an emission is ErrInvalid, and nothing is
// written.
func Create(ctx context.Context, write Write, o Order) (*Emission, error) {
	if err := CheckID(o.ID); err != nil {
		return nil, err
	}
	if o.Definition == nil {
		return nil, fmt.Errorf("%w: no game definition", ErrInvalid)
	}
	table, err := o.Definition.Table(o.Price)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if o.Blocks <= 0 {
		return nil, fmt.Errorf("%w: %d blocks; an emission has at least one", ErrInvalid, o.Blocks)
	}
	e := &Emission{ID: o.ID, Price: o.Price, Definition: o.Definition.Version, Table: *table, CreatedAt: o.CreatedAt, OnSaleAt: o.OnSaleAt}
	plan := Plan{Definition: o.Definition, Price: o.Price, Blocks: o.Blocks, Seed: o.Seed, Words: o.Words}
	err = write(ctx, e, o.Seed, func(put func(Page) error) ([]Block, error) {
		return Build(ctx, plan, put, o.Progress)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}
