package storetest

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// Sessions of players and operators live in one table: each is found by its hash with its kind
// and owner, touched, deleted; the sweep of a kind deletes exactly its ended sessions.
func testSessions(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "sam", 1)
	o, err := f.s.CreateOperator(f.ctx, "oscar", "x", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now})
	if err != nil {
		t.Fatal(err)
	}
	now := f.now
	type session struct {
		name              string
		kind              string
		created, lastSeen time.Duration // before now
		live              bool
	}
	sessions := []session{
		{"fresh", lottery.PlayerSession, 5 * time.Minute, time.Minute, true},
		{"idle", lottery.PlayerSession, 2 * time.Hour, 31 * time.Minute, false},
		{"just within idle", lottery.PlayerSession, 2 * time.Hour, 29 * time.Minute, true},
		{"too old though busy", lottery.PlayerSession, 13 * time.Hour, time.Minute, false},
		{"old but within lifetime", lottery.PlayerSession, 11 * time.Hour, time.Minute, true},
		{"an idle operator's, swept with the operators'", lottery.OperatorSession, 2 * time.Hour, 31 * time.Minute, true},
	}
	hash := func(name string) []byte { h := sha256.Sum256([]byte(name)); return h[:] }
	for _, s := range sessions {
		owner := p.ID
		if s.kind == lottery.OperatorSession {
			owner = o.ID
		}
		if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: hash(s.name), Kind: s.kind, OwnerID: owner,
			CreatedAt: now.Add(-s.created).Unix(), LastSeen: now.Add(-s.created).Unix()}); err != nil {
			t.Fatal(err)
		}
		if err := f.s.TouchSession(f.ctx, hash(s.name), now.Add(-s.lastSeen)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.s.Session(f.ctx, hash("fresh"))
	if err != nil || got.Kind != lottery.PlayerSession || got.OwnerID != p.ID || got.LastSeen != now.Add(-time.Minute).Unix() ||
		got.CreatedAt != now.Add(-5*time.Minute).Unix() || string(got.Hash) != string(hash("fresh")) {
		t.Fatalf("a session read back: %+v, %v", got, err)
	}
	if err := f.s.DeleteExpiredSessions(f.ctx, lottery.PlayerSession, now.Add(-30*time.Minute), now.Add(-12*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		_, err := f.s.Session(f.ctx, hash(s.name))
		if live := err == nil; live != s.live || (!live && !fault.Is(err, fault.NotLoggedIn)) {
			t.Errorf("session %q: %v, want live %v", s.name, err, s.live)
		}
	}
	if err := f.s.DeleteSession(f.ctx, hash("fresh")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Session(f.ctx, hash("fresh")); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a deleted session: %v", err)
	}
	f.ledgerOK(t)
}

// Failed logins are counted one after the other, however many are sent at once: each reserve
// sees the count the previous one left. A throttle's state is kept the same way.
func testLoginsAndThrottles(t *testing.T, h Harness) {
	f := newFixture(t, h)
	subject := lottery.PlayerSubject("Élodie")
	if subject != lottery.PlayerSubject("ÉLODIE") {
		t.Fatal("subjects differ by case")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]bool{}
	for range 20 {
		wg.Go(func() {
			_, err := f.s.ReserveLogin(f.ctx, subject, "192.0.2.1", func(c lottery.LoginFailures) (lottery.LoginFailures, time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				if seen[c.Failures] {
					t.Errorf("two attempts saw %d failures", c.Failures)
				}
				seen[c.Failures] = true
				c.Failures++
				c.LastAt = f.now.Unix()
				if c.Failures >= 5 {
					c.LockedUntil = f.now.Add(time.Hour).Unix()
				}
				return c, 0
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	failures, locked, err := f.s.LoginFailures(f.ctx, subject, f.now)
	if err != nil || failures != 20 || locked != 1 {
		t.Fatalf("failures %d, locked addresses %d (%v), want 20 and 1", failures, locked, err)
	}
	// A reserve that says wait writes nothing.
	if wait, err := f.s.ReserveLogin(f.ctx, subject, "192.0.2.1", func(c lottery.LoginFailures) (lottery.LoginFailures, time.Duration) {
		return lottery.LoginFailures{Failures: 999}, time.Minute
	}); err != nil || wait != time.Minute {
		t.Fatalf("a wait: %v, %v", wait, err)
	}
	if failures, _, _ := f.s.LoginFailures(f.ctx, subject, f.now); failures != 20 {
		t.Fatalf("a refused attempt was counted: %d", failures)
	}
	if err := f.s.ClearLogin(f.ctx, subject, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if failures, locked, _ := f.s.LoginFailures(f.ctx, subject, f.now); failures != 0 || locked != 0 {
		t.Fatalf("after a success: %d failures, %d locked", failures, locked)
	}

	// Throttles: each take sees the state the last one kept.
	var tats []int64
	for range 10 {
		wg.Go(func() {
			_, err := f.s.Throttle(f.ctx, "auth:192.0.2.9", func(tat int64) (int64, time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				tats = append(tats, tat)
				return tat + 1, 0
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, tat := range tats {
		if tat != int64(i) {
			t.Fatalf("throttle states seen %v, want 0 to 9 in turn", tats)
		}
	}
	if wait, err := f.s.Throttle(f.ctx, "auth:192.0.2.9", func(tat int64) (int64, time.Duration) { return 0, time.Second }); err != nil || wait != time.Second {
		t.Fatalf("a refused take: %v, %v", wait, err)
	}
	if _, err := f.s.Throttle(f.ctx, "auth:192.0.2.9", func(tat int64) (int64, time.Duration) {
		if tat != 10 {
			t.Errorf("a refused take changed the state to %d", tat)
		}
		return tat, 0
	}); err != nil {
		t.Fatal(err)
	}
	// Forgetting: states older than the cutoff, and counts quiet and unlocked since it.
	if _, err := f.s.ReserveLogin(f.ctx, lottery.PlayerSubject("old"), "192.0.2.2", func(lottery.LoginFailures) (lottery.LoginFailures, time.Duration) {
		return lottery.LoginFailures{Failures: 1, LastAt: f.now.Add(-2 * time.Hour).Unix()}, 0
	}); err != nil {
		t.Fatal(err)
	}
	n, err := f.s.ForgetLogins(f.ctx, f.now.Add(-time.Hour))
	if err != nil || n != 2 { // the old count, and the throttle's state (10 ns after 1970)
		t.Fatalf("forgot %d rows (%v), want 2", n, err)
	}
}

// Operators: one per name whatever its case, created with its line in the log; the log is
// append-only, newest first, paged by id.
func testOperators(t *testing.T, h Harness) {
	f := newFixture(t, h)
	o, err := f.s.CreateOperator(f.ctx, "Alice", "hash", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", Detail: "cli", CreatedAt: f.now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.CreateOperator(f.ctx, "alice", "hash", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now}); !fault.Is(err, fault.UsernameTaken) {
		t.Fatalf("the same name in another case: %v", err)
	}
	// Names that read alike are one name: the log must not show "aIice" (a capital i) as alice.
	for _, alike := range []string{"aIice", "AIice", "a1ice", "a.lice", "alice_"} {
		if _, err := f.s.CreateOperator(f.ctx, alike, "hash", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now}); !fault.Is(err, fault.UsernameTaken) {
			t.Fatalf("an operator named %q beside Alice: %v", alike, err)
		}
	}
	for _, name := range []string{"alice", "ALICE", "Alice"} {
		if got, err := f.s.OperatorByName(f.ctx, name); err != nil || got.ID != o.ID || got.PasswordHash != "hash" {
			t.Fatalf("operator %q: %+v, %v", name, got, err)
		}
	}
	if _, err := f.s.OperatorByName(f.ctx, "bob"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("an unknown operator: %v", err)
	}
	if got, err := f.s.OperatorByID(f.ctx, o.ID); err != nil || got.Name != "Alice" {
		t.Fatalf("operator by id: %+v, %v", got, err)
	}
	for i := range 5 {
		if err := f.s.LogOperatorAction(f.ctx, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: fmt.Sprintf("a%d", i),
			Remote: "192.0.2.1", CreatedAt: f.now.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.LogOperatorAction(f.ctx, lottery.OperatorAction{Name: "nobody", Action: "login_failed", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	lines, err := f.s.OperatorLog(f.ctx, 3, 0)
	if err != nil || len(lines) != 3 || lines[0].Action != "login_failed" || lines[0].OperatorID != 0 || lines[1].Action != "a4" ||
		!lines[1].CreatedAt.Equal(f.now.Add(4*time.Second)) || lines[1].Remote != "192.0.2.1" {
		t.Fatalf("the latest lines: %+v, %v", lines, err)
	}
	older, err := f.s.OperatorLog(f.ctx, 100, lines[2].ID)
	if err != nil || len(older) != 4 || older[3].Action != "operator_created" || older[3].Detail != "cli" {
		t.Fatalf("the older lines: %+v, %v", older, err)
	}
	for _, q := range []string{`DELETE FROM operator_log`, `UPDATE operator_log SET detail = 'x'`} {
		if err := f.raw.Exec(q); err == nil {
			t.Errorf("%s: the log was changed", q)
		}
	}
}

// Jobs are kept with their progress; a lease is held by one holder at a time until it expires or
// is released.
func testJobsAndLeases(t *testing.T, h Harness) {
	f := newFixture(t, h)
	j := lottery.Job{Emission: "E", Price: 200, Blocks: 3, Operator: "alice", Started: f.now, State: lottery.JobRunning, Total: 3000, Beat: f.now}
	id, err := f.s.CreateJob(f.ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := f.s.RunningJob(f.ctx); err != nil || !ok || got.ID != id || got.Emission != "E" || !got.Started.Equal(f.now) {
		t.Fatalf("the running job: %+v %v %v", got, ok, err)
	}
	j.ID, j.Done, j.State, j.Elapsed, j.Beat = id, 3000, lottery.JobDone, 1500*time.Millisecond, f.now.Add(2*time.Second)
	if err := f.s.UpdateJob(f.ctx, j); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.Job(f.ctx, id); err != nil || !got.Started.Equal(j.Started) || !got.Beat.Equal(j.Beat) ||
		func() bool { got.Started, got.Beat = j.Started, j.Beat; return got != j }() {
		t.Fatalf("the job read back: %+v, %v; want %+v", got, err, j)
	}
	if _, ok, err := f.s.RunningJob(f.ctx); err != nil || ok {
		t.Fatalf("a running job after the end: %v %v", ok, err)
	}
	if _, err := f.s.Job(f.ctx, id+1); !fault.Is(err, fault.NotFound) {
		t.Fatalf("an unknown job: %v", err)
	}

	now := f.now
	take := func(holder string, at time.Time) bool {
		got, err := f.s.TryLease(f.ctx, "sweep", holder, at, at.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := range 10 {
		wg.Go(func() {
			if take(fmt.Sprintf("h%d", i), now) {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Fatalf("%d holders took one lease at once", winners)
	}
	if take("late", now.Add(30*time.Second)) {
		t.Fatal("a lease taken while held")
	}
	if !take("late", now.Add(61*time.Second)) {
		t.Fatal("an expired lease not taken")
	}
	if !take("late", now.Add(62*time.Second)) {
		t.Fatal("its holder could not renew a lease")
	}
	if err := f.s.ReleaseLease(f.ctx, "sweep", "someone else"); err != nil {
		t.Fatal(err)
	}
	if take("other", now.Add(63*time.Second)) {
		t.Fatal("a lease released by someone who did not hold it")
	}
	if err := f.s.ReleaseLease(f.ctx, "sweep", "late"); err != nil {
		t.Fatal(err)
	}
	if !take("other", now.Add(63*time.Second)) {
		t.Fatal("a released lease not taken")
	}
}

// Players are found by their name in any case and alphabet, listed by the start of their name,
// and their games summed.
func testPlayers(t *testing.T, h Harness) {
	f := newFixture(t, h)
	e := f.player(t, "Élodie", 1000)
	if _, err := f.s.CreatePlayer(f.ctx, "ÉLODIE", "x", nil, f.now); !fault.Is(err, fault.UsernameTaken) {
		t.Fatalf("the same name in another case: %v", err)
	}
	// Who holds an account is kept with it, and read back as given; an account without one
	// (made before identities were asked) reads none.
	who, err := identity.ParsePerson("O'Brien", "Élodie Marie", "1990-02-28", f.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.CreatePlayer(f.ctx, "obrien", "x", &who, f.now); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.PlayerByName(f.ctx, "obrien"); err != nil || got.Person == nil || *got.Person != who {
		t.Fatalf("the identity read back: %+v, %v; want %+v", got.Person, err, who)
	}
	if got, err := f.s.PlayerByID(f.ctx, e.ID); err != nil || got.Person != nil {
		t.Fatalf("an account without an identity: %+v, %v", got.Person, err)
	}
	for _, n := range []string{"élodie", "ÉLODIE"} {
		if got, err := f.s.PlayerByName(f.ctx, n); err != nil || got.ID != e.ID || got.Balance != 1000 || got.Username != "Élodie" {
			t.Fatalf("player %q: %+v, %v", n, got, err)
		}
	}
	if _, err := f.s.PlayerByName(f.ctx, "nobody"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("an unknown player: %v", err)
	}
	if _, err := f.s.PlayerByID(f.ctx, e.ID+1000); !fault.Is(err, fault.NotFound) {
		t.Fatalf("an unknown player id: %v", err)
	}
	for _, n := range []string{"ann", "anna", "an_x", "bob"} {
		f.player(t, n, 0)
	}
	if ps, err := f.s.FindPlayers(f.ctx, "an", 10); err != nil || len(ps) != 3 || ps[0].Username != "an_x" || ps[1].Username != "ann" {
		t.Fatalf("players named an…: %+v, %v", ps, err)
	}
	if ps, err := f.s.FindPlayers(f.ctx, "an_", 10); err != nil || len(ps) != 1 {
		t.Fatalf("players named an_… (the _ taken as a letter): %+v, %v", ps, err)
	}
	// By who holds the account: the last name's start, a first name's, the birth date as the
	// register writes it; no case, no accents. Nobody else matches.
	for _, q := range []string{"o'bri", "O'BRIEN", "elodie", "Marie", "mar", "1990-02-28", "28/02/1990"} {
		if ps, err := f.s.FindPlayers(f.ctx, q, 10); err != nil || len(ps) != 1 || ps[0].Username != "obrien" {
			t.Errorf("players found by %q: %+v, %v, want obrien", q, ps, err)
		}
	}
	for _, q := range []string{"brien", "arie", "1990-02-27", "%", "|"} {
		if ps, err := f.s.FindPlayers(f.ctx, q, 10); err != nil || len(ps) != 0 {
			t.Errorf("players found by %q: %+v, %v, want none", q, ps, err)
		}
	}
	var stakes, prizes, winners int64
	for i := range 7 {
		g, err := f.sell(e, fmt.Sprintf("t%d", i))
		if err != nil {
			t.Fatal(err)
		}
		stakes += g.Stake
		prizes += g.Prize
		if g.Prize > 0 {
			winners++
		}
	}
	if tot, err := f.s.PlayerTotals(f.ctx, e.ID); err != nil || tot != (lottery.PlayerTotals{Games: 7, Winners: winners, Stakes: stakes, Prizes: prizes}) {
		t.Fatalf("totals: %+v, %v", tot, err)
	}
	gs, err := f.s.Games(f.ctx, e.ID, 3, 0)
	if err != nil || len(gs) != 3 || gs[0].ID <= gs[1].ID {
		t.Fatalf("the latest games: %+v, %v", gs, err)
	}
	older, err := f.s.Games(f.ctx, e.ID, 10, gs[2].ID)
	if err != nil || len(older) != 4 || older[0].ID >= gs[2].ID {
		t.Fatalf("the older games: %+v, %v", older, err)
	}
	if !gs[0].CreatedAt.Equal(f.now) || gs[0].Mode != lottery.Auto || gs[0].Emission != "S" {
		t.Fatalf("a game read back: %+v", gs[0])
	}
}

// A self-exclusion is one transaction: the whole balance paid out to the bank (a withdrawal that
// says why), the exclusion, every session of the player ended; a session ended before it refuses
// it and changes nothing. It is never shortened (asked again, the later end stays, and what is
// there is paid out); while it runs, no session opens and no deposit lands, whatever their
// session; it bars a new account of the same identity (however written:
// testLookalikesOfExcluded) until it ends.
func testSelfExclusion(t *testing.T, h Harness) {
	f := newFixture(t, h)
	who, err := identity.ParsePerson("Lefèvre", "Hélène", "1985-07-14", f.now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.s.CreatePlayer(f.ctx, "helene", "x", &who, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.limits(t, p, lottery.MaxLimit, lottery.MaxLimit)
	f.pay(t, p, lottery.Deposit, 200_00, "")
	other := f.player(t, "olga", 0)
	for i, owner := range []int64{p.ID, p.ID, other.ID} {
		if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{byte(i), 1}, Kind: lottery.PlayerSession, OwnerID: owner,
			CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
			t.Fatal(err)
		}
	}
	long := f.now.Add(30 * 24 * time.Hour)
	if _, _, err := f.s.ExcludePlayer(f.ctx, p.ID, []byte("ended"), long, f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("an exclusion from an ended session: %v", err)
	}
	if got, _ := f.s.PlayerByID(f.ctx, p.ID); got.Balance != 200_00 || !got.ExcludedUntil.IsZero() {
		t.Fatalf("a refused exclusion changed the account: %+v", got)
	}
	until, paid, err := f.s.ExcludePlayer(f.ctx, p.ID, []byte{0, 1}, long, f.now)
	if err != nil || until.Sub(long).Abs() >= time.Second || paid != 200_00 {
		t.Fatalf("exclusion: until %s, paid %d, %v; want %s and 20000", until, paid, err, long)
	}
	if got := f.balance(t, p); got != 0 {
		t.Fatalf("balance %d after the exclusion", got)
	}
	f.lastPayout(t, p, 200_00, lottery.PaidAtExclusion)
	for i, live := range []bool{false, false, true} {
		if _, err := f.s.Session(f.ctx, []byte{byte(i), 1}); (err == nil) != live {
			t.Errorf("session %d after the exclusion: %v, want live %v", i, err, live)
		}
	}
	// Nothing reaches the account while it runs: no session opens, no deposit lands (the
	// server's own, without a session, neither).
	if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{3, 1}, Kind: lottery.PlayerSession, OwnerID: p.ID,
		CreatedAt: f.now.Add(time.Hour).Unix(), LastSeen: f.now.Add(time.Hour).Unix()}); !fault.Is(err, fault.Excluded) {
		t.Errorf("a session opened during the exclusion: %v", err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 500, "", f.now.Add(time.Hour)); !fault.Is(err, fault.Excluded) {
		t.Errorf("a deposit during the exclusion: %v", err)
	}
	if until, paid, err := f.s.ExcludePlayer(f.ctx, p.ID, nil, f.now.Add(24*time.Hour), f.now); err != nil || until.Sub(long).Abs() >= time.Second || paid != 0 {
		t.Errorf("a shorter exclusion: ends %s, paid %d, %v; want %s still, nothing paid", until, paid, err, long)
	}
	if got, err := f.s.PlayerByID(f.ctx, p.ID); err != nil || got.ExcludedUntil.Sub(long).Abs() >= time.Second {
		t.Errorf("excluded until %s, %v", got.ExcludedUntil, err)
	}
	same, _ := identity.ParsePerson("LEFEVRE", "helene", "1985-07-14", f.now)
	if _, err := f.s.CreatePlayer(f.ctx, "helene2", "x", &same, f.now); !fault.Is(err, fault.RegistrationRefused) {
		t.Errorf("a new account of the excluded person: %v", err)
	}
	// Once it has ended, the account is the player's again.
	after := long.Add(time.Second)
	if _, err := f.s.CreatePlayer(f.ctx, "helene3", "x", &same, after); err != nil {
		t.Errorf("a new account once the exclusion ended: %v", err)
	}
	if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{4, 1}, Kind: lottery.PlayerSession, OwnerID: p.ID,
		CreatedAt: after.Unix(), LastSeen: after.Unix()}); err != nil {
		t.Errorf("a session once the exclusion ended: %v", err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 500, "", after); err != nil {
		t.Errorf("a deposit once the exclusion ended: %v", err)
	}
	f.ledgerOK(t)
}

// A closure is one transaction: the whole balance paid out to the bank (a withdrawal that says
// why), the account closed, every session of the player ended; a session ended before it refuses
// it and changes nothing. Once closed, no session opens and no deposit lands, whatever their
// session; closing again pays nothing and keeps the first closure.
func testClosure(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "clotilde", 700)
	if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{7}, Kind: lottery.PlayerSession, OwnerID: p.ID,
		CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.ClosePlayer(f.ctx, p.ID, []byte("ended"), f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a closure from an ended session: %v", err)
	}
	if got, _ := f.s.PlayerByID(f.ctx, p.ID); got.Balance != 700 || !got.ClosedAt.IsZero() {
		t.Fatalf("a refused closure changed the account: %+v", got)
	}
	if _, err := f.s.Session(f.ctx, []byte{7}); err != nil {
		t.Fatalf("a refused closure ended the session: %v", err)
	}
	if paid, err := f.s.ClosePlayer(f.ctx, p.ID, []byte{7}, f.now); err != nil || paid != 700 {
		t.Fatalf("closing with 700 cents in it: paid %d, %v", paid, err)
	}
	if _, err := f.s.Session(f.ctx, []byte{7}); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("the session after the closure: %v", err)
	}
	got, err := f.s.PlayerByID(f.ctx, p.ID)
	if err != nil || got.ClosedAt.IsZero() || got.ClosedBy != lottery.ClosedByPlayer || got.Balance != 0 {
		t.Fatalf("after the closure: %+v, %v", got, err)
	}
	f.lastPayout(t, p, 700, lottery.PaidAtClosure)
	later := f.now.Add(time.Hour)
	if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: []byte{8}, Kind: lottery.PlayerSession, OwnerID: p.ID,
		CreatedAt: later.Unix(), LastSeen: later.Unix()}); !fault.Is(err, fault.AccountClosed) {
		t.Errorf("a session of a closed account: %v", err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 500, "", later); !fault.Is(err, fault.AccountClosed) {
		t.Errorf("a deposit to a closed account: %v", err)
	}
	if paid, err := f.s.ClosePlayer(f.ctx, p.ID, nil, later); err != nil || paid != 0 {
		t.Errorf("closing again: paid %d, %v", paid, err)
	}
	if again, _ := f.s.PlayerByID(f.ctx, p.ID); !again.ClosedAt.Equal(got.ClosedAt) {
		t.Errorf("closing again moved the closure from %s to %s", got.ClosedAt, again.ClosedAt)
	}
	f.ledgerOK(t)
}
