package lottery

import (
	"time"

	"starcolor/internal/fault"
)

// Four eyes (docs/spec/OPERATOR.md): what changes the game is a proposal of one operator,
// carried out only once another one, with the approver role, approves it.

// The actions a proposal may carry.
const (
	ProposeCreation   = "emission_create"
	ProposeWithdrawal = "emission_withdraw"
	ProposeRoles      = "operator_roles"
)

// The statuses of a proposal.
const (
	ProposalOpen     = "open"
	ProposalApproved = "approved"
	ProposalRejected = "rejected"
	ProposalExpired  = "expired"
	ProposalFailed   = "failed"
)

// ProposalLife is how long a proposal waits for its decision: past it, it expires.
const ProposalLife = 7 * 24 * time.Hour

// Proposal is a change proposed, and its decision once made.
type Proposal struct {
	ID       int64
	Action   string
	Emission string // the emission it is about (to be made, for a creation)
	Reason   string // why, as the proposer gave it
	// A creation's order: its price in cents, its blocks, when it opens (zero: once made).
	Price    int64
	Blocks   int
	OnSaleAt time.Time
	// A change of roles: the operator's id and name, and the roles they are to have.
	Target     int64
	TargetName string
	Roles      Roles
	ProposerID int64
	ProposedBy string
	ProposedAt time.Time
	Status     string
	DeciderID  int64
	DecidedBy  string
	DecidedAt  time.Time // zero while open
	Note       string    // a rejection's reason, or why carrying it out failed
}

// StatusAt is the proposal's status at now: an open one past ProposalLife has expired.
func (p Proposal) StatusAt(now time.Time) string {
	if p.Status == ProposalOpen && !now.Before(p.ProposedAt.Add(ProposalLife)) {
		return ProposalExpired
	}
	return p.Status
}

// Decision is an approval or a rejection of a proposal by an operator.
type Decision struct {
	Proposal  int64
	Approve   bool
	DeciderID int64
	DecidedBy string
	At        time.Time
	Note      string // a rejection's reason
}

// CheckDecision says whether d may decide p: p open and not expired at d's time, and d's
// operator not its proposer (fault.SameOperator). A proposal is decided once.
func CheckDecision(p Proposal, d Decision) error {
	switch st := p.StatusAt(d.At); {
	case st == ProposalExpired:
		return fault.Errorf(fault.InvalidState, "the proposal %d has expired: a proposal is decided within %s", p.ID, ProposalLife)
	case st != ProposalOpen:
		return fault.Errorf(fault.InvalidState, "the proposal %d is %s already", p.ID, st)
	case p.ProposerID == d.DeciderID:
		return fault.Errorf(fault.SameOperator, "the proposal %d is %s's own: another operator approves or rejects it", p.ID, p.ProposedBy)
	}
	return nil
}
