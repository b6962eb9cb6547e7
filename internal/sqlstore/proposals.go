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

// CreateProposal keeps a proposal, open, with its line in the operators' log, in one write. A
// withdrawal of an emission that cannot be withdrawn now, or of one whose withdrawal is proposed
// already, is fault.InvalidState; of no emission, fault.NotFound.
func (s *DB) CreateProposal(ctx context.Context, p lottery.Proposal, log lottery.OperatorAction) (lottery.Proposal, error) {
	err := s.write(ctx, func(q Querier) error {
		if p.Action != lottery.ProposeWithdrawal {
			return fault.Errorf(fault.Invalid, "no such proposal: %s", p.Action)
		}
		if err := s.d.lock(ctx, q, "starcolor:emission:"+p.Emission); err != nil {
			return err
		}
		current, err := emissionStatus(ctx, q, p.Emission)
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
		p.Status = lottery.ProposalOpen
		if err := q.QueryRow(ctx, `INSERT INTO proposals (action, emission_id, reason, proposer_id, proposed_by, proposed_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			p.Action, p.Emission, p.Reason, p.ProposerID, p.ProposedBy, s.d.Time(p.ProposedAt)).Scan(&p.ID); err != nil {
			return err
		}
		log.Detail = proposalDetail(p, "")
		return s.logAction(ctx, q, log)
	})
	return p, s.fault(err)
}

const proposalColumns = `id, action, emission_id, reason, proposer_id, proposed_by, proposed_at, status, coalesce(decider_id, 0), coalesce(decided_by, ''), decided_at, note`

func scanProposal(r Row) (lottery.Proposal, error) {
	var p lottery.Proposal
	err := r.Scan(&p.ID, &p.Action, &p.Emission, &p.Reason, &p.ProposerID, &p.ProposedBy, ScanTime(&p.ProposedAt), &p.Status, &p.DeciderID, &p.DecidedBy,
		ScanTime(&p.DecidedAt), &p.Note)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fault.Errorf(fault.NotFound, "no such proposal")
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
	var out []lottery.Proposal
	err := each(s.read.Query(ctx, `SELECT `+proposalColumns+` FROM proposals WHERE `+where+` ORDER BY id DESC LIMIT $1`, args...))(func(r Rows) error {
		p, err := scanProposal(r)
		out = append(out, p)
		return err
	})
	return out, s.fault(err)
}

// DecideProposal approves or rejects a proposal, in one write with its line in the operators'
// log (whose Action it sets: proposal_approved, _rejected or _failed):
//
//  1. the proposal's decisions are taken one at a time, so that two approvals sent at once
//     carry it out once: the second finds it decided (fault.InvalidState);
//  2. a proposal expired or decided already is fault.InvalidState; one of the decider's own is
//     fault.SameOperator; nothing is written then;
//  3. an approved withdrawal is carried out in the same write (changeStatus). If the emission
//     can no longer be withdrawn (sold out meanwhile), the proposal is failed, saying why.
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
			c := lottery.EmissionChange{Emission: p.Emission, Status: lottery.Withdrawn, Reason: p.Reason, By: d.DecidedBy, At: d.At}
			if err := s.changeStatus(ctx, q, &c); fault.Is(err, fault.InvalidState) {
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
		log.Detail = proposalDetail(p, p.Note)
		return s.logAction(ctx, q, log)
	})
	return p, s.fault(err)
}

// proposalDetail is a proposal's line in the operators' log, as the back office reads it.
func proposalDetail(p lottery.Proposal, note string) string {
	b, _ := json.Marshal(struct {
		Proposal int64  `json:"proposal"`
		Proposed string `json:"proposed"`
		Emission string `json:"emission"`
		Why      string `json:"why,omitempty"`
		Note     string `json:"note,omitempty"`
	}{p.ID, p.Action, p.Emission, p.Reason, note})
	return string(b)
}
