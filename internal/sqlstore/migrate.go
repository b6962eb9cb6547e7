package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The schema's one history, for both dialects: one numbered list of steps, each a file
// NNNN_name.sql when both dialects run the same SQL, or NNNN_name.sqlite.sql and
// NNNN_name.postgres.sql where it differs. A step with one dialect's file only is one the other
// dialect already has from an earlier step (its file's first comment says which); the other
// dialect records it all the same, so that both record one list.
//
//go:embed migrations/*.sql
var files embed.FS

// History is the schema's history as the stores run it.
var History = func() fs.FS {
	sub, err := fs.Sub(files, "migrations")
	if err != nil {
		panic(err)
	}
	return sub
}()

// Step is one step of the history, as a dialect runs it.
type Step struct {
	Version int
	Name    string // what schema_migrations records of it, on both dialects: "0012_identity"
	File    string // the file the dialect runs ("": the step is the other dialect's alone)
}

var fileName = regexp.MustCompile(`^([0-9]{4})_([a-z0-9_]+?)(?:\.(sqlite|postgres))?\.sql$`)

// Steps reads the history in fsys for the dialect, in order. It refuses a file it cannot read a
// step from, and two files of one number that are not one step's two dialects: a merge of two
// branches that each took the next number must fail here, not in the field.
func (d Dialect) Steps(fsys fs.FS) ([]Step, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	type entry struct {
		name, first        string
		shared, sqlite, pg string
	}
	var order []int
	byVersion := map[int]*entry{}
	for _, f := range names {
		m := fileName.FindStringSubmatch(f)
		if m == nil {
			return nil, fmt.Errorf("migration %s: not NNNN_name.sql, NNNN_name.sqlite.sql or NNNN_name.postgres.sql", f)
		}
		version, _ := strconv.Atoi(m[1])
		name := m[1] + "_" + m[2]
		e := byVersion[version]
		if e == nil {
			e = &entry{name: name, first: f}
			byVersion[version] = e
			order = append(order, version)
		}
		slot := map[string]*string{"": &e.shared, "sqlite": &e.sqlite, "postgres": &e.pg}[m[3]]
		if e.name != name || *slot != "" || (m[3] == "" && e.sqlite+e.pg != "") || (m[3] != "" && e.shared != "") {
			return nil, fmt.Errorf("migrations %s and %s have one number", e.first, f)
		}
		*slot = f
	}
	steps := make([]Step, 0, len(order))
	for _, v := range order {
		e := byVersion[v]
		s := Step{Version: v, Name: e.name, File: e.shared}
		switch {
		case d == SQLite && e.sqlite != "":
			s.File = e.sqlite
		case d == PostgreSQL && e.pg != "":
			s.File = e.pg
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// Migrate brings a database's schema up to date with the history in fsys. First, in one
// transaction, the rows a build before the one history recorded are renumbered (Renumbered);
// then each step not yet recorded runs in a transaction of its own, with the row that records
// it. A step recorded under another name is refused: the schema is not the one this build's
// statements expect. inTx runs fn in a transaction, committed if fn returns nil.
func Migrate(ctx context.Context, d Dialect, fsys fs.FS, inTx func(ctx context.Context, fn func(Querier) error) error) error {
	steps, err := d.Steps(fsys)
	if err != nil {
		return err
	}
	err = inTx(ctx, func(q Querier) error {
		if _, err := q.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
			return err
		}
		return d.renumber(ctx, q)
	})
	if err != nil {
		return fmt.Errorf("the migrations recorded: %w", err)
	}
	for _, s := range steps {
		err := inTx(ctx, func(q Querier) error {
			var applied string
			err := q.QueryRow(ctx, `SELECT name FROM schema_migrations WHERE version = $1`, s.Version).Scan(&applied)
			if err == nil {
				if applied != s.Name {
					return fmt.Errorf("version %d was applied as %s", s.Version, applied)
				}
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if s.File != "" {
				body, err := fs.ReadFile(fsys, s.File)
				if err != nil {
					return err
				}
				if _, err := q.Exec(ctx, string(body)); err != nil {
					return err
				}
			}
			_, err = q.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, s.Version, s.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", s.Name, err)
		}
	}
	return nil
}

// Renumbering is a row of schema_migrations as a build before the one history recorded it (each
// dialect numbered its own files), and the step of the history it is now.
type Renumbering struct {
	Version int
	File    string
	Step    string
}

// Renumbered is every row a build before the one history may have recorded, by dialect. The
// SQL of those files is the history's steps of the same names, unchanged (their first comments
// aside).
var Renumbered = map[Dialect][]Renumbering{
	SQLite: {
		{1, "0001_emissions.sql", "0001_schema"},
		{2, "0002_players.sql", "0002_players"},
		{3, "0003_operators.sql", "0003_operators"},
		{4, "0004_sales_totals.sql", "0004_sales_totals"},
		{5, "0005_player_transfers.sql", "0005_player_transfers"},
		{6, "0006_session_expiry.sql", "0006_session_expiry"},
		{7, "0007_login_failures.sql", "0007_login_failures"},
		{8, "0008_health.sql", "0008_health"},
		{9, "0009_username_key.sql", "0009_username_key"},
		{10, "0010_sessions.sql", "0010_sessions"},
		{11, "0011_shared_state.sql", "0011_shared_state"},
		{12, "0012_identity.sql", "0012_identity"},
		{13, "0013_exclusion.sql", "0013_exclusion"},
		{14, "0014_closure.sql", "0014_closure"},
		{15, "0015_limits.sql", "0015_limits"},
		{16, "0016_register.sql", "0016_register"},
		{17, "0017_wallet_outbox.sql", "0017_wallet_outbox"},
		{18, "0018_wallet_players.sql", "0018_wallet_players"},
		{19, "0019_wallet_calls_open.sql", "0019_wallet_calls_open"},
		{20, "0020_names_read_alike.sql", "0020_names_read_alike"},
		{21, "0021_payout_reason.sql", "0021_payout_reason"},
		{22, "0022_launch_binding.sql", "0022_launch_binding"},
		{23, "0023_play_session.sql", "0023_play_session"},
		{24, "0024_demo.sql", "0024_demo"},
	},
	PostgreSQL: {
		{1, "0001_schema.sql", "0001_schema"},
		{2, "0002_identity.sql", "0012_identity"},
		{3, "0003_exclusion.sql", "0013_exclusion"},
		{4, "0004_closure.sql", "0014_closure"},
		{5, "0005_limits.sql", "0015_limits"},
		{6, "0006_register.sql", "0016_register"},
		{7, "0007_wallet_outbox.sql", "0017_wallet_outbox"},
		{8, "0008_wallet_players.sql", "0018_wallet_players"},
		{9, "0009_wallet_calls_open.sql", "0019_wallet_calls_open"},
		{10, "0010_names_read_alike.sql", "0020_names_read_alike"},
		{11, "0011_payout_reason.sql", "0021_payout_reason"},
		{12, "0012_launch_binding.sql", "0022_launch_binding"},
		{13, "0013_play_session.sql", "0023_play_session"},
		{14, "0014_demo.sql", "0024_demo"},
	},
}

// renumber rewrites the rows of schema_migrations that a build before the one history recorded
// (their names are files: "0002_identity.sql") as the history's steps (version 12,
// "0012_identity"), from the fixed table Renumbered. A row named as a file that table does not
// hold is refused as a step applied as another file. It runs in the caller's transaction, so the
// rows are all renumbered or none.
func (d Dialect) renumber(ctx context.Context, q Querier) error {
	rows, err := q.Query(ctx, `SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		return err
	}
	var moves []Renumbering
	for rows.Next() {
		var version int
		var name string
		if err := rows.Scan(&version, &name); err != nil {
			rows.Close()
			return err
		}
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		i := slices.IndexFunc(Renumbered[d], func(r Renumbering) bool { return r.Version == version && r.File == name })
		if i < 0 {
			rows.Close()
			return fmt.Errorf("version %d was applied as %s", version, name)
		}
		moves = append(moves, Renumbered[d][i])
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range moves {
		if _, err := q.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, m.Version); err != nil {
			return err
		}
	}
	for _, m := range moves {
		version, _ := strconv.Atoi(m.Step[:4])
		if _, err := q.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, version, m.Step); err != nil {
			return err
		}
	}
	return nil
}
