package lottery

import "starcolor/internal/identity"

// The kinds of session: a player's (the API and the player's page) and an operator's (the back
// office). One table keeps both, and one implementation serves both (internal/session).
const (
	PlayerSession   = "player"
	OperatorSession = "operator"
)

// Session is a logged-in session, known by the SHA-256 of its token: the store never holds a
// usable token.
type Session struct {
	Hash      []byte
	Kind      string // PlayerSession or OperatorSession
	OwnerID   int64  // the player's or the operator's id
	CreatedAt int64  // unix seconds
	LastSeen  int64
}

// PlayerSubject and OperatorSubject name the account a login attempt is for, as its failures are
// counted: its kind and the name's key (identity.UsernameKey: case and widths do not matter),
// whether or not such an account exists. A name longer than any account's is cut, to bound what
// is stored.
func PlayerSubject(name string) string { return subject("player:", name) }

// OperatorSubject is PlayerSubject for the back office's operators.
func OperatorSubject(name string) string { return subject("operator:", name) }

func subject(kind, name string) string {
	name = identity.UsernameKey(name)
	if len(name) > 64 {
		name = name[:64]
	}
	return kind + name
}

// LoginFailures is what is counted of the failed logins of a subject from one address: the
// attempts in a row that did not log in, until when they lock it out, and the last one (unix
// seconds).
type LoginFailures struct {
	Failures    int
	LockedUntil int64
	LastAt      int64
}
