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
	"starcolor/internal/rules"
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
	return s.prove(ctx, &g)
}

// Replay is a game played again from its unit and its stored moves, for a dispute: every star
// revealed in order, the boards as the player saw them, and its proof once finished.
type Replay struct {
	Game   lottery.Game
	Events []rules.Event
	Boards []ReplayBoard
	Won    int64  // what the reveals add up to, in cents: the game's prize once finished
	Proof  *Proof // nil until the game is finished
}

// ReplayBoard is a board as shown for the chosen colour, and which step revealed each cell (0:
// none).
type ReplayBoard struct {
	Board *rules.Board
	Step  [rules.Cells]int
}

// Replay plays a game again for the back office, whoever its player.
func (s *Service) Replay(ctx context.Context, id int64) (*Replay, error) {
	g, err := s.db.GameByID(ctx, id)
	if err != nil {
		return nil, err
	}
	play, err := s.replay(ctx, &g)
	if errors.Is(err, emission.ErrCorrupt) {
		return nil, corruptUnits(err)
	}
	if err != nil {
		return nil, err
	}
	out := &Replay{Game: g, Events: play.Events(), Won: play.Won()}
	for n := 1; n <= play.Boards(); n++ {
		b, _ := play.Board(n)
		rb := ReplayBoard{Board: b}
		for i, e := range out.Events {
			if e.Board == n && rb.Step[e.Cell] == 0 {
				rb.Step[e.Cell] = i + 1
			}
		}
		out.Boards = append(out.Boards, rb)
	}
	if g.Status == lottery.Finished {
		if out.Proof, err = s.prove(ctx, &g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// prove is the proof of a finished game.
func (s *Service) prove(ctx context.Context, g *lottery.Game) (*Proof, error) {
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
