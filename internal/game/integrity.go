package game

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
)

// The store is checked against the emissions' commitments as it is read: every page of units
// read for a sale, a replay or a proof is checked once (emission.Reader), and a page that fails is
// never sold or paid. What is found is kept here, told loudly (an error in the log, the
// server's metrics, /healthz), and the sales at its price refused (503) until the operator
// repairs the store (a copy restored) and restarts the server.

// integrity is what has been found wrong with the store.
type integrity struct {
	mu       sync.Mutex
	problems map[string]bool // each told once
	corrupt  int             // pages and block commitments of units
	damaged  bool            // the database file: no money moves until it is repaired
}

// retryCorrupt is the wait told with a refusal for corrupt units: a repair takes an operator.
const retryCorrupt = time.Minute

// corruptUnits is what a player is told of units that failed their check.
func corruptUnits(err error) error {
	return &fault.Error{Code: fault.Unavailable, RetryAfter: retryCorrupt, Cause: err,
		Message: "the units on sale at this stake, or this game's unit, failed their integrity check: none is sold or shown until the operator has repaired the store"}
}

// found records a problem, and logs it the first time.
func (s *Service) found(problem string, corruptUnits bool, err error) {
	s.integ.mu.Lock()
	known := s.integ.problems[problem]
	if !known {
		if s.integ.problems == nil {
			s.integ.problems = map[string]bool{}
		}
		s.integ.problems[problem] = true
		if corruptUnits {
			s.integ.corrupt++
		} else {
			s.integ.damaged = true
		}
	}
	s.integ.mu.Unlock()
	if !known {
		s.log.Error("the store is damaged: "+problem, "err", err)
	}
}

// onCorrupt is told by the emission readers of each page (or block commitment) found corrupt.
func (s *Service) onCorrupt(c *emission.Corrupt) {
	s.found(c.Error()+": its units are never sold nor paid until the store is repaired", true, c)
}

// damagedStore refuses to move money while the database file is known to be damaged: the
// books themselves may be, and no stake or payment is taken on books that cannot be trusted. Reads
// and the moves of games already sold go on while they can.
func (s *Service) damagedStore() error {
	s.integ.mu.Lock()
	defer s.integ.mu.Unlock()
	if s.integ.damaged {
		return fault.Retry(fault.Unavailable, retryCorrupt, "the store is damaged: no money moves (sales, deposits, withdrawals) until the operator has repaired it")
	}
	return nil
}

// Problems lists what has been found wrong with the store, in order.
func (s *Service) Problems() []string {
	s.integ.mu.Lock()
	defer s.integ.mu.Unlock()
	out := make([]string, 0, len(s.integ.problems))
	for p := range s.integ.problems {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// CorruptUnits counts the pages of units (and block commitments) found not to match their
// commitment.
func (s *Service) CorruptUnits() int {
	s.integ.mu.Lock()
	defer s.integ.mu.Unlock()
	return s.integ.corrupt
}

// CheckStore checks the whole store, beside the server's work: first the database file's
// structure (Store.CheckFile: SQLite's quick_check, a read of the whole file), then every page of units of every
// emission against its commitment (the pages of open blocks first, one page at a time with a
// rest after each, so that sales keep the machine). What it finds is recorded as the reads'
// findings are; it returns how many pages it checked.
func (s *Service) CheckStore(ctx context.Context, pause time.Duration) (int, error) {
	damage, err := s.db.CheckFile(ctx)
	if err != nil {
		if fault.CodeOf(err) != fault.Unavailable {
			return 0, err
		}
		damage = []string{err.Error()} // the check itself could not read the file
	}
	if len(damage) > 0 {
		s.found("the database file is damaged: "+summary(damage), false, errors.New(strings.Join(damage, "\n")))
	}
	es, err := s.db.Emissions(ctx)
	if err != nil {
		return 0, err
	}
	// Open blocks first: their units are the ones about to be sold.
	slices.SortStableFunc(es, func(a, b *emission.Emission) int {
		return boolOrder(a.Sold() < a.Units(), b.Sold() < b.Units())
	})
	pages := 0
	for _, e := range es {
		r, err := s.units.reader(ctx, e.ID)
		if err != nil {
			return pages, err
		}
		corrupt, err := r.Verify(ctx, 1, pause)
		for _, c := range corrupt {
			s.onCorrupt(c)
		}
		if err != nil {
			return pages, fmt.Errorf("emission %s: %w", e.ID, err)
		}
		for _, b := range e.Blocks {
			pages += (b.Units + emission.PageUnits - 1) / emission.PageUnits
		}
	}
	return pages, nil
}

// summary is the first lines of what SQLite's check says, with how many more there are.
func summary(report []string) string {
	var lines []string
	for _, r := range report {
		for _, l := range strings.Split(r, "\n") {
			if l != "" && !strings.HasPrefix(l, "***") {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > 3 {
		return fmt.Sprintf("%s; and %d more (see starcolor ledger check)", strings.Join(lines[:3], "; "), len(lines)-3)
	}
	return strings.Join(lines, "; ")
}

// boolOrder puts true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
