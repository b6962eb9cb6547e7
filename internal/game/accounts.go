package game

import (
	"context"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/session"
	"starcolor/internal/throttle"
)

// Passwords is what a player's password must be.
var Passwords = passhash.Policy{MinRunes: 8}

// Registration is what a sign-up gives (docs/spec/API.md 1.1): the credentials, and who the player is (their
// identity, checked for age on the server's date).
type Registration struct {
	Username, Password              string
	LastName, FirstNames, BirthDate string // the birth date written YYYY-MM-DD
}

// Register creates a player with an empty wallet; addr is the client's address (throttle.Address).
func (s *Service) Register(ctx context.Context, r Registration, addr string) (Player, error) {
	if err := s.money.accounts(); err != nil {
		return Player{}, err
	}
	username, err := identity.Username(r.Username)
	if err != nil {
		return Player{}, fault.Errorf(fault.InvalidUsername, "%v", err)
	}
	if err := Passwords.Check(username, r.Password); err != nil {
		return Player{}, fault.Errorf(fault.WeakPassword, "%v", err)
	}
	now := s.now()
	person, err := identity.ParsePerson(r.LastName, r.FirstNames, r.BirthDate, now)
	if errors.Is(err, identity.ErrScript) {
		// Names in another script are refused. But one that reads as an excluded identity
		// ("Durаnd", a Cyrillic а) meets the refusal its Latin spelling would. So every attempt
		// of an excluded person gets the same answer.
		if rerr := s.db.CheckIdentity(ctx, person, now); rerr != nil {
			return Player{}, s.refused(username, rerr)
		}
	}
	if err != nil {
		return Player{}, fault.Errorf(fault.InvalidIdentity, "%v", err)
	}
	if !person.Adult(now) {
		return Player{}, fault.Errorf(fault.Underage, "gambling is forbidden to minors: an account is opened from %d years old on", identity.Adulthood)
	}
	hash, err := s.guard.Hash(ctx, addr, r.Password)
	if err != nil {
		return Player{}, err
	}
	p, err := s.db.CreatePlayer(ctx, username, hash, &person, now)
	return Player{ID: p.ID, Username: p.Username, AccountID: p.AccountID}, s.refused(username, err)
}

// refused logs why a sign-up was refused for who the person is (fault.RegistrationRefused), for
// the operator: the client is told one message whatever the reason (docs/spec/API.md 1.2). Other errors
// pass as they are.
func (s *Service) refused(username string, err error) error {
	var f *fault.Error
	if errors.As(err, &f) && f.Code == fault.RegistrationRefused && f.Cause != nil {
		s.log.Info("sign-up refused for who the person is", "username", username, "reason", f.Cause.Error())
	}
	return err
}

// Login checks a password and opens a session; it returns the session's token. addr is the
// client's address (throttle.Address): failed logins lock a name from that address only, and
// an unknown name is answered as a known one (login.Guard).
func (s *Service) Login(ctx context.Context, username, password, addr string) (string, Player, error) {
	p, err := s.db.PlayerByName(ctx, username)
	if err != nil && !fault.Is(err, fault.NotFound) {
		return "", Player{}, err
	}
	subject := lottery.PlayerSubject(username)
	if err := s.guard.Check(ctx, subject, addr, password, p.PasswordHash); err != nil {
		return "", Player{}, err
	}
	if err := s.db.ClearLogin(ctx, subject, addr); err != nil {
		return "", Player{}, err
	}
	if err := p.Shut(s.now()); err != nil {
		return "", Player{}, err
	}
	// An exclusion, a closure or a password change committed since the player was read (while
	// the password was hashed) makes the store refuse the session.
	token, err := s.sessions.OpenChecked(ctx, p.ID, p.PasswordHash)
	if err != nil {
		return "", Player{}, err
	}
	return token, Player{ID: p.ID, Username: p.Username, Balance: p.Balance, AccountID: p.AccountID}, nil
}

// Logout ends a session: once it returns, no request with the token succeeds, on any server
// (session.Manager.End).
func (s *Service) Logout(ctx context.Context, token string) error {
	return s.sessions.End(ctx, token)
}

// maxPlayers is how many players' identities are kept in memory before they are forgotten.
const maxPlayers = 100_000

// Authenticate finds the player of a session token, ending sessions idle or too old. The
// player's balance is not read: Me does that.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	return s.authenticate(ctx, token, false)
}

// AuthenticateWrite is Authenticate for a request that moves money or plays: a payment, a sale,
// a move. Those check the session again in their own transaction. So a copy of the session this
// server read a moment ago will do (session.Manager.CheckWrite).
func (s *Service) AuthenticateWrite(ctx context.Context, token string) (Player, error) {
	return s.authenticate(ctx, token, true)
}

func (s *Service) authenticate(ctx context.Context, token string, write bool) (Player, error) {
	check := s.sessions.Check
	if write {
		check = s.sessions.CheckWrite
	}
	sess, err := check(ctx, token)
	if err != nil {
		return Player{}, err
	}
	s.playersMu.Lock()
	p, known := s.players[sess.OwnerID]
	s.playersMu.Unlock()
	if !known {
		stored, err := s.db.PlayerByID(ctx, sess.OwnerID)
		if err != nil {
			return Player{}, err
		}
		p = Player{ID: stored.ID, Username: stored.Username, AccountID: stored.AccountID}
		s.playersMu.Lock()
		if len(s.players) >= maxPlayers {
			clear(s.players)
		}
		s.players[p.ID] = p
		s.playersMu.Unlock()
	}
	h := session.Hash(token)
	p.session = h[:]
	return p, nil
}

// Me is an authenticated player with their balance. In wallet mode the balance is asked of the
// wallet for the player's session, which names its own launch's operator's session.
func (s *Service) Me(ctx context.Context, who Player) (Player, error) {
	p, err := s.db.PlayerByID(ctx, who.ID)
	me := Player{ID: p.ID, Username: p.Username, Balance: p.Balance, AccountID: p.AccountID, session: who.session}
	if err == nil {
		me.Balance, err = s.money.balance(ctx, me)
	}
	return me, err
}

// ForgetExpiredSessions deletes:
//   - the players' sessions that have ended, idle too long or too old;
//   - the demo sessions that have ended, with their games;
//   - the counts of failed logins and of requests quiet for throttle.Forget.
//
// A session is refused as soon as it has ended, and an old count is ignored. This only keeps the
// tables to the live ones.
func (s *Service) ForgetExpiredSessions(ctx context.Context) error {
	if _, err := s.db.ForgetLogins(ctx, s.now().Add(-throttle.Forget)); err != nil {
		return err
	}
	if err := s.forgetDemos(ctx); err != nil {
		return err
	}
	return s.sessions.Sweep(ctx)
}

// ended forgets this server's copy of the session of a write refused for its session.
func (s *Service) ended(p Player, err error) error {
	if fault.Is(err, fault.NotLoggedIn) {
		s.sessions.Forget(p.session)
	}
	return err
}

// Exclusion bounds a self-exclusion, in days (docs/spec/API.md 1.1).
const (
	MinExclusionDays = 1
	MaxExclusionDays = 365
)

// Exclude excludes the player from gambling for a number of days from now
// (docs/spec/API.md 1.2). In one step of the store:
//   - the balance is paid out to the bank, as a closure pays it;
//   - every session of theirs ends, on every server (the store deletes them; this server forgets
//     its copies);
//   - no money reaches the account afterwards.
//
// Login is refused until the exclusion ends, and no account may be opened with their identity
// meanwhile. An exclusion is never shortened: one asked while another runs longer leaves the
// longer, and still pays out what is there. Exclude returns the end of the exclusion in force
// and the amount paid out.
func (s *Service) Exclude(ctx context.Context, p Player, days int) (time.Time, int64, error) {
	if err := s.money.accounts(); err != nil {
		return time.Time{}, 0, err
	}
	if days < MinExclusionDays || days > MaxExclusionDays {
		return time.Time{}, 0, fault.Errorf(fault.Invalid, "an exclusion lasts %d to %d days", MinExclusionDays, MaxExclusionDays)
	}
	now := s.now()
	until, paid, err := s.db.ExcludePlayer(ctx, p.ID, p.session, now.Add(time.Duration(days)*24*time.Hour), now)
	if err != nil {
		return time.Time{}, 0, s.ended(p, err)
	}
	s.sessions.EndedAll(p.ID)
	return until, paid, nil
}

// Close closes the player's account (docs/spec/API.md 1.1). In one step of the store, its whole
// balance is paid out to the bank, whatever sales run meanwhile, the account closes, and every
// session of the player ends. The player cannot log in again, and no money reaches the account
// afterwards. Close returns what was paid out.
func (s *Service) Close(ctx context.Context, p Player) (int64, error) {
	if err := s.money.accounts(); err != nil {
		return 0, err
	}
	paid, err := s.db.ClosePlayer(ctx, p.ID, p.session, s.now())
	if err != nil {
		return 0, s.ended(p, err)
	}
	s.sessions.EndedAll(p.ID)
	return paid, nil
}

// SessionsEnded tells this server that every session of these players has ended in the store,
// so that it forgets its copies at once. Their accounts were closed by an import of the list of
// excluded persons.
func (s *Service) SessionsEnded(playerIDs ...int64) {
	for _, id := range playerIDs {
		s.sessions.EndedAll(id)
	}
}

// ChangePassword replaces the player's password with a new one under the rules of a sign-up
// (Passwords), once their current one is checked as a login checks it. A wrong one is
// fault.WrongPassword and counts as a failed login for the player's name from addr. So a stolen
// session cannot guess the password faster than the login page could. In one step of the store:
//   - the hash is replaced;
//   - every session of the player ends, on every server;
//   - a fresh session opens in their place.
//
// It returns the fresh session's token, for the client that asked. In wallet mode the operator
// keeps its players' access: there is no password here.
func (s *Service) ChangePassword(ctx context.Context, p Player, current, next, addr string) (string, error) {
	if err := s.money.accounts(); err != nil {
		return "", err
	}
	stored, err := s.db.PlayerByID(ctx, p.ID)
	if err != nil {
		return "", err
	}
	if err := Passwords.Check(stored.Username, next); err != nil {
		return "", fault.Errorf(fault.WeakPassword, "%v", err)
	}
	subject := lottery.PlayerSubject(stored.Username)
	if err := s.guard.Check(ctx, subject, addr, current, stored.PasswordHash); err != nil {
		if fault.Is(err, fault.NotLoggedIn) {
			return "", fault.Errorf(fault.WrongPassword, "the current password is wrong: nothing was changed")
		}
		return "", err
	}
	if err := s.db.ClearLogin(ctx, subject, addr); err != nil {
		return "", err
	}
	hash, err := s.guard.Hash(ctx, addr, next)
	if err != nil {
		return "", err
	}
	token, fresh := s.sessions.Draft(p.ID)
	if err := s.db.ChangePassword(ctx, p.ID, p.session, hash, fresh); err != nil {
		return "", s.ended(p, err)
	}
	s.sessions.EndedAll(p.ID)
	s.log.Info("password changed: every other session of the player ended", "player", p.ID)
	return token, nil
}
