package admin

import (
	"fmt"
	"net/http"
	"strconv"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The proposals page: the open ones, with approve and reject for an approver who did not make
// them, and the latest decided.

type proposalsData struct {
	Open, Decided []lottery.Proposal
	Me            string // the operator's name: their own proposals are not theirs to decide
	Error         string
}

func (s *Server) proposalsPage(w http.ResponseWriter, r *http.Request) {
	s.renderProposals(w, r, http.StatusOK, "")
}

func (s *Server) renderProposals(w http.ResponseWriter, r *http.Request, status int, msg string) {
	now := s.now()
	all, err := s.db.Proposals(r.Context(), "", now, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := proposalsData{Me: operator(r).Name, Error: msg}
	for _, p := range all {
		p.Status = p.StatusAt(now)
		if p.Status == lottery.ProposalOpen {
			d.Open = append(d.Open, p)
		} else {
			d.Decided = append(d.Decided, p)
		}
	}
	s.render(w, r, status, "proposals", s.t(r, "Proposals"), d)
}

// decide approves or rejects a proposal from its page (Decide), then shows the page again.
func (s *Server) decide(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := readForm(w, r); err != nil {
			s.fail(w, r, err)
			return
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			s.fail(w, r, fault.Errorf(fault.NotFound, "no such proposal"))
			return
		}
		o := operator(r)
		p, err := Decide(r.Context(), s.db, id, approve, r.PostFormValue("reason"), lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: Remote(r), CreatedAt: s.now()})
		switch fault.CodeOf(err) {
		case "":
		case fault.Invalid:
			s.renderProposals(w, r, http.StatusBadRequest, s.t(r, "A rejection says why, in one line of at most %d characters.", lottery.MaxReason))
			return
		case fault.SameOperator:
			s.renderProposals(w, r, http.StatusForbidden, s.t(r, "This proposal is yours: another approver decides it."))
			return
		case fault.InvalidState:
			s.renderProposals(w, r, http.StatusConflict, s.t(r, "Nothing was done: the proposal was decided meanwhile, or has expired."))
			return
		default:
			if err != nil {
				s.fail(w, r, err)
				return
			}
		}
		// An approved creation starts here at once, if no other runs; else within a second, on
		// whichever server is free first.
		// The approver then watches it being made.
		j, err := s.startApproved(r.Context())
		if err != nil {
			s.log.Error("back office: starting an approved creation", "err", err)
		}
		if j.ID > 0 && j.Emission == p.Emission && p.Action == lottery.ProposeCreation {
			http.Redirect(w, r, fmt.Sprintf("/admin/jobs/%d", j.ID), http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/admin/proposals", http.StatusSeeOther)
	}
}

// proposeWithdrawal proposes, from an emission's page, that it be withdrawn.
func (s *Server) proposeWithdrawal(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	o := operator(r)
	_, err := ProposeWithdrawal(r.Context(), s.db, r.PathValue("id"), r.PostFormValue("reason"),
		lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: Remote(r), CreatedAt: s.now()})
	switch code := fault.CodeOf(err); {
	case err == nil:
		// An approved creation starts here at once, if no other runs; else within a second, on
		// whichever server is free first.
		if err := s.StartApproved(r.Context()); err != nil {
			s.log.Error("back office: starting an approved creation", "err", err)
		}
		http.Redirect(w, r, "/admin/proposals", http.StatusSeeOther)
	case code == fault.Invalid:
		s.renderEmission(w, r, http.StatusBadRequest, s.t(r, "Say why the emission is withdrawn, in one line of at most %d characters.", lottery.MaxReason))
	case code == fault.InvalidState:
		s.renderEmission(w, r, http.StatusConflict, s.t(r, "Nothing was proposed: the emission is sold out or withdrawn, or its withdrawal is proposed already."))
	default:
		s.fail(w, r, err)
	}
}
