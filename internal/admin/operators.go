package admin

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The operators page: who works in the back office, with which roles. An admin proposes a change
// of roles (four eyes: an approver carries it out), and alone disables or enables an operator,
// gives them a new password, or ends their sessions. Each is in the operators' log.

// adminRole opens the operators' actions.
const adminRole = lottery.Roles(lottery.Admin)

type operatorsData struct {
	Operators []operatorRow
	Me        int64
	Error     string
	Notice    string
	// Password is a new password just made, shown once, for the operator Of.
	Password, Of string
}

type operatorRow struct {
	lottery.Operator
	RoleNames []string // the roles they hold, by name
	Proposed  string   // a change of their roles open now, in words; "" for none
}

func (s *Server) operatorsPage(w http.ResponseWriter, r *http.Request) {
	s.renderOperators(w, r, http.StatusOK, operatorsData{})
}

func (s *Server) renderOperators(w http.ResponseWriter, r *http.Request, status int, d operatorsData) {
	ops, err := s.db.Operators(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	open, err := s.db.Proposals(r.Context(), lottery.ProposalOpen, s.now(), 1000)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	proposed := map[int64]string{}
	for _, p := range open {
		if p.Action == lottery.ProposeRoles {
			proposed[p.Target] = rolesText(langOf(r), p.Roles)
		}
	}
	for _, o := range ops {
		d.Operators = append(d.Operators, operatorRow{Operator: o, RoleNames: o.Roles.Names(), Proposed: proposed[o.ID]})
	}
	d.Me = operator(r).ID
	s.render(w, r, status, "operators", s.t(r, "Operators"), d)
}

// targetOf reads the form of a request on an operator, and the operator its path names; if
// either fails, it has answered, and ok is false.
func (s *Server) targetOf(w http.ResponseWriter, r *http.Request) (t lottery.Operator, ok bool) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return t, false
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id > 0 {
		t, err = s.db.OperatorByID(r.Context(), id)
	}
	switch {
	case err != nil && !fault.Is(err, fault.NotFound) && id > 0:
		s.fail(w, r, err)
		return t, false
	case err != nil || id < 1:
		s.renderOperators(w, r, http.StatusNotFound, operatorsData{Error: s.t(r, "No such operator.")})
		return t, false
	}
	return t, true
}

// proposeRoles proposes, from the operators page, the roles ticked for an operator.
func (s *Server) proposeRoles(w http.ResponseWriter, r *http.Request) {
	t, ok := s.targetOf(w, r)
	if !ok {
		return
	}
	var rs lottery.Roles
	for _, name := range r.PostForm["role"] {
		one, err := lottery.ParseRoles(name)
		if err != nil {
			s.renderOperators(w, r, http.StatusBadRequest, operatorsData{Error: s.t(r, "Tick one or more roles.")})
			return
		}
		rs |= one
	}
	if rs == 0 {
		s.renderOperators(w, r, http.StatusBadRequest, operatorsData{Error: s.t(r, "Tick one or more roles.")})
		return
	}
	o := operator(r)
	_, err := ProposeRoles(r.Context(), s.db, t.ID, rs, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: Remote(r), CreatedAt: s.now()})
	if fault.Is(err, fault.InvalidState) {
		s.renderOperators(w, r, http.StatusConflict, operatorsData{Error: s.t(r, "Nothing was proposed: %s has these roles already, or a change of their roles is open.", t.Name)})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/admin/proposals", http.StatusSeeOther)
}

// changeOperator disables or enables an operator, gives them a new password (shown once), or
// ends their sessions: an admin's alone, logged.
func (s *Server) changeOperator(change string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, ok := s.targetOf(w, r)
		if !ok {
			return
		}
		o := operator(r)
		if t.ID == o.ID && change == lottery.OperatorDisable {
			s.renderOperators(w, r, http.StatusConflict, operatorsData{Error: s.t(r, "An admin does not disable themselves: another admin does.")})
			return
		}
		var password, hash string
		if change == lottery.OperatorNewPassword {
			b := make([]byte, 18)
			rand.Read(b)
			password = base64.RawURLEncoding.EncodeToString(b)
			hash = s.cfg.Argon2.Hash(password)
		}
		line := lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Detail: logDetail{Operator: t.Name}.encode(), Remote: Remote(r), CreatedAt: s.now()}
		switch change {
		case lottery.OperatorDisable:
			line.Action = "operator_disabled"
		case lottery.OperatorEnable:
			line.Action = "operator_enabled"
		case lottery.OperatorNewPassword:
			line.Action = "operator_password_reset"
		default:
			line.Action = "operator_sessions_ended"
		}
		err := s.db.ChangeOperator(r.Context(), t.ID, change, hash, line)
		if fault.Is(err, fault.InvalidState) {
			s.renderOperators(w, r, http.StatusConflict, operatorsData{Error: s.t(r, "Nothing was done: %s was changed meanwhile.", t.Name)})
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		// This server's copies of their sessions go too (over SQLite it keeps them in memory).
		s.sessions.EndedAll(t.ID)
		d := operatorsData{Notice: s.t(r, "Done for %s.", t.Name)}
		if password != "" {
			d.Password, d.Of, d.Notice = password, t.Name, ""
		}
		s.renderOperators(w, r, http.StatusOK, d)
	}
}
