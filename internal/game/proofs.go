package game

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// Proofs: a finished game's unit line, with its RFC 6962 inclusion proof, and its sale in the
// journal once a signed checkpoint covers it.

// Proof is a finished game's unit line and its RFC 6962 inclusion proof (docs/spec/API.md), and
// its sale's entry in the journal (docs/spec/API.md 1.2) once a checkpoint signs it.
type Proof struct {
	Emission string        `json:"emission"`
	Block    int           `json:"block"`
	Index    int           `json:"index"`
	Line     string        `json:"line"`
	Root     string        `json:"root"`
	Path     []string      `json:"path"`
	Journal  *JournalProof `json:"journal,omitempty"`
}

// JournalProof is a game's sale in the journal: its entry's exact bytes, the signed checkpoint
// that covers it, and the entry's RFC 6962 audit path in that checkpoint's tree.
type JournalProof struct {
	Index      int64    `json:"index"`
	Entry      string   `json:"entry"`
	Checkpoint string   `json:"checkpoint"`
	Path       []string `json:"path"`
}

// SaleJournal proves a game's sale in the journal (journal.Log). ok is false while no signed
// checkpoint covers the sale, and for a game sold before the journal began.
type SaleJournal interface {
	GameProof(ctx context.Context, game int64) (p journal.GameProof, ok bool, err error)
}

// WithJournal makes the proofs carry the game's sale in the journal.
func (s *Service) WithJournal(j SaleJournal) { s.journal = j }

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
	if s.journal != nil {
		jp, ok, err := s.journal.GameProof(ctx, g.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Journal = &JournalProof{Index: jp.Index, Entry: string(jp.Entry), Checkpoint: string(jp.Checkpoint), Path: []string{}}
			for _, h := range jp.Path {
				// hex of the bytes: a tlog.Hash formats itself in base64.
				out.Journal.Path = append(out.Journal.Path, hex.EncodeToString(h[:]))
			}
		}
	}
	return out, nil
}
