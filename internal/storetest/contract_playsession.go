package storetest

import (
	"fmt"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The play session of the reality checks (docs/spec/API.md 1.1):
//
//   - it begins at the player's earliest session still live, whichever device opened it;
//   - it sums the stakes and prizes of the player's games sold since, none other;
//   - the last check answered « Continuer » holds for that play session only, and never goes
//     back.
func testPlaySession(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "paule", 100_00)
	other := f.player(t, "otto", 100_00)
	const idle, life = 30 * time.Minute, 12 * time.Hour
	read := func(at time.Time) (lottery.PlaySession, error) {
		return f.s.PlaySession(f.ctx, p.ID, at.Add(-idle), at.Add(-life))
	}
	at := func(d time.Duration) time.Time { return f.now.Add(d) }
	open := func(name string, kind string, d time.Duration, owner int64) []byte {
		t.Helper()
		hash := []byte(fmt.Sprintf("%-32s", name))
		s := lottery.Session{Hash: hash, Kind: kind, OwnerID: owner, CreatedAt: at(d).Unix(), LastSeen: at(d).Unix()}
		if err := f.s.CreateSession(f.ctx, s); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	sell := func(who lottery.Player, key string, d time.Duration) lottery.Game {
		t.Helper()
		g, err := f.s.Sell(f.ctx, f.sale(who, key), at(d))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if _, err := read(f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a play session with no session live: %v", err)
	}
	sell(p, "before", 0) // before the play session: not counted
	// An operator's session of the same id is not the player's.
	open("operator", lottery.OperatorSession, -2*time.Hour, p.ID)
	phone := open("phone", lottery.PlayerSession, time.Minute, p.ID)
	var staked, won int64
	for i := range 3 {
		g := sell(p, fmt.Sprint("g", i), time.Duration(i+2)*time.Minute)
		staked, won = staked+g.Stake, won+g.Prize
	}
	sell(other, "otto", 3*time.Minute) // another player's
	open("otto", lottery.PlayerSession, -time.Hour, other.ID)
	want := lottery.PlaySession{StartedAt: at(time.Minute), Staked: staked, Won: won, Games: 3}
	check := func(what string, got lottery.PlaySession, err error, want lottery.PlaySession) {
		t.Helper()
		if err != nil || !got.StartedAt.Equal(want.StartedAt) || got.Staked != want.Staked || got.Won != want.Won ||
			got.Games != want.Games || got.Checked != want.Checked {
			t.Errorf("%s: %+v %v, want %+v", what, got, err, want)
		}
	}
	ps, err := read(at(5 * time.Minute))
	check("one device", ps, err, want)
	if ps.Net() != won-staked {
		t.Errorf("net %d, want %d", ps.Net(), won-staked)
	}
	// A second device joins the play session of the first.
	desk := open("desk", lottery.PlayerSession, 10*time.Minute, p.ID)
	g := sell(p, "g3", 11*time.Minute)
	want.Staked, want.Won, want.Games = want.Staked+g.Stake, want.Won+g.Prize, 4
	ps, err = read(at(12 * time.Minute))
	check("two devices", ps, err, want)

	// A check answered on one device holds on all; a later answer of an earlier check (a tab
	// behind) does not take it back.
	want.Checked = 15
	ps, err = f.s.AnswerRealityCheck(f.ctx, p.ID, at(16*time.Minute).Add(-idle), at(16*time.Minute).Add(-life), 15)
	check("a check answered", ps, err, want)
	ps, err = f.s.AnswerRealityCheck(f.ctx, p.ID, at(16*time.Minute).Add(-idle), at(16*time.Minute).Add(-life), 10)
	check("an earlier check answered late", ps, err, want)
	ps, err = read(at(17 * time.Minute))
	check("read after the answers", ps, err, want)

	// The phone idles out while the desk goes on: the play session is now the desk's, with its
	// games and none of its checks yet.
	if err := f.s.TouchSession(f.ctx, desk, at(35*time.Minute)); err != nil {
		t.Fatal(err)
	}
	ps, err = read(at(36 * time.Minute))
	check("the first device idle", ps, err, lottery.PlaySession{StartedAt: at(10 * time.Minute), Staked: g.Stake, Won: g.Prize, Games: 1})
	ps, err = f.s.AnswerRealityCheck(f.ctx, p.ID, at(36*time.Minute).Add(-idle), at(36*time.Minute).Add(-life), 15)
	check("a check of the new play session", ps, err, lottery.PlaySession{StartedAt: at(10 * time.Minute), Staked: g.Stake, Won: g.Prize, Games: 1, Checked: 15})

	// Every session ended: no play session, and no answer recorded.
	for _, h := range [][]byte{phone, desk} {
		if err := f.s.DeleteSession(f.ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := read(at(37 * time.Minute)); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a play session once every session ended: %v", err)
	}
	if _, err := f.s.AnswerRealityCheck(f.ctx, p.ID, at(37*time.Minute).Add(-idle), at(37*time.Minute).Add(-life), 30); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a check answered with no session live: %v", err)
	}
	// A new login begins a new play session, past its lifetime the old one would have ended anyway.
	open("again", lottery.PlayerSession, 13*time.Hour, p.ID)
	ps, err = read(at(13 * time.Hour))
	check("a new login", ps, err, lottery.PlaySession{StartedAt: at(13 * time.Hour)})
	if _, err := f.s.PlaySession(f.ctx, 1<<40, f.now, f.now); !fault.Is(err, fault.NotFound) {
		t.Errorf("the play session of no player: %v", err)
	}
}
