package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateProposal keeps a proposal, open, with its line in the operators' log, in one write.
// What it proposes must be possible now, and not proposed already (fault.InvalidState):
//
//   - a creation, of an emission whose id no emission and no creation pending takes;
//   - a withdrawal, of an emission its life lets be withdrawn (fault.NotFound for none);
//   - a change of roles, of an operator (fault.NotFound for none) to roles not theirs.
func (s *DB) CreateProposal(ctx context.Context, p lottery.Proposal, log lottery.OperatorAction) (lottery.Proposal, error) {
	err := s.write(ctx, func(q Querier) error {
		var err error
		switch p.Action {
		case lottery.ProposeCreation:
			err = s.checkCreation(ctx, q, p)
		case lottery.ProposeWithdrawal:
			err = s.checkWithdrawal(ctx, q, p)
		case lottery.ProposeRoles:
			err = s.checkRoles(ctx, q, &p)
		default:
			err = fault.Errorf(fault.Invalid, "no such proposal: %s", p.Action)
		}
		if err != nil {
			return err
		}
		p.Status = lottery.ProposalOpen
		var price, blocks, target, roles any
		if p.Action == lottery.ProposeCreation {
			price, blocks = p.Price, p.Blocks
		}
		if p.Action == lottery.ProposeRoles {
			target, roles = p.Target, p.Roles.String()
		}
		if err := q.QueryRow(ctx, `INSERT INTO proposals (action, emission_id, price, blocks, on_sale_at, operator_id, roles, reason, proposer_id, proposed_by, proposed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			p.Action, p.Emission, price, blocks, s.d.NullTime(p.OnSaleAt), target, roles, p.Reason, p.ProposerID, p.ProposedBy, s.d.Time(p.ProposedAt)).Scan(&p.ID); err != nil {
			return err
		}
		log.Detail = proposalDetail(p)
		return s.logAction(ctx, q, log)
	})
	return p, s.fault(err)
}

// checkCreation says whether p's emission may be proposed: its id is free, and no creation of
// it is open or approved and not yet made.
func (s *DB) checkCreation(ctx context.Context, q Querier, p lottery.Proposal) error {
	if p.Emission == "" || p.Blocks < 1 || p.Price < 1 {
		return fault.Errorf(fault.Invalid, "a creation names its emission, its price and its blocks")
	}
	if err := s.d.lock(ctx, q, "starcolor:emission:"+p.Emission); err != nil {
		return err
	}
	if _, err := emissionStatus(ctx, q, p.Emission); err == nil {
		return fault.Errorf(fault.InvalidState, "the emission %s exists already: choose another id", p.Emission)
	} else if !fault.Is(err, fault.NotFound) {
		return err
	}
	if pending, ok, err := s.pendingCreation(ctx, q, p.Emission, p.ProposedAt); err != nil {
		return err
	} else if ok {
		return fault.Errorf(fault.InvalidState, "the creation of %s is proposed already (proposal %d, %s)", p.Emission, pending.ID, pending.Status)
	}
	return nil
}

// pendingCreation is the creation of the emission id that is open at now, or approved and
// neither made nor failed, if any.
func (s *DB) pendingCreation(ctx context.Context, q Querier, id string, now time.Time) (lottery.Proposal, bool, error) {
	p, err := scanProposal(q.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals
		WHERE action = 'emission_create' AND emission_id = $1 AND ((status = 'open' AND proposed_at > $2) OR status = 'approved') ORDER BY id DESC LIMIT 1`,
		id, s.d.Time(now.Add(-lottery.ProposalLife))))
	if fault.Is(err, fault.NotFound) {
		return p, false, nil
	}
	return p, err == nil, err
}

// checkWithdrawal says whether p's emission may be proposed for withdrawal.
func (s *DB) checkWithdrawal(ctx context.Context, q Querier, p lottery.Proposal) error {
	if err := s.d.lock(ctx, q, "starcolor:emission:"+p.Emission); err != nil {
		return err
	}
	current, err := emissionStatus(ctx, q, p.Emission)
	if fault.Is(err, fault.NotFound) {
		if pending, ok, perr := s.pendingCreation(ctx, q, p.Emission, p.ProposedAt); perr != nil {
			return perr
		} else if ok {
			return fault.Errorf(fault.InvalidState, "the emission %s is not made yet (its creation, proposal %d, is %s): reject its creation instead",
				p.Emission, pending.ID, pending.Status)
		}
	}
	if err != nil {
		return err
	}
	if err := lottery.CheckChange(current, lottery.Withdrawn); err != nil {
		return err
	}
	var open int64
	err = q.QueryRow(ctx, `SELECT id FROM proposals WHERE action = $1 AND emission_id = $2 AND status = 'open' AND proposed_at > $3 ORDER BY id LIMIT 1`,
		p.Action, p.Emission, s.d.Time(p.ProposedAt.Add(-lottery.ProposalLife))).Scan(&open)
	if err == nil {
		return fault.Errorf(fault.InvalidState, "the withdrawal of %s is proposed already (proposal %d)", p.Emission, open)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}

// checkRoles says whether p's operator may be proposed p's roles, and names them in p.
func (s *DB) checkRoles(ctx context.Context, q Querier, p *lottery.Proposal) error {
	if p.Roles == 0 || p.Roles&^lottery.AllRoles != 0 {
		return fault.Errorf(fault.Invalid, "an operator has one or more of the roles %s", lottery.AllRoles)
	}
	if err := s.d.lock(ctx, q, "starcolor:operators"); err != nil {
		return err
	}
	o, err := s.scanOperator(q.QueryRow(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = $1`, p.Target))
	if err != nil {
		return err
	}
	p.TargetName = o.Name
	if o.Roles == p.Roles {
		return fault.Errorf(fault.InvalidState, "%s has the roles %s already", o.Name, o.Roles)
	}
	var open int64
	err = q.QueryRow(ctx, `SELECT id FROM proposals WHERE action = 'operator_roles' AND operator_id = $1 AND status = 'open' AND proposed_at > $2 ORDER BY id LIMIT 1`,
		p.Target, s.d.Time(p.ProposedAt.Add(-lottery.ProposalLife))).Scan(&open)
	if err == nil {
		return fault.Errorf(fault.InvalidState, "a change of %s's roles is proposed already (proposal %d)", o.Name, open)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}

const proposalColumns = `id, action, emission_id, coalesce(price, 0), coalesce(blocks, 0), on_sale_at, coalesce(operator_id, 0),
	coalesce((SELECT name FROM operators t WHERE t.id = proposals.operator_id), ''), coalesce(roles, ''),
	reason, proposer_id, proposed_by, proposed_at, status, coalesce(decider_id, 0), coalesce(decided_by, ''), decided_at, note`

func scanProposal(r Row) (lottery.Proposal, error) {
	var p lottery.Proposal
	var roles string
	err := r.Scan(&p.ID, &p.Action, &p.Emission, &p.Price, &p.Blocks, ScanTime(&p.OnSaleAt), &p.Target, &p.TargetName, &roles,
		&p.Reason, &p.ProposerID, &p.ProposedBy, ScanTime(&p.ProposedAt), &p.Status, &p.DeciderID, &p.DecidedBy,
		ScanTime(&p.DecidedAt), &p.Note)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such proposal")
	}
	if err == nil && roles != "" {
		p.Roles, err = lottery.ParseRoles(roles)
	}
	return p, err
}

// Proposal finds a proposal by id.
func (s *DB) Proposal(ctx context.Context, id int64) (lottery.Proposal, error) {
	p, err := scanProposal(s.read.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = $1`, id))
	return p, s.fault(err)
}

// Proposals lists the proposals whose status at now is status ("" for all), newest first, at
// most limit. An open proposal past its life is listed as expired.
func (s *DB) Proposals(ctx context.Context, status string, now time.Time, limit int) ([]lottery.Proposal, error) {
	where, args := `TRUE`, []any{limit}
	cutoff := s.d.Time(now.Add(-lottery.ProposalLife))
	switch status {
	case "":
	case lottery.ProposalOpen:
		where, args = `status = 'open' AND proposed_at > $2`, append(args, cutoff)
	case lottery.ProposalExpired:
		where, args = `status = 'open' AND proposed_at <= $2`, append(args, cutoff)
	default:
		where, args = `status = $2`, append(args, status)
	}
	return s.proposals(ctx, where+` ORDER BY id DESC LIMIT $1`, args...)
}

func (s *DB) proposals(ctx context.Context, where string, args ...any) ([]lottery.Proposal, error) {
	var out []lottery.Proposal
	err := each(s.read.Query(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE `+where, args...))(func(r Rows) error {
		p, err := scanProposal(r)
		out = append(out, p)
		return err
	})
	return out, s.fault(err)
}

// Creations are the creations that are open at now or approved and not yet made, oldest
// first: the emissions proposed or being generated.
func (s *DB) Creations(ctx context.Context, now time.Time) ([]lottery.Proposal, error) {
	return s.proposals(ctx, `action = 'emission_create' AND ((status = 'open' AND proposed_at > $1)
		OR (status = 'approved' AND NOT EXISTS (SELECT 1 FROM emissions e WHERE e.id = proposals.emission_id))) ORDER BY id`,
		s.d.Time(now.Add(-lottery.ProposalLife)))
}

// FailCreation marks an approved creation failed, saying why its units could not be made, with
// its line in the operators' log. A creation failed or made already is fault.InvalidState.
func (s *DB) FailCreation(ctx context.Context, id int64, note string, log lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		p, err := scanProposal(q.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = $1`, id))
		if err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE proposals SET status = 'failed', note = $1 WHERE id = $2 AND action = 'emission_create' AND status = 'approved'
			AND NOT EXISTS (SELECT 1 FROM emissions e WHERE e.id = proposals.emission_id)`, note, id)
		if err != nil {
			return err
		}
		if n != 1 {
			return fault.Errorf(fault.InvalidState, "the proposal %d is not a creation waiting to be made", id)
		}
		p.Status, p.Note = lottery.ProposalFailed, note
		log.Detail = proposalDetail(p)
		return s.logAction(ctx, q, log)
	}))
}

// DecideProposal approves or rejects a proposal, in one write with its line in the operators'
// log (whose Action it sets: proposal_approved, _rejected or _failed):
//
//  1. the proposal's decisions are taken one at a time, so that two approvals sent at once
//     carry it out once: the second finds it decided (fault.InvalidState);
//  2. a proposal expired or decided already is fault.InvalidState; one of the decider's own is
//     fault.SameOperator; nothing is written then;
//  3. an approval is carried out in the same write: a withdrawal (changeStatus), a change of
//     roles. A creation is approved here, and made after by a server (admin's creations), as
//     long as its id is free. What can no longer be done fails the proposal, saying why.
func (s *DB) DecideProposal(ctx context.Context, d lottery.Decision, log lottery.OperatorAction) (lottery.Proposal, error) {
	var p lottery.Proposal
	err := s.write(ctx, func(q Querier) error {
		var err error
		if err = s.d.lock(ctx, q, "starcolor:proposals"); err != nil {
			return err
		}
		if p, err = scanProposal(q.QueryRow(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE id = $1`, d.Proposal)); err != nil {
			return err
		}
		if err := lottery.CheckDecision(p, d); err != nil {
			return err
		}
		p.Status, p.Note = lottery.ProposalRejected, d.Note
		log.Action = "proposal_rejected"
		if d.Approve {
			p.Status, p.Note = lottery.ProposalApproved, ""
			log.Action = "proposal_approved"
			if err := s.carryOut(ctx, q, p, d); fault.Is(err, fault.InvalidState) || fault.Is(err, fault.NotFound) {
				p.Status, p.Note = lottery.ProposalFailed, fault.Message(err)
				log.Action = "proposal_failed"
			} else if err != nil {
				return err
			}
		}
		p.DeciderID, p.DecidedBy, p.DecidedAt = d.DeciderID, d.DecidedBy, d.At
		n, err := q.Exec(ctx, `UPDATE proposals SET status = $1, decider_id = $2, decided_by = $3, decided_at = $4, note = $5 WHERE id = $6 AND status = 'open'`,
			p.Status, p.DeciderID, p.DecidedBy, s.d.Time(p.DecidedAt), p.Note, p.ID)
		if err != nil {
			return err
		}
		if n != 1 {
			return fault.Errorf(fault.InvalidState, "the proposal %d was decided meanwhile", p.ID)
		}
		log.Detail = proposalDetail(p)
		return s.logAction(ctx, q, log)
	})
	return p, s.fault(err)
}

// carryOut does what an approved proposal says, in the decision's write q.
func (s *DB) carryOut(ctx context.Context, q Querier, p lottery.Proposal, d lottery.Decision) error {
	switch p.Action {
	case lottery.ProposeWithdrawal:
		c := lottery.EmissionChange{Emission: p.Emission, Status: lottery.Withdrawn, Reason: p.Reason, By: d.DecidedBy, At: d.At}
		return s.changeStatus(ctx, q, &c, false)
	case lottery.ProposeCreation:
		if err := s.d.lock(ctx, q, "starcolor:emission:"+p.Emission); err != nil {
			return err
		}
		if _, err := emissionStatus(ctx, q, p.Emission); err == nil {
			return fault.Errorf(fault.InvalidState, "the emission %s exists already", p.Emission)
		} else if !fault.Is(err, fault.NotFound) {
			return err
		}
		return nil
	case lottery.ProposeRoles:
		if err := s.d.lock(ctx, q, "starcolor:operators"); err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE operators SET roles = $1 WHERE id = $2`, p.Roles.String(), p.Target)
		if err == nil && n != 1 {
			err = fault.Errorf(fault.NotFound, "no operator %d", p.Target)
		}
		return err
	}
	return fault.Errorf(fault.InvalidState, "no such proposal: %s", p.Action)
}

// proposalDetail is a proposal's line in the operators' log, as the back office reads it.
func proposalDetail(p lottery.Proposal) string {
	d := struct {
		Proposal int64  `json:"proposal"`
		Proposed string `json:"proposed"`
		Emission string `json:"emission,omitempty"`
		Price    int64  `json:"price,omitempty"`
		Blocks   int    `json:"blocks,omitempty"`
		OnSaleAt string `json:"on_sale_at,omitempty"`
		Operator string `json:"for,omitempty"`
		Roles    string `json:"roles,omitempty"`
		Why      string `json:"why,omitempty"`
		Note     string `json:"note,omitempty"`
	}{Proposal: p.ID, Proposed: p.Action, Emission: p.Emission, Price: p.Price, Blocks: p.Blocks, Operator: p.TargetName, Why: p.Reason, Note: p.Note}
	if !p.OnSaleAt.IsZero() {
		d.OnSaleAt = p.OnSaleAt.UTC().Format(time.RFC3339)
	}
	if p.Roles != 0 {
		d.Roles = p.Roles.String()
	}
	b, _ := json.Marshal(d)
	return string(b)
}
