package game

import (
	"context"
	"errors"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
)

// The unit cache: one reader per emission for the server's life. Every page of units it reads is
// checked against the emission's commitment.

// unit reads a unit of an emission, checked against its commitment; a unit that fails its
// check is a 503, never a prize.
func (s *Service) unit(ctx context.Context, id string, block, index int) (audit.Record, error) {
	r, err := s.readerOf(ctx, id)
	if err != nil {
		return audit.Record{}, err
	}
	rec, err := r.Unit(ctx, block, index)
	if errors.Is(err, emission.ErrCorrupt) {
		return rec, corruptUnits(err)
	}
	return rec, err
}

// readerOf is the reader of an emission's units: one per emission for the server's life, its
// checked pages cached (64: sales read a page once for its 256 units, replays find recent ones).
func (s *Service) readerOf(ctx context.Context, id string) (*emission.Reader, error) {
	s.mu.Lock()
	r := s.reader[id]
	s.mu.Unlock()
	if r != nil {
		return r, nil
	}
	e, err := s.db.Emission(ctx, id)
	if err != nil {
		return nil, err
	}
	if r, err = emission.NewReaderWith(e, s.db, emission.ReaderConfig{CachePages: 64, OnCorrupt: s.onCorrupt}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if first := s.reader[id]; first != nil {
		return first, nil // another request made it meanwhile
	}
	s.reader[id] = r
	return r, nil
}
