package game

import (
	"context"
	"errors"
	"fmt"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Proofs: a finished game's unit line, with its RFC 6962 inclusion proof.

// Proof is a finished game's unit line and its RFC 6962 inclusion proof (docs/spec/API.md).
type Proof struct {
	Emission string   `json:"emission"`
	Block    int      `json:"block"`
	Index    int      `json:"index"`
	Line     string   `json:"line"`
	Root     string   `json:"root"`
	Path     []string `json:"path"`
}

// Prove returns the proof of a finished game's unit.
func (s *Service) Prove(ctx context.Context, p Player, id int64) (*Proof, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if g.Status != lottery.Finished {
		return nil, fault.Errorf(fault.InvalidMove, "the proof is given once the game is finished")
	}
	r, err := s.units.reader(ctx, g.Emission)
	if err != nil {
		return nil, err
	}
	pr, err := r.Prove(ctx, g.Block, g.Unit)
	if errors.Is(err, emission.ErrCorrupt) {
		return nil, corruptUnits(err)
	}
	if err != nil {
		return nil, err
	}
	out := &Proof{Emission: g.Emission, Block: g.Block, Index: g.Unit, Line: string(pr.Line), Root: fmt.Sprintf("%x", pr.Root), Path: []string{}}
	for _, h := range pr.Path {
		out.Path = append(out.Path, fmt.Sprintf("%x", h))
	}
	return out, nil
}
