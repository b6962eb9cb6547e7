package game

import (
	"context"
	"errors"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Weekly limits (API.md 1.1; décret 2010-518 art. 16): a player sets a limit on their deposits
// and one on their stakes over a rolling week before their first deposit and first stake; a
// lowering holds at once, a raise 48 hours later. The store checks them in the deposit's and the
// sale's own atomic step, so concurrent requests cannot pass a limit together.

// Limits are the player's limits as they hold now, with their deposits and stakes of the week.
func (s *Service) Limits(ctx context.Context, p Player) (lottery.Limits, error) {
	if s.wallet != nil {
		return lottery.Limits{}, errWalletMode
	}
	return s.db.Limits(ctx, p.ID, s.now())
}

// SetLimits changes the player's limits (any of them) and keeps each change of a limit; it
// returns the limits after it.
func (s *Service) SetLimits(ctx context.Context, p Player, c lottery.LimitsChange) (lottery.Limits, error) {
	if s.wallet != nil {
		return lottery.Limits{}, errWalletMode
	}
	l, err := s.db.SetLimits(ctx, p.ID, c, "player", s.now())
	if errors.Is(err, lottery.ErrLimitAmount) || errors.Is(err, lottery.ErrRealityCheck) {
		return l, fault.Errorf(fault.Invalid, "%v", err)
	}
	return l, err
}
