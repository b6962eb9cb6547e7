package storetest

import (
	"testing"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// A password changed: in one write the hash is replaced, every session of the player ends and
// the fresh one opens; another player's session and an operator's stay. A change from a session
// that has ended, or for an account shut, changes nothing.
func testChangePassword(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "pwd-alice", 0)
	other := f.player(t, "pwd-bob", 0)
	session := func(name string, kind string, owner int64) []byte {
		t.Helper()
		hash := []byte(name)
		if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: hash, Kind: kind, OwnerID: owner, CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	used, phone := session("pwd-used", lottery.PlayerSession, p.ID), session("pwd-phone", lottery.PlayerSession, p.ID)
	bob := session("pwd-bob-tab", lottery.PlayerSession, other.ID)
	op := session("pwd-op", lottery.OperatorSession, p.ID) // an operator of the same id is another owner
	fresh := func(name string) lottery.Session {
		return lottery.Session{Hash: []byte(name), Kind: lottery.PlayerSession, OwnerID: p.ID, CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}
	}
	alive := func(hash []byte) bool {
		t.Helper()
		_, err := f.s.Session(f.ctx, hash)
		if err != nil && !fault.Is(err, fault.NotLoggedIn) {
			t.Fatal(err)
		}
		return err == nil
	}
	hashOf := func(id int64) string {
		t.Helper()
		got, err := f.s.PlayerByID(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return got.PasswordHash
	}

	if err := f.s.ChangePassword(f.ctx, p.ID, used, "hash-2", fresh("pwd-fresh")); err != nil {
		t.Fatal(err)
	}
	if got := hashOf(p.ID); got != "hash-2" {
		t.Errorf("the hash after a change: %q", got)
	}
	if alive(used) || alive(phone) {
		t.Errorf("a session of the player outlived the change: used %v, phone %v", alive(used), alive(phone))
	}
	if s, err := f.s.Session(f.ctx, []byte("pwd-fresh")); err != nil || s.OwnerID != p.ID || s.Kind != lottery.PlayerSession {
		t.Errorf("the fresh session: %+v, %v", s, err)
	}
	if !alive(bob) || !alive(op) || hashOf(other.ID) != "x" {
		t.Error("a change of one player's password ended another's session, an operator's, or changed another hash")
	}

	// From a session ended since (the change just made ended it): nothing changes.
	err := f.s.ChangePassword(f.ctx, p.ID, used, "hash-3", fresh("pwd-fresh-2"))
	if !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a change from an ended session: %v, want not_logged_in", err)
	}
	if hashOf(p.ID) != "hash-2" || alive([]byte("pwd-fresh-2")) || !alive([]byte("pwd-fresh")) {
		t.Error("a refused change changed the hash or the sessions")
	}

	// A login that checked the password the change replaced opens no session: it read the
	// old hash before the change, and would otherwise outlive it.
	late := fresh("pwd-late-login")
	late.Checked = "x"
	if err := f.s.CreateSession(f.ctx, late); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a login that checked the old password: %v, want not_logged_in", err)
	}
	if alive(late.Hash) {
		t.Error("a login that checked the old password opened a session")
	}
	current := fresh("pwd-current-login")
	current.Checked = "hash-2"
	if err := f.s.CreateSession(f.ctx, current); err != nil || !alive(current.Hash) {
		t.Errorf("a login that checked the current password: %v", err)
	}

	// For an account closed: refused, no session opened.
	if _, err := f.s.ClosePlayer(f.ctx, p.ID, nil, f.now); err != nil {
		t.Fatal(err)
	}
	err = f.s.ChangePassword(f.ctx, p.ID, nil, "hash-4", fresh("pwd-fresh-3"))
	if !fault.Is(err, fault.AccountClosed) {
		t.Errorf("a change for a closed account: %v, want account_closed", err)
	}
	if hashOf(p.ID) != "hash-2" || alive([]byte("pwd-fresh-3")) {
		t.Error("a change refused for a closed account changed the hash or opened a session")
	}
}
