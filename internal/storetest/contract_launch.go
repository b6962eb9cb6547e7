package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The operator's launches (docs/spec/WALLET.md 1.1):
//
//   - a nonce is used once, by any launch;
//   - a second launch with it changes nothing (no account, no token), also when several come at
//     once;
//   - each session opened by a launch is told that launch's own operator's session, whatever
//     later launches of the player say;
//   - a session no launch opened is told the player's first.
func testLaunches(t *testing.T, h Harness) {
	f := newFixture(t, h)
	expires := f.now.Add(lottery.LaunchLifetime)
	launch := func(player, operatorSession, nonce, token string) (lottery.Player, error) {
		return f.s.LaunchPlayer(f.ctx, lottery.Launch{WalletPlayer: player, OperatorSession: operatorSession, Nonce: nonce,
			TokenHash: []byte(token), Expires: expires}, f.now)
	}
	a, err := launch("op-1", "sess-a", "nonce-aaaaaaaaaaaa", "token-a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := launch("op-1", "sess-b", "nonce-bbbbbbbbbbbb", "token-b")
	if err != nil || b.ID != a.ID {
		t.Fatalf("a second launch of the player: %+v %v, want the player %d", b, err, a.ID)
	}
	// A nonce used again, whatever the body: refused, nothing written.
	for _, c := range []struct{ player, session string }{{"op-1", "sess-a"}, {"op-2", "sess-x"}} {
		if _, err := launch(c.player, c.session, "nonce-aaaaaaaaaaaa", "token-again-"+c.player); !fault.Is(err, fault.DuplicateLaunch) {
			t.Errorf("a launch of %s with a nonce used already: %v, want duplicate_launch", c.player, err)
		}
		if _, err := f.s.UseLaunch(f.ctx, []byte("token-again-"+c.player), []byte("s"), f.now); !fault.Is(err, fault.NotLoggedIn) {
			t.Errorf("the token of a launch refused opens a session: %v", err)
		}
	}
	if _, err := f.s.PlayerByName(f.ctx, lottery.WalletUsername("op-2")); !fault.Is(err, fault.NotFound) {
		t.Errorf("a launch refused made its player: %v", err)
	}
	// Eight launches at once with one nonce, each of a new player: one is kept.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = launch(fmt.Sprint("op-race-", i), "s", "nonce-raced-000000", fmt.Sprint("token-race-", i))
		})
	}
	wg.Wait()
	kept := 0
	for i, err := range errs {
		_, found := f.s.PlayerByName(f.ctx, lottery.WalletUsername(fmt.Sprint("op-race-", i)))
		switch {
		case err == nil && found == nil:
			kept++
		case !fault.Is(err, fault.DuplicateLaunch) || !fault.Is(found, fault.NotFound):
			t.Errorf("launch %d of a nonce raced: %v, its player %v", i, err, found)
		}
	}
	if kept != 1 {
		t.Fatalf("%d launches kept of eight with one nonce at once, want 1", kept)
	}

	// Each session is told its own launch's operator's session, before and after a later launch.
	sessionA, sessionB := []byte("session-a"), []byte("session-b")
	for _, u := range []struct {
		token   string
		session []byte
	}{{"token-a", sessionA}, {"token-b", sessionB}} {
		if id, err := f.s.UseLaunch(f.ctx, []byte(u.token), u.session, f.now); err != nil || id != a.ID {
			t.Fatalf("spending %s: %d %v", u.token, id, err)
		}
	}
	if _, err := f.s.UseLaunch(f.ctx, []byte("token-a"), []byte("session-a2"), f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a token spent twice: %v", err)
	}
	told := func(session []byte, want string) {
		t.Helper()
		who, operatorSession, err := f.s.WalletPlayerOf(f.ctx, a.ID, session)
		if err != nil || who != "op-1" || operatorSession != want {
			t.Errorf("the session %q is told %s, %q (%v); want op-1, %q", session, who, operatorSession, err, want)
		}
	}
	told(sessionA, "sess-a")
	told(sessionB, "sess-b")
	if _, err := launch("op-1", "sess-c", "nonce-cccccccccccc", "token-c"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.UseLaunch(f.ctx, []byte("token-c"), []byte("session-c"), f.now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	told(sessionA, "sess-a")
	told(sessionB, "sess-b")
	told([]byte("session-c"), "sess-c")
	told(nil, "sess-a")                 // the server's own calls: the player's first launch's
	told([]byte("another's"), "sess-a") // a session no launch opened, as before 1.1
	if _, _, err := f.s.WalletPlayerOf(f.ctx, f.player(t, "signed-up", 0).ID, sessionA); !fault.Is(err, fault.NotFound) {
		t.Errorf("a player the operator never launched: %v", err)
	}
}
