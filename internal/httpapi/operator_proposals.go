package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Four eyes through the operator API (OPERATOR.md, « Four eyes »): a withdrawal is proposed by
// an operator with emissions, and carried out once an approver who is not its proposer approves.

// opProposal is a proposal as the operator API shows it.
type opProposal struct {
	ID         int64          `json:"id"`
	Action     string         `json:"action"`
	Detail     opProposalWhat `json:"detail"`
	ProposedBy string         `json:"proposed_by"`
	ProposedAt time.Time      `json:"proposed_at"`
	Status     string         `json:"status"`
	DecidedBy  string         `json:"decided_by,omitempty"`
	DecidedAt  *time.Time     `json:"decided_at,omitempty"`
}

// opProposalWhat is what a proposal is about: an emission to create (its order), to withdraw
// (why), or an operator's roles.
type opProposalWhat struct {
	Emission string     `json:"emission,omitempty"`
	Price    int64      `json:"price,omitempty"`
	Blocks   int        `json:"blocks,omitempty"`
	OnSaleAt *time.Time `json:"on_sale_at,omitempty"`
	Operator string     `json:"operator,omitempty"`
	Roles    []string   `json:"roles,omitempty"`
	Reason   string     `json:"reason,omitempty"`
	Note     string     `json:"note,omitempty"` // a rejection's reason, or why it failed
}

func proposalOf(p lottery.Proposal, now time.Time) opProposal {
	what := opProposalWhat{Emission: p.Emission, Price: p.Price, Blocks: p.Blocks, Operator: p.TargetName, Roles: p.Roles.Names(), Reason: p.Reason, Note: p.Note}
	if !p.OnSaleAt.IsZero() {
		at := p.OnSaleAt.UTC()
		what.OnSaleAt = &at
	}
	o := opProposal{ID: p.ID, Action: p.Action, Detail: what,
		ProposedBy: p.ProposedBy, ProposedAt: p.ProposedAt.UTC(), Status: p.StatusAt(now), DecidedBy: p.DecidedBy}
	if !p.DecidedAt.IsZero() {
		at := p.DecidedAt.UTC()
		o.DecidedAt = &at
	}
	return o
}

// reasonBody reads a body {"reason"}: its reason.
func reasonBody(r *http.Request) (string, error) {
	var body struct {
		Reason *string `json:"reason"`
	}
	if _, err := readJSON(r, &body); err != nil {
		return "", err
	}
	if body.Reason == nil {
		return "", fault.Errorf(fault.Invalid, "say why: {\"reason\": \"…\"}")
	}
	return *body.Reason, nil
}

// noBody reads the body of a call that takes none: empty, or the empty object {}, strictly (a
// field is refused).
func noBody(r *http.Request) error {
	if r.ContentLength == 0 {
		return nil
	}
	var none struct{}
	_, err := readJSON(r, &none)
	return err
}

// POST /emissions/{id}/withdraw {"reason"}: 202 the proposal.
func (s *Server) opWithdraw(w http.ResponseWriter, r *http.Request, o lottery.Operator) error {
	if err := noQuery(r); err != nil {
		return err
	}
	reason, err := reasonBody(r)
	if err != nil {
		return err
	}
	now := s.ops.Now()
	p, err := admin.ProposeWithdrawal(r.Context(), s.ops.Store, r.PathValue("id"), reason,
		lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: admin.Remote(r), CreatedAt: now})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, proposalOf(p, now))
}

// GET /proposals?status=S: the proposals in that status (every one without), newest first.
func (s *Server) opProposals(w http.ResponseWriter, r *http.Request, _ lottery.Operator) error {
	if err := onlyQuery(r, "status"); err != nil {
		return err
	}
	status := r.URL.Query().Get("status")
	switch status {
	case "", lottery.ProposalOpen, lottery.ProposalApproved, lottery.ProposalRejected, lottery.ProposalExpired, lottery.ProposalFailed:
	default:
		return fault.Errorf(fault.Invalid, "status is open, approved, rejected, expired or failed")
	}
	now := s.ops.Now()
	ps, err := s.ops.Store.Proposals(r.Context(), status, now, 1000)
	if err != nil {
		return err
	}
	out := make([]opProposal, len(ps))
	for i, p := range ps {
		out[i] = proposalOf(p, now)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"proposals": out})
}

// POST /proposals/{id}/approve and POST /proposals/{id}/reject {"reason"}: 200 the proposal, an
// approved one carried out (or failed, saying why).
func (s *Server) opDecide(approve bool) operatorHandler {
	return func(w http.ResponseWriter, r *http.Request, o lottery.Operator) error {
		if err := noQuery(r); err != nil {
			return err
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id <= 0 {
			return fault.Errorf(fault.NotFound, "no such proposal")
		}
		note := ""
		if approve {
			err = noBody(r)
		} else {
			note, err = reasonBody(r)
		}
		if err != nil {
			return err
		}
		now := s.ops.Now()
		p, err := admin.Decide(r.Context(), s.ops.Store, id, approve, note,
			lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: admin.Remote(r), CreatedAt: now})
		if err != nil {
			return err
		}
		if p.Status == lottery.ProposalApproved && p.Action == lottery.ProposeCreation && s.ops.Approved != nil {
			if err := s.ops.Approved(r.Context()); err != nil {
				s.log.Error("operator API: starting an approved creation", "err", err)
			}
		}
		return writeJSON(w, http.StatusOK, proposalOf(p, now))
	}
}
