package admin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"starcolor/internal/sqlite"
)

type playersData struct {
	Query   string
	Players []sqlite.Player
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
	s.render(w, r, http.StatusOK, "players", "Players", d)
}

type transferView struct {
	sqlite.TransferLine
	Signed int64  // as seen from the player's account
	Other  string // the account on the other side
}

type playerData struct {
	P         sqlite.Player
	T         sqlite.PlayerTotals
	Net       int64 // prizes - stakes
	Transfers []transferView
	Games     []sqlite.Game
	Limit     int
	// The failed logins counted for the player's name (the last hour's, at every address), and
	// how many addresses they lock out now.
	FailedLogins, LockedFrom int
}

func accountName(id int64) string {
	switch id {
	case sqlite.BankAccount:
		return "bank"
	case sqlite.PrizeFundAccount:
		return "prize fund"
	}
	return fmt.Sprintf("account %d", id)
}

func (s *Server) playerPage(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.render(w, r, http.StatusNotFound, "error", "Not found", "No such player.")
		return
	}
	p, err := s.db.PlayerByID(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := playerData{P: p, Limit: 100}
	if d.T, err = s.db.PlayerTotals(r.Context(), p.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	d.Net = d.T.Prizes - d.T.Stakes
	if d.FailedLogins, d.LockedFrom, err = s.db.LoginFailures(r.Context(), sqlite.PlayerSubject(p.Username), s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	ts, err := s.db.PlayerTransfers(r.Context(), p, d.Limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, t := range ts {
		v := transferView{TransferLine: t, Signed: t.Amount, Other: accountName(t.From)}
		if t.From == p.AccountID {
			v.Signed, v.Other = -t.Amount, accountName(t.To)
		}
		d.Transfers = append(d.Transfers, v)
	}
	if d.Games, err = s.db.Games(r.Context(), p.ID, d.Limit, 0); err != nil {
		s.fail(w, r, err)
		return
	}
	// Looking at a player's account is itself an action worth keeping.
	if err := s.record(r.Context(), r, "player_viewed", p.Username); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "player", "Player "+p.Username, d)
}

func (s *Server) logPage(w http.ResponseWriter, r *http.Request) {
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	lines, err := s.db.OperatorLog(r.Context(), 200, before)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "log", "Operator log", lines)
}
