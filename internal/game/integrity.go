package game

import (
	"context"
	"errors"
	"slices"
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

// UnitReader is this server's reader of an emission's units: what the store's check finds
// corrupt through it is never sold nor paid, as what the sales find.
func (s *Service) UnitReader(ctx context.Context, e *emission.Emission) (*emission.Reader, error) {
	return s.units.reader(ctx, e.ID)
}

// CorruptFound records units that the store's check found not to match their commitment.
func (s *Service) CorruptFound(c *emission.Corrupt) { s.onCorrupt(c) }

// DamageFound records what the store's check found wrong with the books, the journal or the
// database file: from then on no money moves (damagedStore).
func (s *Service) DamageFound(problem string) { s.found(problem, false, errors.New(problem)) }
