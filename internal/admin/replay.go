package admin

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/rules"
)

// A game replayed for a dispute: its unit played again with the player's stored moves, step by
// step as the rules reveal it (internal/rules), the boards as the player saw them, and the
// proofs the player holds (the unit in its block's root, the sale in a signed checkpoint). What
// the page shows is recomputed from the committed unit, not read from what the game recorded.

// Replayer plays a game again from its unit and its moves (game.Service.Replay).
type Replayer func(ctx context.Context, id int64) (*game.Replay, error)

type replayData struct {
	*game.Replay
	Color string // the colour chosen, as the regulation names it ("" before)
	Steps []replayStep
	Rows  int // the boards' grid
	Cols  int
}

type replayStep struct {
	N     int
	Board int
	Cell  string // "row 2, column 5"
	Cause string // in the reader's language
	From  string // the cell whose symbol exploded it, "" for none
	Shows string // what the star hid, in words
}

func (s *Server) replayPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 || s.cfg.Replay == nil {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No game %d.", id))
		return
	}
	rp, err := s.cfg.Replay(r.Context(), id)
	if fault.Is(err, fault.NotFound) {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No game %d.", id))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	lang := langOf(r)
	d := replayData{Replay: rp, Rows: rules.Rows, Cols: rules.Cols}
	if rp.Game.Color >= 0 {
		d.Color = rules.Color(rp.Game.Color).String()
	}
	for i, e := range rp.Events {
		st := replayStep{N: i + 1, Board: e.Board, Cell: cellText(lang, e.Cell), Cause: causeText(lang, e.Cause)}
		if e.From >= 0 {
			st.From = cellText(lang, e.From)
		}
		if e.Board >= 1 && e.Board <= len(rp.Boards) {
			st.Shows = starText(lang, rp.Boards[e.Board-1].Board[e.Cell])
		}
		d.Steps = append(d.Steps, st)
	}
	if err := s.record(r.Context(), r, "game_replayed", logDetail{Game: id}); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "replay", s.t(r, "Game %d replayed", id), d)
}

// cellText names a cell by its row and column, counted from 1.
func cellText(lang string, cell int) string {
	return fmt.Sprintf(tr(lang, "row %d, column %d"), rules.Row(cell)+1, rules.Col(cell)+1)
}

// causeText says why a star was revealed.
func causeText(lang string, c rules.Cause) string {
	switch c {
	case rules.ByClick:
		return tr(lang, "the player's click")
	case rules.ByAuto:
		return tr(lang, "the automatic play")
	case rules.ByMilkyWay:
		return starText(lang, rules.Star{Kind: rules.MilkyWay})
	case rules.BySupernova:
		return starText(lang, rules.Star{Kind: rules.Supernova})
	}
	return starText(lang, rules.Star{Kind: rules.ShootingStar})
}

// starText says what a star hid.
func starText(lang string, st rules.Star) string {
	switch st.Kind {
	case rules.Amount:
		return money(lang, st.Amount)
	case rules.MilkyWay:
		return tr(lang, "a Milky Way")
	case rules.Supernova:
		return tr(lang, "a Supernova")
	case rules.ShootingStar:
		return tr(lang, "a Shooting Star")
	case rules.Extra:
		return tr(lang, "an Extra")
	}
	return tr(lang, "nothing")
}
