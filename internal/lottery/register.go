package lottery

import (
	"fmt"
	"strings"
	"time"
)

// The operator's list of excluded persons: the national register of gaming bans, imported from
// a file the regulator gives (identity.ParseRegister). An import replaces the list: persons whose
// ban has ended are no longer on it. A listed person cannot open an account, and an open account
// of a person newly listed is closed (its balance paid out, its sessions ended).

// Closure reasons: who closed an account.
const (
	ClosedByPlayer   = "player"
	ClosedByRegister = "register"
	ClosedByOperator = "operator" // from the back office, by an operator with finance or compliance
)

// RegisterImport is one import of the list, as kept with its counts.
type RegisterImport struct {
	ID     int64
	At     time.Time
	By     string // the operator's name, or "command line"
	Source string // the file's name
	Listed int    // persons on the list after it
	Added  int    // persons not on the list before
	Gone   int    // persons on the list before, not on this one
	Closed int    // open accounts of listed persons, closed
	// ClosedPlayers are the accounts it closed.
	ClosedPlayers []ClosedAccount
}

// ClosedAccount is an account an import closed, and what its balance paid out.
type ClosedAccount struct {
	PlayerID int64
	Username string
	PaidOut  int64 // cents
}

// Summary is the import in a line, for the logs: its file and counts, and the accounts it closed.
func (imp RegisterImport) Summary() string {
	line := fmt.Sprintf("%s: %d listed, %d added, %d gone, %d accounts closed", imp.Source, imp.Listed, imp.Added, imp.Gone, imp.Closed)
	if len(imp.ClosedPlayers) > 0 {
		names := make([]string, len(imp.ClosedPlayers))
		for i, c := range imp.ClosedPlayers {
			names[i] = fmt.Sprintf("%s (%d cents paid out)", c.Username, c.PaidOut)
		}
		line += ": " + strings.Join(names, ", ")
	}
	return line
}
