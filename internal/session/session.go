// Package session is the one implementation of logged-in sessions, for players (the API, the
// player's page) and operators (the back office) alike: a random token in an HttpOnly cookie,
// kept by the store as its SHA-256 only, ended by a logout, by inactivity or by age.
//
// Any server of the game can check any session: the store holds them. A process may also keep a
// copy of the sessions in memory, sparing a read per request, but only where it is the only
// server of its store (SQLite: Config.Cache); over a store shared by several servers every check
// reads the store, so that a logout on one server ends the session on all of them at once.
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
)

// Store is what sessions need of a store.
type Store interface {
	CreateSession(ctx context.Context, s lottery.Session) error
	// Session finds a session by its token's hash; none is fault.NotLoggedIn.
	Session(ctx context.Context, hash []byte) (lottery.Session, error)
	TouchSession(ctx context.Context, hash []byte, now time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error
	DeleteExpiredSessions(ctx context.Context, kind string, idleBefore, createdBefore time.Time) error
}

// Config is a kind of session's policy.
type Config struct {
	Idle     time.Duration    // a session unused this long ends
	Lifetime time.Duration    // a session ends this long after login, whatever happens
	Now      func() time.Time // the clock
	// Cache keeps a copy of the sessions in memory: only for a store this process alone serves.
	Cache bool
}

// Manager opens, checks and ends the sessions of one kind.
type Manager struct {
	store Store
	kind  string
	cfg   Config

	mu    sync.Mutex
	cache map[[32]byte]*entry
	// gone counts the sessions dropped from the cache: a Check that read a session's row while
	// one was dropped reads it again, so that it cannot put back what a logout took out.
	gone uint64
}

// entry is a session as the cache keeps it.
type entry struct {
	s         lottery.Session
	persisted int64 // the last_seen the store holds
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
	raw := make([]byte, 32)
	rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	h := Hash(token)
	now := m.cfg.Now().Unix()
	err := m.store.CreateSession(ctx, lottery.Session{Hash: h[:], Kind: m.kind, OwnerID: ownerID, CreatedAt: now, LastSeen: now})
	return token, err
}

// notIn is the answer to a token that opens no session.
var notIn = fault.Errorf(fault.NotLoggedIn, "not logged in, or the session has ended: log in again")

// maxCached is how many sessions are kept in memory before the ended ones are swept out.
const maxCached = 100_000

// Check finds the session of a token, ending it if it has been idle too long or is too old.
// Activity is written at most once a minute per session: enough for a timeout in minutes.
func (m *Manager) Check(ctx context.Context, token string) (lottery.Session, error) {
	if token == "" {
		return lottery.Session{}, notIn
	}
	h := Hash(token)
	now := m.cfg.Now()
	if !m.cfg.Cache {
		s, err := m.store.Session(ctx, h[:])
		if err != nil || s.Kind != m.kind {
			return lottery.Session{}, cmp(err, notIn)
		}
		if m.ended(s, now) {
			return lottery.Session{}, cmp(m.store.DeleteSession(ctx, h[:]), notIn)
		}
		if now.Unix()-s.LastSeen >= 60 {
			if err := m.store.TouchSession(ctx, h[:], now); err != nil {
				return lottery.Session{}, err
			}
		}
		return s, nil
	}

	m.mu.Lock()
	e, cached := m.cache[h]
	gone := m.gone
	m.mu.Unlock()
	if !cached {
		s, err := m.store.Session(ctx, h[:])
		if err != nil || s.Kind != m.kind {
			return lottery.Session{}, cmp(err, notIn)
		}
		e = &entry{s: s, persisted: s.LastSeen}
	}
	// The check and the update of the copy in memory are one step: a logout in between would
	// otherwise see its deletion undone.
	m.mu.Lock()
	switch {
	case cached && m.cache[h] != e, !cached && m.gone != gone:
		// Ended (or logged out) since it was read: the row read may be gone too.
		m.mu.Unlock()
		return m.Check(ctx, token)
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
		if prev := m.cache[h]; prev != nil {
			e = prev // another request put it there first
		} else {
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

// cmp is err, or else other.
func cmp(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// End ends the session of a token. Once it returns, no request with the token succeeds, on this
// server or another: the session's row is deleted first, so that every check and every write
// from then on is refused, then its copy in memory.
func (m *Manager) End(ctx context.Context, token string) error {
	h := Hash(token)
	err := m.store.DeleteSession(ctx, h[:])
	m.mu.Lock()
	delete(m.cache, h)
	m.gone++
	m.mu.Unlock()
	return err
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

// prune drops the sessions that have ended from the cache; mu is held.
func (m *Manager) prune(now time.Time) {
	for h, e := range m.cache {
		if m.ended(e.s, now) {
			delete(m.cache, h)
			m.gone++
		}
	}
}
