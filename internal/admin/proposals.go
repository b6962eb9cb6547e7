package admin

import (
	"context"
	"strings"
	"unicode/utf8"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// ProposalStore is what four eyes need of a store.
type ProposalStore interface {
	CreateProposal(ctx context.Context, p lottery.Proposal, log lottery.OperatorAction) (lottery.Proposal, error)
	DecideProposal(ctx context.Context, d lottery.Decision, log lottery.OperatorAction) (lottery.Proposal, error)
}

// oneLine checks a reason an operator gives: one line of text, lottery.MaxReason bytes at most,
// and, if required, not empty. It returns it trimmed.
func oneLine(reason string, required bool) (string, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case required && reason == "":
		return "", fault.Errorf(fault.Invalid, "a reason is required")
	case len(reason) > lottery.MaxReason || !utf8.ValidString(reason) || strings.ContainsFunc(reason, isControl):
		return "", fault.Errorf(fault.Invalid, "the reason is one line of text, %d bytes at most", lottery.MaxReason)
	}
	return reason, nil
}

// ProposeWithdrawal proposes that the emission id be withdrawn, as by's operator: an approver
// other than them carries it out (DecideProposal). It serves the back office and the API.
func ProposeWithdrawal(ctx context.Context, db ProposalStore, id, reason string, by lottery.OperatorAction) (lottery.Proposal, error) {
	reason, err := oneLine(reason, true)
	if err != nil {
		return lottery.Proposal{}, err
	}
	return db.CreateProposal(ctx, lottery.Proposal{Action: lottery.ProposeWithdrawal, Emission: id, Reason: reason,
		ProposerID: by.OperatorID, ProposedBy: by.Name, ProposedAt: by.CreatedAt},
		lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "proposal_made", Remote: by.Remote, CreatedAt: by.CreatedAt})
}

// Decide approves or rejects the proposal id, as by's operator; a rejection says why.
func Decide(ctx context.Context, db ProposalStore, id int64, approve bool, note string, by lottery.OperatorAction) (lottery.Proposal, error) {
	note, err := oneLine(note, !approve)
	if err != nil {
		return lottery.Proposal{}, err
	}
	return db.DecideProposal(ctx, lottery.Decision{Proposal: id, Approve: approve, DeciderID: by.OperatorID, DecidedBy: by.Name, At: by.CreatedAt, Note: note},
		lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Remote: by.Remote, CreatedAt: by.CreatedAt})
}
