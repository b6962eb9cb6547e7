package game

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

// Games replayed and moved: a game's reveal is rebuilt on the rules engine from its unit and its
// stored moves. A move is played on that replay, and stored if the game still stands as read.

// Game is one of the player's games.
func (s *Service) Game(ctx context.Context, p Player, id int64) (*View, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	play, err := s.replay(ctx, &g)
	if err != nil {
		return nil, err
	}
	return view(&g, play), nil
}

// Games lists the player's games, newest first.
func (s *Service) Games(ctx context.Context, p Player, limit int, before int64) ([]*View, error) {
	gs, err := s.db.Games(ctx, p.ID, limit, before)
	if err != nil {
		return nil, err
	}
	out := make([]*View, 0, len(gs))
	for i := range gs {
		play, err := s.replay(ctx, &gs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, view(&gs[i], play))
	}
	return out, nil
}

// Move is a step of a manual game.
type Move struct {
	Color  *int // choose this colour
	Cell   *int // reveal this star
	Finish bool // play the rest as « Auto »
}

// Move plays one step of a game and stores it:
//  1. The game is read, and the move played on its replay, outside the store's turn.
//  2. The store writes the new moves only if the game still stands as it was read.
//  3. Otherwise the move is played again on the game as it is now.
//
// So a move sent twice at once, from two tabs or two servers, is played once.
func (s *Service) Move(ctx context.Context, p Player, id int64, m Move) (*View, error) {
	for {
		g, err := s.db.Game(ctx, p.ID, id)
		if err != nil {
			return nil, err
		}
		u := lottery.MoveUpdate{PlayerID: p.ID, GameID: id, Session: p.session, Was: g.Moves()}
		v, err := s.move(ctx, &g, m)
		if err != nil {
			return nil, err
		}
		u.Now = g.Moves()
		if err := s.db.SaveMoves(ctx, u, s.now()); !errors.Is(err, lottery.ErrMoved) {
			if err != nil {
				return nil, s.ended(p, err)
			}
			s.money.finished(ctx, &g)
			return v, nil
		}
	}
}

// move plays a move on a game as read, and returns its view; g holds its new moves.
func (s *Service) move(ctx context.Context, g *lottery.Game, m Move) (*View, error) {
	play, err := s.replay(ctx, g)
	if err != nil {
		return nil, err
	}
	return s.playMove(g, play, m)
}

// playMove plays a move on the replay of a game, and returns its view; g holds its new moves.
func (s *Service) playMove(g *lottery.Game, play *rules.Play, m Move) (*View, error) {
	var err error
	if g.Status == lottery.Finished {
		return nil, fault.Errorf(fault.InvalidMove, "the game is finished")
	}
	// The moves are changed on copies: g's slices are the ones read.
	g.Clicks = slices.Clip(g.Clicks)
	switch {
	case m.Color != nil:
		if *m.Color < 0 || *m.Color >= rules.NumColors {
			return nil, fault.Errorf(fault.Invalid, "the colour is 0 to 5")
		}
		err = play.ChooseColor(rules.Color(*m.Color))
		g.Color = *m.Color
	case m.Cell != nil:
		if *m.Cell < 0 || *m.Cell >= rules.Cells {
			return nil, fault.Errorf(fault.Invalid, "the cell is 0 to 41")
		}
		if _, err = play.Click(*m.Cell); err == nil {
			g.Clicks = append(g.Clicks, byte(*m.Cell))
		}
	case m.Finish:
		if play.Stage() == rules.ChooseColor {
			g.Color = randomColor()
			if err := play.ChooseColor(rules.Color(g.Color)); err != nil {
				return nil, err
			}
		}
		_, err = play.Finish()
	}
	if err != nil {
		return nil, moveFault(err)
	}
	g.Status = play.Stage().String()
	g.UpdatedAt = s.now().Unix()
	return view(g, play), nil
}

func moveFault(err error) error {
	switch {
	case errors.Is(err, rules.ErrInvalid):
		return fault.Errorf(fault.Invalid, "%v", err)
	case errors.Is(err, rules.ErrIllegalMove):
		return fault.Errorf(fault.InvalidMove, "%v", err)
	}
	return err
}

// replay rebuilds a game's reveal from its unit and its stored moves.
func (s *Service) replay(ctx context.Context, g *lottery.Game) (*rules.Play, error) {
	rec, _, err := s.units.unit(ctx, g.Emission, g.Block, g.Unit)
	if err != nil {
		return nil, err
	}
	return replayOn(g, rec.Unit)
}

// replayOn plays a game's stored moves on its unit: a real game's, read from its emission, or a
// demo game's, kept with it.
func replayOn(g *lottery.Game, u rules.Unit) (*rules.Play, error) {
	p := rules.NewPlay(u)
	if g.Color >= 0 {
		if err := p.ChooseColor(rules.Color(g.Color)); err != nil {
			return nil, fmt.Errorf("game %d: stored colour: %w", g.ID, err)
		}
	}
	for _, c := range g.Clicks {
		if _, err := p.Click(int(c)); err != nil {
			return nil, fmt.Errorf("game %d: stored click: %w", g.ID, err)
		}
	}
	if g.Status == lottery.Finished && p.Stage() != rules.Finished {
		if _, err := p.Finish(); err != nil {
			return nil, fmt.Errorf("game %d: %w", g.ID, err)
		}
	}
	return p, nil
}
