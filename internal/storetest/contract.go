package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// The contract every store keeps, run on each of them (litestream's replica client suite and
// goatcounter's tests on both databases are the model): internal/sqlite and internal/postgres
// each run Run with a Harness of their own. A store is only real if these pass on it.

// Store is a store as the contract suite drives it: a whole store, and a way to hold its writer
// of batches, so that sales sent meanwhile meet in one batch.
type Store interface {
	store.Store
	Hold() (release func())
}

// Harness is a kind of store as the suite opens it.
type Harness struct {
	// Open opens a new, empty store, closed when the test ends, and a connection of its own to
	// the same database, behind the store's back: how the suite reads what the store wrote, and
	// tampers with it as someone with the database's password (or a failing disk) would. Its
	// statements use '?' for their parameters.
	Open func(t testing.TB) (Store, *Raw)
	// Servers, where several servers may serve one database (PostgreSQL), opens a new, empty
	// database as Open does and n stores on it, each with its own connections and its own batches
	// of sales: n servers of one game. Nil where a database has one server (SQLite: the tests
	// then use Open's store for every server).
	Servers func(t testing.TB, n int) ([]Store, *Raw)
}

// servers is n stores of one new database: n servers of it where the kind of store allows
// several, else one store n times.
func (h Harness) servers(t testing.TB, n int) ([]Store, *Raw) {
	t.Helper()
	if h.Servers != nil {
		return h.Servers(t, n)
	}
	s, raw := h.Open(t)
	out := make([]Store, n)
	for i := range out {
		out[i] = s
	}
	return out, raw
}

// Raw is a connection to a store's database, apart from the store.
type Raw struct {
	DB *sql.DB
	// Rebind turns the suite's '?' parameters into the database's own ($1 … for PostgreSQL).
	Rebind func(query string) string
	// Reopen opens the same database again as a new store, closed when the test ends: what
	// a server started again on it finds.
	Reopen func(t testing.TB) Store
}

// Exec runs a statement.
func (r *Raw) Exec(query string, args ...any) error {
	_, err := r.DB.Exec(r.rebind(query), args...)
	return err
}

// Int reads one integer (a count, a sum: cast to BIGINT for PostgreSQL's sums).
func (r *Raw) Int(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := r.DB.QueryRow(r.rebind(query), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// String reads one text.
func (r *Raw) String(t testing.TB, query string, args ...any) string {
	t.Helper()
	var s string
	if err := r.DB.QueryRow(r.rebind(query), args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}

func (r *Raw) rebind(q string) string {
	if r.Rebind == nil {
		return q
	}
	return r.Rebind(q)
}

// Run runs the contract suite on a kind of store.
func Run(t *testing.T, h Harness) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, Harness)
	}{
		{"SalesInBatches", testSalesInBatches},
		{"UnkeptSales", testUnkeptSales},
		{"KeyRacedAcrossServers", testKeyRacedAcrossServers},
		{"UnreadablePrizeFailsOnlyItsSales", testUnreadablePrize},
		{"SessionEndedRefusesSales", testSessionEndedRefusesSales},
		{"Payments", testPayments},
		{"ConcurrentDuplicateKeys", testConcurrentDuplicateKeys},
		{"Moves", testMoves},
		{"ForgetKeys", testForgetKeys},
		{"Sessions", testSessions},
		{"LoginsAndThrottles", testLoginsAndThrottles},
		{"Operators", testOperators},
		{"OperatorRolesAndTokens", testOperatorRolesAndTokens},
		{"EmissionLife", testEmissionLife},
		{"SuspendRacingSales", testSuspendRacingSales},
		{"Proposals", testProposals},
		{"JobsAndLeases", testJobsAndLeases},
		{"Players", testPlayers},
		{"SelfExclusion", testSelfExclusion},
		{"Closure", testClosure},
		{"ChangePassword", testChangePassword},
		{"ShutRacingSales", testShutRacingSales},
		{"SessionRacingShut", testSessionRacingShut},
		{"Limits", testLimits},
		{"PlaySession", testPlaySession},
		{"LimitEdgeConcurrent", testLimitEdgeConcurrent},
		{"RollingSumsEqualLedger", testRollingSumsEqualLedger},
		{"SweepRacesSales", testSweepRacesSales},
		{"SweepStalestFirst", testSweepStalestFirst},
		{"Register", testRegister},
		{"LookalikesOfExcluded", testLookalikesOfExcluded},
		{"LookalikesOfListed", testLookalikesOfListed},
		{"UsernamesReadAlike", testUsernamesReadAlike},
		{"KeysRemade", testKeysRemade},
		{"WalletOutbox", testWalletOutbox},
		{"WalletOutboxWithoutBodies", testWalletOutboxWithoutBodies},
		{"WalletCallsListed", testWalletCallsListed},
		{"Launches", testLaunches},
		{"ReservedGameIDs", testReservedGameIDs},
		{"WalletSales", testWalletSales},
		{"SalesTotals", testSalesTotals},
		{"PlayerTransfers", testPlayerTransfers},
		{"LedgerCatchesTampering", testLedgerCatchesTampering},
		{"LedgerSince", testLedgerSince},
		{"LedgerSinceWindows", testLedgerSinceWindows},
		{"LedgerMarkKept", testLedgerMarkKept},
		{"JournalSince", testJournalSince},
		{"LedgerSinceUnderSales", testLedgerSinceUnderSales},
		{"Emissions", testEmissions},
		{"DuplicateEmission", testDuplicateEmission},
		{"InterruptedCreationLeavesNothing", testInterruptedCreation},
		{"EmissionIsImmutable", testEmissionIsImmutable},
		{"WithLock", testWithLock},
		{"CheckWrite", testCheckWrite},
		{"Demo", testDemo},
		{"JournalWritePaths", testJournalWritePaths},
		{"JournalFailedWrites", testJournalFailedWrites},
		{"JournalDense", testJournalDense},
		{"JournalServers", testJournalServers},
		{"JournalTilesRace", testJournalTilesRace},
		{"JournalQueuedBefore", testJournalQueuedBefore},
		{"JournalCheckpointRace", testJournalCheckpointRace},
		{"JournalLog", testJournalLog},
		{"JournalCheckClean", testJournalCheckClean},
		{"JournalCheckCatchesTampering", testJournalCheckCatchesTampering},
		{"JournalRebuildRefusesRewrites", testJournalRebuildRefusesRewrites},
		{"JournalCheckNamesAPrizeMadeAStake", testJournalCheckNamesAPrizeMadeAStake},
		{"JournalCheckComparesQueuedGames", testJournalCheckComparesQueuedGames},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

// fixture is a store with a mini emission "S" of two blocks of 1,000 units at 1 €, and a way to
// sell from it.
type fixture struct {
	s      Store
	raw    *Raw
	reader *emission.Reader
	now    time.Time
	ctx    context.Context
}

func newFixture(t *testing.T, h Harness) *fixture {
	t.Helper()
	s, raw := h.Open(t)
	return fixtureOn(t, s, raw)
}

// fixtureOn is newFixture on a store given.
func fixtureOn(t *testing.T, s Store, raw *Raw) *fixture {
	t.Helper()
	e := CreateEmission(t, s, gamedeftest.Mini(t), "S", 100, 2, 's')
	r, err := emission.NewReader(e, s)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, raw: raw, reader: r, now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), ctx: context.Background()}
}

// player signs a player up and deposits an amount.
func (f *fixture) player(t testing.TB, name string, deposit int64) lottery.Player {
	t.Helper()
	p, err := f.s.CreatePlayer(f.ctx, name, "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.limits(t, p, lottery.MaxLimit, lottery.MaxLimit)
	if deposit > 0 {
		f.pay(t, p, lottery.Deposit, deposit, "")
	}
	p.Balance = deposit
	return p
}

// limits sets a player's weekly limits on deposits and on stakes.
func (f *fixture) limits(t testing.TB, p lottery.Player, deposit, stake int64) lottery.Limits {
	t.Helper()
	l, err := f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Deposit: &deposit, Stake: &stake}, "player", f.now)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// pay makes a payment without a session, under a key ("" for none).
func (f *fixture) pay(t testing.TB, p lottery.Player, kind string, amount int64, key string) int64 {
	t.Helper()
	bal, err := f.tryPay(p, kind, amount, key, f.now)
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

// tryPay makes a payment, and returns the balance its answer says.
func (f *fixture) tryPay(p lottery.Player, kind string, amount int64, key string, at time.Time) (int64, error) {
	ans, err := f.s.Pay(f.ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: kind, Amount: amount, Key: key,
		RequestHash: []byte("pay " + key)}, at)
	if err != nil {
		return 0, err
	}
	var b struct{ Balance int64 }
	if err := json.Unmarshal(ans.Body, &b); err != nil {
		return 0, fmt.Errorf("the answer of a payment, %q: %w", ans.Body, err)
	}
	return b.Balance, nil
}

// sale is a sale at 1 € of a unit of S, under a key.
func (f *fixture) sale(p lottery.Player, key string) lottery.SaleRequest {
	return f.saleOf(p, key, 100, f.reader)
}

func (f *fixture) saleOf(p lottery.Player, key string, price int64, r *emission.Reader) lottery.SaleRequest {
	return lottery.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Price: price, Mode: lottery.Auto, Color: 3, Status: lottery.Finished,
		Key: key, RequestHash: []byte("body"),
		Prizes: readerPrizes{r},
	}
}

// readerPrizes reads the units of a sale from its emission's reader (lottery.Prizes).
type readerPrizes struct{ r *emission.Reader }

func (p readerPrizes) Unit(ctx context.Context, _ string, block, unit int) (lottery.SoldUnit, error) {
	rec, err := p.r.Unit(ctx, block, unit)
	if err != nil {
		return lottery.SoldUnit{}, err
	}
	return lottery.SoldUnit{Prize: rec.Prize, Leaf: audit.LeafHash(audit.AppendLine(nil, &rec))}, nil
}

// failedPrizes reads every unit's prize as nothing, with its error (nil: a unit that wins nothing).
type failedPrizes struct{ err error }

func (p failedPrizes) Unit(context.Context, string, int, int) (lottery.SoldUnit, error) {
	return lottery.SoldUnit{}, p.err
}

func (f *fixture) sell(p lottery.Player, key string) (lottery.Game, error) {
	return f.s.Sell(f.ctx, f.sale(p, key), f.now)
}

// balance is a player's balance as the store says.
func (f *fixture) balance(t testing.TB, p lottery.Player) int64 {
	t.Helper()
	got, err := f.s.PlayerByID(f.ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got.Balance
}

// ledgerOK fails the test unless the ledger check finds nothing.
func (f *fixture) ledgerOK(t testing.TB) *lottery.LedgerCheck {
	t.Helper()
	c, err := f.s.CheckLedger(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatalf("ledger: %q", c.Problems)
	}
	return c
}
