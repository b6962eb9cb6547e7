// Package emission is the emission maths: the immutable blocks of units sold at one price, drawn
// in a cryptographically secure order, each committed by the RFC 6962 root of its audit lines
// (docs/spec/RULES.md §6, §8). It builds blocks, reads any unit back in constant time, proves a unit against
// its block's root, exports a block for auditors and reports on what an emission holds (the
// report's picture is internal/chart's). Storage is not its business: it reads and writes pages
// through the small interfaces below.
package emission

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
)

// Emission is an immutable set of blocks of units sold at one price (docs/spec/RULES.md §6).
type Emission struct {
	ID         string
	Price      int64 // cents
	Definition string
	Table      gamedef.Table // the table it was made with, kept whole so the emission stands alone
	CreatedAt  time.Time
	// OnSaleAt is when its sales open, if after CreatedAt (docs/spec/OPERATOR.md: scheduled until
	// then); zero, at its creation. The store keeps it, not the commitment: no unit depends on it.
	OnSaleAt time.Time
	Blocks   []Block
}

// Scheduled says whether the emission was made to open after its creation.
func (e *Emission) Scheduled() bool { return e.OnSaleAt.After(e.CreatedAt) }

// SalesOpen is when its sales open.
func (e *Emission) SalesOpen() time.Time {
	if e.Scheduled() {
		return e.OnSaleAt
	}
	return e.CreatedAt
}

// Block is one block of an emission: its units, its commitment and its sales.
type Block struct {
	Index      int
	Units      int
	Root       audit.Hash
	PageHashes []audit.Hash // the root of each page's subtree, in order
	Sold       int
}

// Page is the stored form of up to PageUnits consecutive units of a block.
type Page struct {
	Block, Index, Units int
	Data                []byte
}

// Pages is where an emission's pages are read from.
type Pages interface {
	Page(ctx context.Context, emission string, block, page int) ([]byte, error)
}

// ErrInvalid is input that cannot make an emission.
var ErrInvalid = errors.New("invalid emission")

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckID verifies an emission id: 1 to 64 letters, digits, '.', '_' or '-', starting with a
// letter or digit, so that it is safe in file names, URLs and logs.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: id %q must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrInvalid, id)
	}
	return nil
}

// Units is the number of units of the emission.
func (e *Emission) Units() int {
	n := 0
	for _, b := range e.Blocks {
		n += b.Units
	}
	return n
}

// Sold is the number of units of the emission sold so far.
func (e *Emission) Sold() int {
	n := 0
	for _, b := range e.Blocks {
		n += b.Sold
	}
	return n
}

// Block returns block k, or an error naming the blocks there are.
func (e *Emission) Block(k int) (*Block, error) {
	if k < 0 || k >= len(e.Blocks) {
		return nil, fmt.Errorf("%w: emission %s has no block %d (blocks 0 to %d)", ErrNotFound, e.ID, k, len(e.Blocks)-1)
	}
	return &e.Blocks[k], nil
}

// ErrNotFound is an emission, block or unit that does not exist.
var ErrNotFound = errors.New("not found")

// ErrUnsold is a block whose units may not leave the store yet: some are still for sale.
var ErrUnsold = errors.New("not sold out")

// Exportable says whether block k's units may leave the store as a whole, in sale order (its
// audit export, or any listing of its units): only once every unit is sold. docs/spec/RULES.md §6: no unit's
// content is visible through any interface before that unit is sold. With the public count of
// units sold, the export of a block on sale would tell anyone who reads it the next prizes, the
// top one included.
//
// Before a block is sold, its commitment (the root) is public, and an auditor checks it by
// rebuilding the emission from its seed (starcolor emission derive), never from the live order.
func (e *Emission) Exportable(k int) error {
	b, err := e.Block(k)
	if err != nil {
		return err
	}
	if left := b.Units - b.Sold; left > 0 {
		return fmt.Errorf("%w: block %d of emission %s still has %d of its %d units for sale, and its export would show them in sale order; a block exports once sold out (to check it before, rebuild it from its seed: starcolor emission derive)",
			ErrUnsold, k, e.ID, left, b.Units)
	}
	return nil
}

func pagesOf(units int) int { return (units + PageUnits - 1) / PageUnits }

func pageUnits(units, page int) int { return min(PageUnits, units-page*PageUnits) }
