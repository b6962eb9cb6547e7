package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The migration tests, run on both stores, of the one history (internal/sqlstore):
//
//   - it refuses two files of one number;
//   - it refuses a step recorded under another name;
//   - a database made by a build before it opens, is renumbered once, and keeps its data. Each
//     dialect numbered its own files then, and SQLite kept some times as integers.

// Migrations is a kind of database as the migration tests make it.
type Migrations struct {
	Dialect sqlstore.Dialect
	// Empty makes a new, empty database. It returns a connection of its own to it, and a way to
	// open a store on it (closed when the test ends). That way returns the store's error if the
	// store refuses the database.
	Empty func(t testing.TB) (*Raw, func() (Store, error))
}

// RunMigrations runs the migration tests on a kind of database.
func RunMigrations(t *testing.T, m Migrations) {
	t.Run("DuplicateNumbersRefused", func(t *testing.T) { testDuplicateNumbers(t, m) })
	t.Run("AppliedAsAnotherFileRefused", func(t *testing.T) { testAppliedAsAnotherFile(t, m) })
	t.Run("LegacyDatabaseOpens", func(t *testing.T) { testLegacyDatabase(t, m) })
	t.Run("TreeToTiles", func(t *testing.T) { testTreeToTiles(t, m) })
	t.Run("SaleLeaves", func(t *testing.T) { testSaleLeaves(t, m) })
	t.Run("OperatorsKeepRoles", func(t *testing.T) { testOperatorsKeepRoles(t, m) })
}

// migrateRaw runs a history on a raw connection as a store runs it on its own.
func migrateRaw(raw *Raw, d sqlstore.Dialect, history fs.FS) error {
	return sqlstore.Migrate(context.Background(), d, history, func(ctx context.Context, fn func(sqlstore.Querier) error) error {
		return sqlstore.InStdTx(ctx, raw.DB, fn)
	})
}

func testDuplicateNumbers(t *testing.T, m Migrations) {
	for _, other := range []string{"0002_other.sql", "0002_two." + m.Dialect.String() + ".sql", "0002_other." + m.Dialect.String() + ".sql"} {
		raw, _ := m.Empty(t)
		history := fstest.MapFS{
			"0001_one.sql":   {Data: []byte(`CREATE TABLE one (id INTEGER PRIMARY KEY)`)},
			"0002_two.sql":   {Data: []byte(`CREATE TABLE two (id INTEGER PRIMARY KEY)`)},
			other:            {Data: []byte(`CREATE TABLE other (id INTEGER PRIMARY KEY)`)},
			"0003_three.sql": {Data: []byte(`CREATE TABLE three (id INTEGER PRIMARY KEY)`)},
		}
		err := migrateRaw(raw, m.Dialect, history)
		if err == nil || !strings.Contains(err.Error(), "have one number") || !strings.Contains(err.Error(), "0002_two.sql") || !strings.Contains(err.Error(), other) {
			t.Errorf("a history with %s beside 0002_two.sql: %v, want both refused as of one number", other, err)
		}
		tables := `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('one', 'two', 'other')`
		if m.Dialect == sqlstore.SQLite {
			tables = `SELECT count(*) FROM sqlite_master WHERE name IN ('one', 'two', 'other')`
		}
		if n := raw.Int(t, tables); n != 0 {
			t.Errorf("%d tables made by a history refused", n)
		}
	}
}

func testAppliedAsAnotherFile(t *testing.T, m Migrations) {
	raw, open := m.Empty(t)
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := raw.Exec(`UPDATE schema_migrations SET name = '0003_something_else' WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := open(); err == nil || !strings.Contains(err.Error(), "version 3 was applied as 0003_something_else") {
		t.Fatalf("a database whose step 3 was another: %v, want it refused, saying which", err)
	}
	// A row as a build before the one history wrote it, but of no file it had.
	if err := raw.Exec(`UPDATE schema_migrations SET name = '0003_something_else.sql' WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := open(); err == nil || !strings.Contains(err.Error(), "version 3 was applied as 0003_something_else.sql") {
		t.Fatalf("a database whose step 3 was an unknown file: %v, want it refused, saying which", err)
	}
}

// legacyFiles are the statements of the files the builds before the one history ran (their
// comments aside), by dialect and file. The history's steps of the same names must be them, so
// that a database made from those steps is one those builds made.
var legacyFiles = map[string]string{
	"sqlite/0001_emissions.sql": "0f6c8beca2bcb831", "sqlite/0002_players.sql": "382517dc9b81ce51",
	"sqlite/0003_operators.sql": "803919a50f22d8ac", "sqlite/0004_sales_totals.sql": "022398a557ce11ab",
	"sqlite/0005_player_transfers.sql": "33d8296d448769b6", "sqlite/0006_session_expiry.sql": "1fc609ff0e7e2d62",
	"sqlite/0007_login_failures.sql": "737806283dd1d8bd", "sqlite/0008_health.sql": "34389e4fde8d173d",
	"sqlite/0009_username_key.sql": "87786ae576677593", "sqlite/0010_sessions.sql": "6f2e6c30763ca5c7",
	"sqlite/0011_shared_state.sql": "a3d98961632c6cd1", "sqlite/0012_identity.sql": "1f4799e29447ed6d",
	"sqlite/0013_exclusion.sql": "7cfeb8fc2ee2506b", "sqlite/0014_closure.sql": "e7df65a9ca60af70",
	"sqlite/0015_limits.sql": "d54e974725f5260f", "sqlite/0016_register.sql": "75fcad148e3b1294",
	"sqlite/0017_wallet_outbox.sql": "8e7af0f83f34051a", "sqlite/0018_wallet_players.sql": "1669c233747ceb75",
	"sqlite/0019_wallet_calls_open.sql": "b249d69cacd0f7ab", "sqlite/0020_names_read_alike.sql": "09e759a273ee1fe9",
	"sqlite/0021_payout_reason.sql": "5f4b1a63e2b26727", "sqlite/0022_launch_binding.sql": "ae6560a5fe0c29a2",
	"sqlite/0023_play_session.sql": "15894bdc829446f8", "sqlite/0024_demo.sql": "9e928f3597b09fca",
	"postgres/0001_schema.sql": "04680a3cb7d5a003", "postgres/0002_identity.sql": "aff9a2c34fe96491",
	"postgres/0003_exclusion.sql": "34f4097092005e59", "postgres/0004_closure.sql": "73837a37e78953b4",
	"postgres/0005_limits.sql": "26ae21f2b83cf504", "postgres/0006_register.sql": "cdd8f407bb0347f3",
	"postgres/0007_wallet_outbox.sql": "5fb4c28b97d4a321", "postgres/0008_wallet_players.sql": "236121fcb4250872",
	"postgres/0009_wallet_calls_open.sql": "953e0ac567110aa6", "postgres/0010_names_read_alike.sql": "00e89ce5fa9f2c44",
	"postgres/0011_payout_reason.sql": "d1427e530d170a3f", "postgres/0012_launch_binding.sql": "fd10c2e7d162a138",
	"postgres/0013_play_session.sql": "e166ff9762f60060", "postgres/0014_demo.sql": "341adc0eb0526b3d",
}

// statements is a migration's SQL without its comment lines and blank lines.
func statements(body string) string {
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "--") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// legacyRows are rows as the builds before migration 0025 kept them, in each dialect's types of
// then. On SQLite, a self-exclusion and a closure are in unix seconds, the wallet's calls and
// the launches in unix milliseconds, and a colour not chosen is NULL.
var legacyRows = map[sqlstore.Dialect][]string{
	sqlstore.SQLite: {
		`INSERT INTO accounts (id, kind, balance) VALUES (3, 'player', 0), (4, 'player', 0)`,
		`INSERT INTO players (id, username, name_key, password_hash, account_id, created_at, excluded_until)
			VALUES (1, 'exclue', 'exclue', 'x', 3, '2025-11-30T09:00:00.000000000Z', 1893553445)`,
		`INSERT INTO players (id, username, name_key, password_hash, account_id, created_at, closed_at, closed_by)
			VALUES (2, 'close', 'close', 'x', 4, '2025-11-30T09:00:00.000000000Z', 1764493200, 'player')`,
		`INSERT INTO emissions (id, price, definition, game_table, seed_sha256, created_at) VALUES ('E', 100, 'd', '{}', 'x', '2025-11-30T08:00:00.000000000Z')`,
		`INSERT INTO blocks (emission_id, block, units, root, sold) VALUES ('E', 0, 1000, x'00', 2)`,
		`INSERT INTO games (id, player_id, emission_id, block, unit, stake, mode, prize, color, clicks, status, balance_after, created_at, updated_at, stake_transfer)
			VALUES (7, 1, 'E', 0, 0, 100, 'manual', 0, NULL, x'', 'choose_color', 0, '2025-11-30T09:00:00.000000000Z', 1764493200, NULL),
			       (8, 1, 'E', 0, 1, 100, 'manual', 0, 3, x'0102', 'playing', 0, '2025-11-30T09:00:01.000000000Z', 1764493201, 11)`,
		`INSERT INTO wallet_calls (id, call, transaction_id, player, round_id, amount, body, status, attempts, next_at, created_at, acked_at)
			VALUES (1, 'credit', 'tx-1', 'w1', '7', 500, x'7b7d', 'pending', 2, 1764493200123, 1764493100456, NULL),
			       (2, 'credit', 'tx-2', 'w1', '8', 300, x'7b7d', 'acked', 1, 1764493200000, 1764493000789, 1764493300001)`,
		`INSERT INTO launch_tokens (token_hash, player_id, expires_at, used, nonce, operator_session)
			VALUES (x'01', 1, 4102444800000, 0, 'n1', 'op1'), (x'02', 1, 1764493200000, 0, 'n2', 'op2'), (x'03', 1, 4102444800000, 1, 'n3', 'op3')`,
	},
	sqlstore.PostgreSQL: {
		`INSERT INTO accounts (id, kind, balance) VALUES (3, 'player', 0), (4, 'player', 0)`,
		`INSERT INTO players (id, username, name_key, password_hash, account_id, created_at, excluded_until) OVERRIDING SYSTEM VALUE
			VALUES (1, 'exclue', 'exclue', 'x', 3, '2025-11-30T09:00:00Z', '2030-01-02T03:04:05Z')`,
		`INSERT INTO players (id, username, name_key, password_hash, account_id, created_at, closed_at, closed_by) OVERRIDING SYSTEM VALUE
			VALUES (2, 'close', 'close', 'x', 4, '2025-11-30T09:00:00Z', '2025-11-30T09:00:00Z', 'player')`,
		`INSERT INTO emissions (id, price, definition, game_table, seed_sha256, created_at) VALUES ('E', 100, 'd', '{}', 'x', '2025-11-30T08:00:00Z')`,
		`INSERT INTO blocks (emission_id, block, units, root, sold) VALUES ('E', 0, 1000, '\x00', 2)`,
		`INSERT INTO games (id, player_id, emission_id, block, unit, stake, mode, prize, color, clicks, status, balance_after, created_at, updated_at, stake_transfer)
			VALUES (7, 1, 'E', 0, 0, 100, 'manual', 0, -1, '\x', 'choose_color', 0, '2025-11-30T09:00:00Z', 1764493200, 0),
			       (8, 1, 'E', 0, 1, 100, 'manual', 0, 3, '\x0102', 'playing', 0, '2025-11-30T09:00:01Z', 1764493201, 11)`,
		`INSERT INTO wallet_calls (id, call, transaction_id, player, round_id, amount, body, status, attempts, next_at, created_at, acked_at)
			VALUES (1, 'credit', 'tx-1', 'w1', '7', 500, '\x7b7d', 'pending', 2, '2025-11-30T09:00:00.123Z', '2025-11-30T08:58:20.456Z', NULL),
			       (2, 'credit', 'tx-2', 'w1', '8', 300, '\x7b7d', 'acked', 1, '2025-11-30T09:00:00Z', '2025-11-30T08:56:40.789Z', '2025-11-30T09:01:40.001Z')`,
		`INSERT INTO launch_tokens (token_hash, player_id, expires_at, used, nonce, operator_session)
			VALUES ('\x01', 1, '2100-01-01T00:00:00Z', false, 'n1', 'op1'), ('\x02', 1, '2025-11-30T09:00:00Z', false, 'n2', 'op2'),
			       ('\x03', 1, '2100-01-01T00:00:00Z', true, 'n3', 'op3')`,
	},
}

// makeLegacy makes on raw the database a build before the one history made. Its files run in its
// order, each recorded as that build recorded it, and its rows are in that build's types.
func makeLegacy(t *testing.T, raw *Raw, d sqlstore.Dialect) {
	t.Helper()
	steps, err := d.Steps(sqlstore.History)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.DB.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, r := range sqlstore.Renumbered[d] {
		i := slices.IndexFunc(steps, func(s sqlstore.Step) bool { return s.Name == r.Step })
		if i < 0 || steps[i].File == "" {
			t.Fatalf("the history has no %s file of step %s (once %s)", d, r.Step, r.File)
		}
		body, err := fs.ReadFile(sqlstore.History, steps[i].File)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(statements(string(body))))
		if got, want := hex.EncodeToString(sum[:8]), legacyFiles[d.String()+"/"+r.File]; got != want {
			t.Fatalf("%s is not %s of the builds before the one history: its statements hash to %s, want %s", steps[i].File, r.File, got, want)
		}
		if _, err := raw.DB.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", steps[i].File, err)
		}
		if err := raw.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, r.Version, r.File); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range legacyRows[d] {
		if _, err := raw.DB.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func testLegacyDatabase(t *testing.T, m Migrations) {
	raw, open := m.Empty(t)
	makeLegacy(t, raw, m.Dialect)
	s, err := open()
	if err != nil {
		t.Fatalf("a database of the build before the one history: %v", err)
	}
	ctx := context.Background()

	// Renumbered once: the history's steps, each recorded once under its name.
	steps, err := m.Dialect.Steps(sqlstore.History)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, st := range steps {
		want = append(want, fmt.Sprintf("%d %s", st.Version, st.Name))
	}
	recorded := func() []string {
		rows, err := raw.DB.Query(`SELECT version, name FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var v int
			var n string
			if err := rows.Scan(&v, &n); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %s", v, n))
		}
		return got
	}
	if got := recorded(); !slices.Equal(got, want) {
		t.Fatalf("recorded after the first open:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The data, read through the store, as the build before kept it.
	if p, err := s.PlayerByID(ctx, 1); err != nil || !p.ExcludedUntil.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("the excluded player: %+v, %v; want excluded until 2030-01-02T03:04:05Z", p, err)
	}
	if p, err := s.PlayerByID(ctx, 2); err != nil || !p.ClosedAt.Equal(time.Date(2025, 11, 30, 9, 0, 0, 0, time.UTC)) || p.ClosedBy != lottery.ClosedByPlayer {
		t.Errorf("the closed player: %+v, %v; want closed by the player at 2025-11-30T09:00:00Z", p, err)
	}
	if g, err := s.GameByID(ctx, 7); err != nil || g.Color != -1 || g.StakeTransfer != 0 || g.Status != "choose_color" || g.Emission != "E" ||
		g.Block != 0 || g.Unit != 0 || !g.CreatedAt.Equal(time.Date(2025, 11, 30, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("a game whose colour was not chosen: %+v, %v; want colour -1, stake transfer 0, unit 0 of E block 0, at 09:00", g, err)
	}
	if g, err := s.GameByID(ctx, 8); err != nil || g.Color != 3 || g.StakeTransfer != 11 || string(g.Clicks) != "\x01\x02" ||
		g.Unit != 1 || !g.CreatedAt.Equal(time.Date(2025, 11, 30, 9, 0, 1, 0, time.UTC)) {
		t.Errorf("a game being played: %+v, %v; want colour 3, stake transfer 11, clicks 1 2", g, err)
	}
	at := func(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
	pending, err := s.WalletCalls(ctx, lottery.CallPending, 10)
	if err != nil || len(pending) != 1 || !pending[0].NextAt.Equal(at(1764493200123)) || !pending[0].CreatedAt.Equal(at(1764493100456)) ||
		!pending[0].AckedAt.IsZero() || pending[0].Attempts != 2 || pending[0].GameID != 7 {
		t.Errorf("the pending call: %+v, %v", pending, err)
	}
	acked, err := s.WalletCalls(ctx, lottery.CallAcked, 10)
	if err != nil || len(acked) != 1 || !acked[0].AckedAt.Equal(at(1764493300001)) || !acked[0].CreatedAt.Equal(at(1764493000789)) {
		t.Errorf("the acknowledged call: %+v, %v", acked, err)
	}
	if st, err := s.OutboxState(ctx, at(1764493200123)); err != nil || st.Pending != 1 || !st.Oldest.Equal(at(1764493100456)) {
		t.Errorf("the outbox: %+v, %v", st, err)
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if id, err := s.UseLaunch(ctx, []byte{1}, []byte("session"), now); err != nil || id != 1 {
		t.Errorf("a launch good until 2100: %d, %v", id, err)
	}
	for _, token := range []byte{2, 3} {
		if _, err := s.UseLaunch(ctx, []byte{token}, []byte("session"), now); !fault.Is(err, fault.NotLoggedIn) {
			t.Errorf("launch %d, expired or used: %v, want not_logged_in", token, err)
		}
	}
	// The journal begins after the history: empty, from the game and the transfer after the
	// largest (games 7 and 8, no transfer); a write now is its first entry.
	if st, err := s.JournalState(ctx); err != nil || st != (journal.State{}) {
		t.Errorf("the journal of a database with history: %+v, %v; want it empty", st, err)
	}
	if g, tr, err := s.Beginning(ctx); err != nil || g != 9 || tr != 1 {
		t.Errorf("the journal begins at game %d and transfer %d (%v), want 9 and 1", g, tr, err)
	}
	if seq, ok, err := s.SaleEntry(ctx, 8); err != nil || ok {
		t.Errorf("a game sold before the journal: its sale entry %d, %v, %v; want none", seq, ok, err)
	}
	if _, err := s.CreateOperator(ctx, "olga", "x", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	Sequence(t, s)
	if got, err := s.JournalEntries(ctx, 0, 1); err != nil || len(got) != 1 ||
		string(got[0]) != string(journal.Encode(0, now, journal.Operator{Operator: "olga", Action: "operator_created"}, AccountKey)) {
		t.Errorf("the first entry after the history: %q, %v", got, err)
	}
	s.Close()

	// Opened again, nothing is renumbered nor run again.
	s, err = open()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := recorded(); !slices.Equal(got, want) {
		t.Fatalf("recorded after the second open:\n%s", strings.Join(got, "\n"))
	}
}
