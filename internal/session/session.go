// Package session is the one implementation of logged-in sessions, for players (the API, the
// player's page) and operators (the back office) alike. A session is a random token in an
// HttpOnly cookie, kept by the store as its SHA-256 only, ended by a logout, by inactivity or by
// age.
//
// Any server of the game can check any session: the store holds them. A process also keeps a
// copy of the sessions it has seen in memory, sparing a read of the store per request:
//
//   - Where it is the only server of its store (SQLite: Config.Cache), the copy is exact, and
//     serves every check.
//   - Over a store shared by several servers, a read (Check) always reads the store, so that a
//     logout on one server ends the session on all of them at once. A write (CheckWrite) may
//     take a copy seen in the last few seconds instead, as it only needs to know whose request
//     it is. It checks its session again in its own transaction, as every write does.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// Store is what sessions need of a store.
type Store interface {
	store.Sessions
}

// Config is a kind of session's policy.
type Config struct {
	Idle     time.Duration    // a session unused this long ends
	Lifetime time.Duration    // a session ends this long after login, whatever happens
	Now      func() time.Time // the clock
	// Cache keeps an exact copy of the sessions in memory: only for a store this process alone
	// serves.
	Cache bool
}

// hintFor is how long, over a shared store, a session read is taken as still there by a write
// (CheckWrite): the write checks it in its own transaction anyway.
const hintFor = 10 * time.Second

// Manager opens, checks and ends the sessions of one kind.
type Manager struct {
	store Store
	kind  string
	cfg   Config

	mu    sync.Mutex
	cache map[[32]byte]*entry
	// gone counts the sessions dropped from the cache. A Check that read a session's row while
	// one was dropped reads it again, so that it cannot put back what a logout took out.
	gone uint64
}

// entry is a session as the cache keeps it.
type entry struct {
	s         lottery.Session
	persisted int64     // the last_seen the store holds
	read      time.Time // when it was read from the store (a hint over a shared store)
}

// New makes the manager of the sessions of a kind (lottery.PlayerSession or OperatorSession).
func New(store Store, kind string, cfg Config) *Manager {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Manager{store: store, kind: kind, cfg: cfg, cache: map[[32]byte]*entry{}}
}

// Hash is a token's hash, as the store knows its session.
func Hash(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// Open starts a session for an owner and returns its token.
func (m *Manager) Open(ctx context.Context, ownerID int64) (string, error) {
	token := NewToken()
	return token, m.OpenToken(ctx, ownerID, token)
}

// OpenChecked is Open for a login that checked the password hash checked: the store refuses
// the session if the player's password changed since (lottery.Session.StillChecked).
func (m *Manager) OpenChecked(ctx context.Context, ownerID int64, checked string) (string, error) {
	token := NewToken()
	h := Hash(token)
	now := m.cfg.Now().Unix()
	s := lottery.Session{Hash: h[:], Kind: m.kind, OwnerID: ownerID, CreatedAt: now, LastSeen: now, Checked: checked}
	return token, m.store.CreateSession(ctx, s)
}

// NewToken is a new session's token: 256 random bits. A session drawn before it is opened
// (OpenToken) can be named first, as a launch names the session it opens.
func NewToken() string {
	raw := make([]byte, 32)
	rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// Draft is a new session for an owner, not yet stored, and its token. It is for a write that
// opens it in its own transaction with other changes: a password changed ends every other
// session and opens this one, in one step.
func (m *Manager) Draft(ownerID int64) (string, lottery.Session) {
	token := NewToken()
	h := Hash(token)
	now := m.cfg.Now().Unix()
	return token, lottery.Session{Hash: h[:], Kind: m.kind, OwnerID: ownerID, CreatedAt: now, LastSeen: now}
}

// OpenToken starts a session for an owner under a token from NewToken.
func (m *Manager) OpenToken(ctx context.Context, ownerID int64, token string) error {
	h := Hash(token)
	now := m.cfg.Now().Unix()
	return m.store.CreateSession(ctx, lottery.Session{Hash: h[:], Kind: m.kind, OwnerID: ownerID, CreatedAt: now, LastSeen: now})
}

// notIn is the answer to a token that opens no session.
var notIn = fault.Errorf(fault.NotLoggedIn, "not logged in, or the session has ended: log in again")

// maxCached is how many sessions are kept in memory before the ended ones are swept out.
const maxCached = 100_000

// Check finds the session of a token, ending it if it has been idle too long or is too old.
// Activity is written at most once a minute per session: enough for a timeout in minutes.
func (m *Manager) Check(ctx context.Context, token string) (lottery.Session, error) {
	return m.check(ctx, token, false)
}

// CheckWrite is Check for a request that writes, and checks its session again in the
// transaction of its write. Over a shared store, a copy read in the last hintFor will do.
func (m *Manager) CheckWrite(ctx context.Context, token string) (lottery.Session, error) {
	return m.check(ctx, token, true)
}

func (m *Manager) check(ctx context.Context, token string, write bool) (lottery.Session, error) {
	if token == "" {
		return lottery.Session{}, notIn
	}
	h := Hash(token)
	now := m.cfg.Now()
	m.mu.Lock()
	e, cached := m.cache[h]
	gone := m.gone
	m.mu.Unlock()
	if cached && !m.cfg.Cache && !(write && now.Sub(e.read) < hintFor) {
		cached = false // a copy over a shared store: read the store
	}
	if !cached {
		s, err := m.store.Session(ctx, h[:])
		if err != nil || s.Kind != m.kind {
			if fault.Is(err, fault.NotLoggedIn) || err == nil {
				m.drop(h)
			}
			return lottery.Session{}, cmp(err, notIn)
		}
		e = &entry{s: s, persisted: s.LastSeen, read: now}
	}
	// The check and the update of the copy in memory are one step: a logout in between would
	// otherwise see its deletion undone.
	m.mu.Lock()
	switch {
	case cached && m.cache[h] != e, !cached && m.gone != gone:
		// Ended (or logged out) since it was read: the row read may be gone too.
		m.mu.Unlock()
		return m.check(ctx, token, write)
	case m.ended(e.s, now):
		delete(m.cache, h)
		m.gone++
		m.mu.Unlock()
		return lottery.Session{}, cmp(m.store.DeleteSession(ctx, h[:]), notIn)
	}
	if !cached {
		if len(m.cache) >= maxCached {
			m.prune(now)
		}
		if prev := m.cache[h]; prev != nil && m.cfg.Cache {
			e = prev // another request put it there first
		} else {
			if prev != nil {
				e.persisted = max(e.persisted, prev.persisted)
			}
			m.cache[h] = e
		}
	}
	e.s.LastSeen = now.Unix()
	persist := e.s.LastSeen-e.persisted >= 60
	if persist {
		e.persisted = e.s.LastSeen
	}
	s := e.s
	m.mu.Unlock()
	if persist {
		if err := m.store.TouchSession(ctx, h[:], now); err != nil {
			return lottery.Session{}, err
		}
	}
	return s, nil
}

// drop forgets the copy of a session the store no longer holds.
func (m *Manager) drop(h [32]byte) {
	m.mu.Lock()
	if _, ok := m.cache[h]; ok {
		delete(m.cache, h)
		m.gone++
	}
	m.mu.Unlock()
}

// cmp is err, or else other.
func cmp(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// End ends the session of a token. Once it returns, no request with the token succeeds, on this
// server or another. It goes in two steps:
//
//  1. It deletes the session's row, so that every check and every write from then on is
//     refused.
//  2. It drops the session's copy in memory.
func (m *Manager) End(ctx context.Context, token string) error {
	h := Hash(token)
	err := m.store.DeleteSession(ctx, h[:])
	m.mu.Lock()
	delete(m.cache, h)
	m.gone++
	m.mu.Unlock()
	return err
}

// EndedAll forgets this server's copies of every session of an owner, which the store has just
// ended (a self-exclusion), as End does for one. A check that read one of them meanwhile reads
// it again.
func (m *Manager) EndedAll(ownerID int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, e := range m.cache {
		if e.s.OwnerID == ownerID {
			delete(m.cache, h)
		}
	}
	m.gone++
}

// Forget drops the copy of a session, by its hash: a write found it ended in its transaction (a
// logout on another server). The next request then reads the store again.
func (m *Manager) Forget(hash []byte) {
	if len(hash) == 32 {
		m.drop([32]byte(hash))
	}
}

// Sweep deletes the sessions of its kind that have ended, idle too long or too old. (A session
// is refused as soon as it has ended; this only keeps the table to the live ones.)
func (m *Manager) Sweep(ctx context.Context) error {
	now := m.cfg.Now()
	return m.store.DeleteExpiredSessions(ctx, m.kind, now.Add(-m.cfg.Idle), now.Add(-m.cfg.Lifetime))
}

// Lifetime is how long a session lasts at most, as its cookie is told.
func (m *Manager) Lifetime() time.Duration { return m.cfg.Lifetime }

// ended tells whether a session has been idle too long or is too old.
func (m *Manager) ended(s lottery.Session, now time.Time) bool {
	return now.Sub(time.Unix(s.LastSeen, 0)) > m.cfg.Idle || now.Sub(time.Unix(s.CreatedAt, 0)) > m.cfg.Lifetime
}

// prune drops the sessions that have ended from the cache, and over a shared store the copies
// too old to serve as hints; mu is held.
func (m *Manager) prune(now time.Time) {
	for h, e := range m.cache {
		if m.ended(e.s, now) || (!m.cfg.Cache && now.Sub(e.read) >= hintFor) {
			delete(m.cache, h)
			m.gone++
		}
	}
}
