package game

import (
	"context"
	"errors"
	"time"

	"starcolor/internal/lottery"
)

// The sweeps the background runs: the answers of old idempotency keys forgotten, abandoned games
// finished.

// KeepKeys is how long the answer to an Idempotency-Key is kept: docs/spec/API.md asks for 24 hours at least.
const KeepKeys = 48 * time.Hour

// The sweep of old keys reads this many keys at a time, and deletes at most forgetBatch of them
// in one write (see sqlite.DB.OldKeys).
const (
	sweepRead   = 5000
	forgetBatch = 512
)

// ForgetOldKeys drops the answers kept for idempotency keys older than KeepKeys, and returns how
// many it dropped. It sweeps the whole key table without holding the writer for long.
func (s *Service) ForgetOldKeys(ctx context.Context) (int64, error) {
	cutoff := s.now().Add(-KeepKeys)
	var after lottery.KeyRef
	var forgotten int64
	for {
		old, last, done, err := s.db.OldKeys(ctx, after, sweepRead, cutoff)
		if err != nil {
			return forgotten, err
		}
		for len(old) > 0 {
			n := min(len(old), forgetBatch)
			deleted, err := s.db.ForgetKeys(ctx, old[:n])
			if err != nil {
				return forgotten, err
			}
			forgotten += deleted
			old = old[n:]
		}
		if done {
			return forgotten, nil
		}
		after = last
	}
}

// FinishAbandoned finishes, as « Auto » would, the games left unfinished longer than the
// configured time (docs/spec/RULES.md §7: an abandoned reveal is completed by the system). It returns how many.
// Each is finished only if it still stands as listed and untouched since the cutoff: a game played
// meanwhile, or finished by another server's sweep, is left alone.
func (s *Service) FinishAbandoned(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.cfg.AbandonAfter)
	gs, err := s.db.Abandoned(ctx, cutoff, 500)
	if err != nil {
		return 0, err
	}
	done := 0
	for i := range gs {
		g := &gs[i]
		u := lottery.MoveUpdate{PlayerID: g.PlayerID, GameID: g.ID, Was: g.Moves(), Before: cutoff.Unix()}
		if _, err := s.move(ctx, g, Move{Finish: true}); err != nil {
			return done, err
		}
		u.Now = g.Moves()
		switch err := s.db.SaveMoves(ctx, u, s.now()); {
		case errors.Is(err, lottery.ErrMoved):
		case err != nil:
			return done, err
		default:
			s.money.finished(ctx, g)
			done++
		}
	}
	return done, nil
}
