package lottery

import (
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
)

// Player is a player's account as the server sees it.
type Player struct {
	ID           int64
	Username     string
	AccountID    int64
	Balance      int64 // cents
	PasswordHash string
	Person       *identity.Person // who the player is: nil for accounts made before identities were asked
	// ExcludedUntil is the end of the player's self-exclusion (zero: none ever).
	ExcludedUntil time.Time
	// ClosedAt is when the account was closed (zero: open), and ClosedBy who closed it: its
	// player (ClosedByPlayer) or an import of the list of excluded persons (ClosedByRegister).
	ClosedAt time.Time
	ClosedBy string
	// BlockedAt is when an operator blocked play on the account (zero: not blocked): its player
	// cannot log in until an operator unblocks it.
	BlockedAt time.Time
}

// Shut says why the account may not be used at now, or nil: closed (by its player, or by an import
// of the list of excluded persons, which is told as an exclusion), or self-excluded until a time
// to come. A login is refused for it, and so are a new session and a deposit in the store's own
// transaction, so that no money reaches an account once its balance has been paid out.
func (p *Player) Shut(now time.Time) error {
	switch {
	case !p.ClosedAt.IsZero() && p.ClosedBy == ClosedByRegister:
		return fault.Errorf(fault.Excluded, "this account was closed: its holder is on the list of persons excluded from gambling (the national register of gaming bans)")
	case !p.ClosedAt.IsZero() && p.ClosedBy == ClosedByOperator:
		return fault.Errorf(fault.AccountClosed, "this account was closed by the operator")
	case !p.ClosedAt.IsZero():
		return fault.Errorf(fault.AccountClosed, "this account was closed by its player")
	case !p.BlockedAt.IsZero():
		return fault.Errorf(fault.PlayerBlocked, "the operator has blocked play on this account: contact its customer service")
	case p.ExcludedUntil.After(now):
		return fault.Errorf(fault.Excluded, "you excluded yourself from gambling until %s", p.ExcludedUntil.UTC().Format(time.RFC3339))
	}
	return nil
}

// PlayerTotals sums a player's games.
type PlayerTotals struct {
	Games, Winners int64
	Stakes, Prizes int64 // cents
}

// add is the totals with a game more.
func (t PlayerTotals) add(g *Game) PlayerTotals {
	t.Games++
	t.Stakes += g.Stake
	t.Prizes += g.Prize
	if g.Prize > 0 {
		t.Winners++
	}
	return t
}

// Operator is an account of the back office, apart from the players'.
type Operator struct {
	ID           int64
	Name         string
	PasswordHash string
	Roles        Roles
	Disabled     bool // by an admin: cannot log in, and their tokens are refused
}

// OperatorToken is an operator's API token as kept: the SHA-256 of its secret, never the secret
// (docs/spec/OPERATOR.md). A revoked token has RevokedAt set.
type OperatorToken struct {
	ID         int64
	OperatorID int64
	SecretHash [32]byte
	CreatedAt  time.Time
	RevokedAt  time.Time // zero while it is live
}

// Who made a change that no operator of the back office made: the command line (starcolor
// exclusions import, emission create) or the server itself (its start-up emissions).
const (
	ByCommandLine = "command line"
	ByServer      = "server"
)

// OperatorAction is one line of the operators' log: every operator action is kept, failed
// logins included.
type OperatorAction struct {
	ID         int64
	OperatorID int64 // 0 for a failed login under an unknown name
	Name       string
	Action     string
	Detail     string
	Remote     string
	CreatedAt  time.Time
	// Account is the account of the player the action is about (0: none). The log names the
	// player in its detail; the public journal by this account's reference alone
	// (journal.Operator). It is not kept in the log.
	Account int64
}

// PlayerNote is a note an operator kept on a player's account.
type PlayerNote struct {
	ID   int64
	By   string // the operator's name
	Note string
	At   time.Time
}
