package lottery

import (
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
)

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
	// Checked is the password hash a login checked (empty: none), not stored: the store opens
	// the session only if it is still the player's (StillChecked).
	Checked string
}

// StillChecked refuses a session whose login checked a password the player no longer has. A
// login reads the hash, then spends tens of milliseconds checking it: a password changed in
// between ends every session, and must end this one too.
func (s Session) StillChecked(current string) error {
	if s.Checked != "" && s.Checked != current {
		return fault.Errorf(fault.NotLoggedIn, "the password changed during this login: log in with the new one")
	}
	return nil
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

// PlaySession is what a player has played since their play session began, for the reality
// checks (docs/spec/API.md 1.1): the time played and the net result, the same in every tab and on every
// device of the player. A play session begins when the player's earliest session still live was
// opened, so that a second device joins the count of the first; once every session has ended,
// the next login begins a new one.
type PlaySession struct {
	StartedAt time.Time // the opening of the player's earliest live session, to the second
	Staked    int64     // cents: the stakes of the games sold since StartedAt
	Won       int64     // cents: their prizes, known from the sale on [4.1]
	Games     int       // how many games were sold since StartedAt
	// Checked is how far into the play session, in minutes, the last reality check answered
	// « Continuer » stood (0: none yet): every tab and device asks the next one after it.
	Checked int
}

// Net is the play session's result: its prizes less its stakes.
func (p PlaySession) Net() int64 { return p.Won - p.Staked }

// MaxCheckedMinutes bounds the mark of a reality check answered: far beyond any session's
// lifetime (12 hours is 720 minutes), and room for a page whose clock runs faster in tests.
const MaxCheckedMinutes = 1_000_000
