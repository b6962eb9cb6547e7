package game

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
)

// Passwords is what a player's password must be.
var Passwords = passhash.Policy{MinRunes: 8}

// Register creates a player with an empty wallet; addr is the client's address (throttle.Address).
func (s *Service) Register(ctx context.Context, username, password, addr string) (Player, error) {
	username, err := identity.Username(username)
	if err != nil {
		return Player{}, fault.Errorf(fault.InvalidUsername, "%v", err)
	}
	if err := Passwords.Check(username, password); err != nil {
		return Player{}, fault.Errorf(fault.WeakPassword, "%v", err)
	}
	hash, err := s.guard.Hash(ctx, addr, password)
	if err != nil {
		return Player{}, err
	}
	var p sqlite.Player
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		var err error
		p, err = tx.CreatePlayer(username, hash, s.now())
		return err
	})
	return Player{ID: p.ID, Username: p.Username, AccountID: p.AccountID}, err
}

// Login checks a password and opens a session; it returns the session's token. addr is the
// client's address (throttle.Address): failed logins lock a name from that address only, and
// an unknown name is answered as a known one (login.Guard).
func (s *Service) Login(ctx context.Context, username, password, addr string) (string, Player, error) {
	p, err := s.db.PlayerByName(ctx, username)
	if err != nil && !fault.Is(err, fault.NotFound) {
		return "", Player{}, err
	}
	subject := sqlite.PlayerSubject(username)
	if err := s.guard.Check(ctx, subject, addr, password, p.PasswordHash); err != nil {
		return "", Player{}, err
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	hash := sha256.Sum256([]byte(token))
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if err := tx.ClearLogin(subject, addr); err != nil {
			return err
		}
		return tx.CreateSession(hash[:], p.ID, s.now())
	})
	return token, Player{ID: p.ID, Username: p.Username, Balance: p.Balance, AccountID: p.AccountID}, err
}

// Logout ends a session. Once it returns, no request with the token succeeds: the session's row
// is deleted first, so that every write checking it from then on is refused, then its copy in
// memory, with a count of logouts that tells a concurrent Authenticate, which may have read the
// row just before the delete, not to put the copy back.
func (s *Service) Logout(ctx context.Context, token string) error {
	hash := sha256.Sum256([]byte(token))
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error { return tx.DeleteSession(hash[:]) })
	s.forgetSession(hash)
	return err
}

// forgetSession drops the copy in memory of a session whose row has been deleted.
func (s *Service) forgetSession(hash [32]byte) {
	s.sessMu.Lock()
	delete(s.sessions, hash)
	s.sessionsGone++
	s.sessMu.Unlock()
}

// session is a session as the server keeps it in memory: this process is the only one to write
// sessions (one server per database file), so the copy is exact, and a request needs no
// database read to know its player.
type session struct {
	player    Player // without balance
	created   int64  // unix seconds
	lastSeen  int64
	persisted int64 // the last_seen the database holds
}

// maxSessions is how many sessions are kept in memory before the ended ones are swept out.
const maxSessions = 100_000

// pruneSessions drops the sessions that have ended; sessMu is held.
func (s *Service) pruneSessions(now time.Time) {
	for h, sess := range s.sessions {
		if s.ended(sess, now) {
			delete(s.sessions, h)
		}
	}
}

// ended tells whether a session has been idle too long or is too old.
func (s *Service) ended(sess *session, now time.Time) bool {
	return now.Sub(time.Unix(sess.lastSeen, 0)) > s.cfg.SessionIdle || now.Sub(time.Unix(sess.created, 0)) > s.cfg.SessionLifetime
}

// Authenticate finds the player of a session token, ending sessions idle or too old. The
// player's balance is not read: Me does that.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	notIn := fault.Errorf(fault.NotLoggedIn, "not logged in, or the session has ended: log in again")
	if token == "" {
		return Player{}, notIn
	}
	hash := sha256.Sum256([]byte(token))
	now := s.now()
	s.sessMu.Lock()
	sess, cached := s.sessions[hash]
	gone := s.sessionsGone
	s.sessMu.Unlock()
	if !cached {
		stored, err := s.db.Session(ctx, hash[:])
		if err != nil {
			return Player{}, err
		}
		p, err := s.db.PlayerByID(ctx, stored.PlayerID)
		if err != nil {
			return Player{}, err
		}
		sess = &session{player: Player{ID: p.ID, Username: p.Username, AccountID: p.AccountID, session: hash[:]},
			created: stored.CreatedAt, lastSeen: stored.LastSeen, persisted: stored.LastSeen}
	}
	// The check and the update of the copy in memory are one step: a logout in between would
	// otherwise see its deletion undone.
	s.sessMu.Lock()
	switch {
	case cached && s.sessions[hash] != sess, !cached && s.sessionsGone != gone:
		// Ended (or logged out) since it was read: the row read may be gone too.
		s.sessMu.Unlock()
		return s.Authenticate(ctx, token)
	case s.ended(sess, now):
		delete(s.sessions, hash)
		s.sessMu.Unlock()
		s.db.Update(ctx, func(tx *sqlite.Tx) error { return tx.DeleteSession(hash[:]) })
		return Player{}, notIn
	}
	if !cached {
		if len(s.sessions) >= maxSessions {
			s.pruneSessions(now)
		}
		if prev := s.sessions[hash]; prev != nil {
			sess = prev // another request put it there first
		} else {
			s.sessions[hash] = sess
		}
	}
	sess.lastSeen = now.Unix()
	// Activity is written at most once a minute per session: enough for a timeout in minutes, and
	// a restarted server reads it back.
	persist := sess.lastSeen-sess.persisted >= 60
	if persist {
		sess.persisted = sess.lastSeen
	}
	player := sess.player
	s.sessMu.Unlock()
	if persist {
		if err := s.db.Update(ctx, func(tx *sqlite.Tx) error { return tx.TouchSession(hash[:], now) }); err != nil {
			return Player{}, err
		}
	}
	return player, nil
}

// Me is a player with their balance.
func (s *Service) Me(ctx context.Context, playerID int64) (Player, error) {
	p, err := s.db.PlayerByID(ctx, playerID)
	return Player{ID: p.ID, Username: p.Username, Balance: p.Balance, AccountID: p.AccountID}, err
}

// ForgetExpiredSessions deletes the sessions that have ended, idle too long or too old, and the
// counts of failed logins quiet for throttle.Forget. (A session is refused as soon as it has
// ended, and an old count is ignored; this only keeps the tables to the live ones.)
func (s *Service) ForgetExpiredSessions(ctx context.Context) error {
	now := s.now()
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ForgetLoginFailures(now.Add(-throttle.Forget)); err != nil {
			return err
		}
		return tx.DeleteExpiredSessions(now.Add(-s.cfg.SessionIdle), now.Add(-s.cfg.SessionLifetime))
	})
}
