package admin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// What an operator does on a player's page, each within their roles and in the log with the
// reason they gave: block or unblock play and close the account (compliance), pay the balance
// out (finance), keep a note (finance or compliance). Each ends or keeps the player's sessions
// at once on every server, as the store ends them.

// The player actions the page posts.
const (
	actBlock   = "block"
	actUnblock = "unblock"
	actNote    = "note"
	actPayout  = "payout"
	actClose   = "close"
)

// playerAction carries out one action on the player the path names, then shows their page.
func (s *Server) playerAction(act string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := readForm(w, r); err != nil {
			s.fail(w, r, err)
			return
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 {
			s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No such player."))
			return
		}
		p, err := s.db.PlayerByID(r.Context(), id)
		if fault.Is(err, fault.NotFound) {
			s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No such player."))
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		// A note is its own text; the other actions say why, in one line.
		text, err := oneLine(r.PostFormValue("reason"), act != actUnblock)
		if act == actNote {
			text, err = note(r.PostFormValue("note"))
		}
		if err != nil {
			s.render(w, r, http.StatusBadRequest, "error", s.t(r, "Bad request"), s.t(r, "Say why in one line of at most %d characters (a note: %d).", lottery.MaxReason, maxNote))
			return
		}
		line := s.line(r, "", logDetail{Player: p.Username, Why: text})
		line.Account = p.AccountID
		switch act {
		case actBlock:
			line.Action = "player_blocked"
			err = s.db.BlockPlayer(r.Context(), p.ID, true, line)
		case actUnblock:
			line.Action = "player_unblocked"
			err = s.db.BlockPlayer(r.Context(), p.ID, false, line)
		case actNote:
			line.Action = "player_noted"
			line.Detail = logDetail{Player: p.Username}.encode()
			err = s.db.NotePlayer(r.Context(), p.ID, text, line)
		case actPayout:
			line.Action = "player_paid_out"
			line.Detail = logDetail{Player: p.Username, Why: text, Amount: p.Balance}.encode()
			_, err = s.db.PayOutPlayer(r.Context(), p.ID, line)
		case actClose:
			line.Action = "player_closed"
			line.Detail = logDetail{Player: p.Username, Why: text, Amount: p.Balance}.encode()
			_, err = s.db.CloseByOperator(r.Context(), p.ID, line)
		}
		if fault.Is(err, fault.InvalidState) {
			s.render(w, r, http.StatusConflict, "error", s.t(r, "Nothing was done"), s.t(r, "The account changed meanwhile: look at it again."))
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if act == actBlock || act == actClose {
			if s.cfg.SessionsEnded != nil {
				s.cfg.SessionsEnded(p.ID)
			}
		}
		http.Redirect(w, r, fmt.Sprintf("/admin/players/%d#player-actions", p.ID), http.StatusSeeOther)
	}
}

// maxNote bounds a note, in bytes.
const maxNote = 2000

// note checks a note: text of at most maxNote bytes, not empty; lines are kept.
func note(s string) (string, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if s == "" || len(s) > maxNote || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && isControl(r) }) {
		return "", fault.Errorf(fault.Invalid, "a note is text of 1 to %d bytes", maxNote)
	}
	return s, nil
}
