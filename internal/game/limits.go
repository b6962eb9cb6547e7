package game

import (
	"context"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Weekly limits (docs/spec/API.md 1.1; décret 2010-518 art. 16): a player sets a limit on their deposits
// and one on their stakes over a rolling week before their first deposit and first stake; a
// lowering holds at once, a raise 48 hours later. The store checks them in the deposit's and the
// sale's own atomic step, so concurrent requests cannot pass a limit together.

// Limits are the player's limits as they hold now, with their deposits and stakes of the week.
func (s *Service) Limits(ctx context.Context, p Player) (lottery.Limits, error) {
	if err := s.money.accounts(); err != nil {
		return lottery.Limits{}, err
	}
	return s.db.Limits(ctx, p.ID, s.now())
}

// SetLimits changes the player's limits (any of them) and keeps each change of a limit; it
// returns the limits after it.
func (s *Service) SetLimits(ctx context.Context, p Player, c lottery.LimitsChange) (lottery.Limits, error) {
	if err := s.money.accounts(); err != nil {
		return lottery.Limits{}, err
	}
	l, err := s.db.SetLimits(ctx, p.ID, c, "player", s.now())
	if errors.Is(err, lottery.ErrLimitAmount) || errors.Is(err, lottery.ErrRealityCheck) {
		return l, fault.Errorf(fault.Invalid, "%v", err)
	}
	return l, err
}

// PlaySession is the player's play session (docs/spec/API.md 1.1, its reality checks): begun when the
// earliest of their sessions still live was opened, with the stakes and prizes of the games sold
// since, on any device. A session is live as the session manager counts it: used within the
// idle timeout, and younger than its lifetime.
func (s *Service) PlaySession(ctx context.Context, p Player) (lottery.PlaySession, error) {
	idle, young := s.live()
	return s.db.PlaySession(ctx, p.ID, idle, young)
}

// AnswerRealityCheck records that the player answered « Continuer » to the reality check due
// minutes into their play session, so that no other tab or device asks it again.
func (s *Service) AnswerRealityCheck(ctx context.Context, p Player, minutes int) (lottery.PlaySession, error) {
	if minutes < 1 || minutes > lottery.MaxCheckedMinutes {
		return lottery.PlaySession{}, fault.Errorf(fault.Invalid, "minutes must be a whole number from 1 to %d", lottery.MaxCheckedMinutes)
	}
	idle, young := s.live()
	return s.db.AnswerRealityCheck(ctx, p.ID, idle, young, minutes)
}

// live is the bounds of a live session at this moment: last seen at or after idle, opened at or
// after young.
func (s *Service) live() (idle, young time.Time) {
	now := s.now()
	return now.Add(-s.cfg.SessionIdle), now.Add(-s.cfg.SessionLifetime)
}
