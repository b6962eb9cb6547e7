package admin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

type playersData struct {
	Query   string
	Players []lottery.Player
	More    bool
}

const listLimit = 50

func (s *Server) playersPage(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := playersData{Query: q}
	if q != "" {
		ps, err := s.db.FindPlayers(r.Context(), q, listLimit+1)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if len(ps) > listLimit {
			ps, d.More = ps[:listLimit], true
		}
		d.Players = ps
		// One exact match goes straight to the player.
		if len(ps) == 1 && strings.EqualFold(ps[0].Username, q) {
			http.Redirect(w, r, fmt.Sprintf("/admin/players/%d", ps[0].ID), http.StatusSeeOther)
			return
		}
	}
	s.render(w, r, http.StatusOK, "players", s.t(r, "Players"), d)
}

// findGame goes to a game by its number: its player's page, its games listed from it on.
func (s *Server) findGame(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(strings.TrimSpace(r.URL.Query().Get("id")), 10, 64)
	if err != nil || id <= 0 {
		s.render(w, r, http.StatusBadRequest, "error", s.t(r, "Bad request"), s.t(r, "No game %d.", id))
		return
	}
	g, err := s.db.GameByID(r.Context(), id)
	if fault.Is(err, fault.NotFound) {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No game %d.", id))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/admin/players/%d?games_before=%d&game=%d#game-%d", g.PlayerID, g.ID+1, g.ID, g.ID), http.StatusSeeOther)
}

type transferView struct {
	lottery.Transfer
	Signed int64  // as seen from the player's account
	Other  string // the account on the other side
}

type playerData struct {
	P         lottery.Player
	Notes     []lottery.PlayerNote // newest first
	T         lottery.PlayerTotals
	Net       int64 // prizes - stakes
	Transfers []transferView
	Games     []lottery.Game
	Limit     int // a page of transfers or games
	// Where the pages of transfers and of games start (0: the latest), whether there are older
	// ones, and where those start.
	TransfersBefore, TransfersNext, GamesBefore, GamesNext int64
	TransfersMore, GamesMore                               bool
	Found                                                  int64 // the game looked for by its number
	// The failed logins counted for the player's name (the last hour's, at every address), and
	// how many addresses they lock out now.
	FailedLogins, LockedFrom int
	// Player protection: the player's age today, whether a self-exclusion runs, the limits in
	// force with the week's sums, and every change of a limit.
	Age      int
	Excluded bool
	Limits   lottery.Limits
	Changes  []lottery.LimitChange
}

func (s *Server) accountName(r *http.Request, id int64) string {
	switch id {
	case lottery.BankAccount:
		return s.t(r, "bank")
	case lottery.PrizeFundAccount:
		return s.t(r, "prize fund")
	}
	return s.t(r, "account %d", id)
}

// pageSize is how many transfers, and games, a player's page lists at a time.
const pageSize = 100

func (s *Server) playerPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No such player."))
		return
	}
	p, err := s.db.PlayerByID(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	d := playerData{P: p, Limit: pageSize}
	d.TransfersBefore, _ = strconv.ParseInt(q.Get("transfers_before"), 10, 64)
	d.GamesBefore, _ = strconv.ParseInt(q.Get("games_before"), 10, 64)
	d.Found, _ = strconv.ParseInt(q.Get("game"), 10, 64)
	if d.T, err = s.db.PlayerTotals(r.Context(), p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	d.Net = d.T.Prizes - d.T.Stakes
	if p.Person != nil {
		d.Age = p.Person.AgeOn(s.now())
	}
	d.Excluded = p.ExcludedUntil.After(s.now())
	if d.Limits, err = s.db.Limits(r.Context(), p.ID, s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	if d.Notes, err = s.db.PlayerNotes(r.Context(), p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	if d.Changes, err = s.db.LimitChanges(r.Context(), p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	if d.FailedLogins, d.LockedFrom, err = s.db.LoginFailures(r.Context(), lottery.PlayerSubject(p.Username), s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	// One more than a page tells whether there are older ones.
	ts, err := s.db.PlayerTransfers(r.Context(), p, pageSize+1, d.TransfersBefore)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if d.TransfersMore = len(ts) > pageSize; d.TransfersMore {
		ts = ts[:pageSize]
		d.TransfersNext = ts[pageSize-1].ID
	}
	for _, t := range ts {
		v := transferView{Transfer: t, Signed: t.Amount, Other: s.accountName(r, t.From)}
		if t.From == p.AccountID {
			v.Signed, v.Other = -t.Amount, s.accountName(r, t.To)
		}
		d.Transfers = append(d.Transfers, v)
	}
	if d.Games, err = s.db.Games(r.Context(), p.ID, pageSize+1, d.GamesBefore); err != nil {
		s.fail(w, r, err)
		return
	}
	if d.GamesMore = len(d.Games) > pageSize; d.GamesMore {
		d.Games = d.Games[:pageSize]
		d.GamesNext = d.Games[pageSize-1].ID
	}
	// Looking at a player's account is itself an action worth keeping.
	viewed := s.line(r, "player_viewed", logDetail{Player: p.Username})
	viewed.Account = p.AccountID
	if err := s.db.LogOperatorAction(r.Context(), viewed); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "player", s.t(r, "Player %s", p.Username), d)
}

func (s *Server) logPage(w http.ResponseWriter, r *http.Request) {
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	lines, err := s.db.OperatorLog(r.Context(), 200, before)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "log", s.t(r, "Operator log"), lines)
}
