package admin

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
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

// Creation is an emission to be made: its id, its price in cents, its blocks, and when it goes
// on sale (zero: once made).
type Creation struct {
	ID       string
	Price    int64
	Blocks   int
	OnSaleAt time.Time
}

// CheckCreation checks an emission's order against the game's definition: an id of
// emission.CheckID, a price the game is sold at, 1 to MaxBlocks blocks. Each refusal is
// fault.Invalid and says what is wrong.
func CheckCreation(def *gamedef.Definition, c Creation) error {
	if err := emission.CheckID(c.ID); err != nil {
		return fault.Errorf(fault.Invalid, "the id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	if _, err := def.Table(c.Price); err != nil {
		return fault.Errorf(fault.Invalid, "this game is sold at %s", def.PriceList())
	}
	if c.Blocks < 1 || c.Blocks > MaxBlocks {
		return fault.Errorf(fault.Invalid, "an emission has 1 to %d blocks here", MaxBlocks)
	}
	return nil
}

// ProposeCreation proposes that an emission be made, as by's operator. Once an approver other
// than them approves it, a server makes its units (Server.StartApproved): it is generating,
// then scheduled or on sale.
func ProposeCreation(ctx context.Context, db ProposalStore, def *gamedef.Definition, c Creation, by lottery.OperatorAction) (lottery.Proposal, error) {
	if err := CheckCreation(def, c); err != nil {
		return lottery.Proposal{}, err
	}
	return db.CreateProposal(ctx, lottery.Proposal{Action: lottery.ProposeCreation, Emission: c.ID, Price: c.Price, Blocks: c.Blocks, OnSaleAt: c.OnSaleAt,
		ProposerID: by.OperatorID, ProposedBy: by.Name, ProposedAt: by.CreatedAt},
		lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "proposal_made", Remote: by.Remote, CreatedAt: by.CreatedAt})
}

// ProposeRoles proposes that the operator target have the roles rs, as by's operator.
func ProposeRoles(ctx context.Context, db ProposalStore, target int64, rs lottery.Roles, by lottery.OperatorAction) (lottery.Proposal, error) {
	return db.CreateProposal(ctx, lottery.Proposal{Action: lottery.ProposeRoles, Target: target, Roles: rs,
		ProposerID: by.OperatorID, ProposedBy: by.Name, ProposedAt: by.CreatedAt},
		lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "proposal_made", Remote: by.Remote, CreatedAt: by.CreatedAt})
}

// proposalText says what a proposal proposes, in a language.
func proposalText(lang string, p lottery.Proposal) string {
	say := func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) }
	switch p.Action {
	case lottery.ProposeCreation:
		blocks := fmt.Sprintf(pluralOf(lang, int64(p.Blocks), "%s block", "%s blocks"), number(lang, int64(p.Blocks)))
		if !p.OnSaleAt.IsZero() {
			return say("Create %s: %s at %s, on sale from %s", p.Emission, blocks, money(lang, p.Price), stamp(p.OnSaleAt))
		}
		return say("Create %s: %s at %s", p.Emission, blocks, money(lang, p.Price))
	case lottery.ProposeRoles:
		return say("Give %s the roles: %s", p.TargetName, rolesText(lang, p.Roles))
	}
	return say("Withdraw %s", p.Emission)
}
