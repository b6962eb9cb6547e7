package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The keys names and identities are compared by (lottery.Keys, docs/spec/API.md 1.2), and who may not sign
// up for who they are: as the SQLite store's keys.go, in PostgreSQL's terms.

// identityLock is the advisory lock of the persons of one LookupKey: a sign-up and an exclusion
// of whoever may be the same person (identity.SamePerson) wait for each other.
const identityLock = `SELECT pg_advisory_xact_lock(hashtextextended('identity:' || $1, 0))`

// refusal says why a person may not open an account (lottery.Refusal): the persons of the
// register and the players whose self-exclusion runs, found under the person's LookupKey.
func refusal(ctx context.Context, tx pgx.Tx, p identity.Person, now time.Time) error {
	key := p.LookupKey()
	rows, err := tx.Query(ctx, `SELECT last_name, first_names, birth_date FROM register WHERE lookup_key = $1`, key)
	if err != nil {
		return err
	}
	listed, err := pgx.CollectRows(rows, scanPerson)
	if err != nil {
		return err
	}
	rows, err = tx.Query(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.lookup_key = $1 AND p.excluded_until > $2`, key, now)
	if err != nil {
		return err
	}
	excluded, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.Player, error) { return scanPlayer(r) })
	if err != nil {
		return err
	}
	return lottery.Refusal(p, listed, excluded)
}

// CheckIdentity says whether a person may open an account (fault.RegistrationRefused if not,
// as CreatePlayer would), without opening one: for a sign-up refused otherwise, that must still
// be refused for who it reads as.
func (d *DB) CheckIdentity(ctx context.Context, p identity.Person, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error { return refusal(ctx, tx, p, now) })
}

// scanPerson reads a person of the register: last name, first names, birth date.
func scanPerson(r pgx.CollectableRow) (identity.Person, error) {
	var p identity.Person
	err := r.Scan(&p.LastName, &p.FirstNames, &p.BirthDate)
	p.BirthDate = p.BirthDate.UTC()
	return p, err
}

// rekey makes every stored key again (lottery.Rekey) when the comparison has changed since they
// were made (identity.KeyScheme, kept in key_scheme), and lists in the operators' log what the
// operator must look at: once a change, in one transaction, under the lock of the migrations
// (of the servers starting together, one makes them), with the players and the register
// locked against writes meanwhile.
func rekey(ctx context.Context, conn *pgx.Conn, now time.Time) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var scheme string
		if err := tx.QueryRow(ctx, `SELECT scheme FROM key_scheme`).Scan(&scheme); err != nil || scheme == identity.KeyScheme() {
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE players, register IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT p.id, p.username, w.player_id IS NOT NULL, p.last_name, p.first_names, to_char(p.birth_date, 'YYYY-MM-DD'),
			p.excluded_until, p.closed_at, p.name_key, coalesce(p.name_skeleton, ''), p.name_twin, coalesce(p.identity_key, ''), coalesce(p.lookup_key, '')
			FROM players p LEFT JOIN wallet_players w ON w.player_id = p.id ORDER BY p.id`)
		if err != nil {
			return err
		}
		players, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.KeyedPlayer, error) {
			var p lottery.KeyedPlayer
			var last, first, birth sql.NullString
			err := r.Scan(&p.ID, &p.Username, &p.Wallet, &last, &first, &birth, sqlstore.ScanTime(&p.ExcludedUntil), sqlstore.ScanTime(&p.ClosedAt),
				&p.Keys.NameKey, &p.Keys.NameSkeleton, &p.Keys.NameTwin, &p.Keys.IdentityKey, &p.Keys.LookupKey)
			if err == nil {
				p.Person, err = sqlstore.StoredPerson(last, first, birth)
			}
			return p, err
		})
		if err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT last_name, first_names, birth_date, import_id FROM register ORDER BY identity_key COLLATE "C"`)
		if err != nil {
			return err
		}
		register, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.RegisterEntry, error) {
			var e lottery.RegisterEntry
			err := r.Scan(&e.Person.LastName, &e.Person.FirstNames, &e.Person.BirthDate, &e.ImportID)
			e.Person.BirthDate = e.Person.BirthDate.UTC()
			return e, err
		})
		if err != nil {
			return err
		}
		rk := lottery.Rekey(players, register, now)
		ids := make([]int64, len(rk.Players))
		nameKeys, skeletons, identityKeys, lookupKeys := make([]string, len(ids)), make([]string, len(ids)), make([]*string, len(ids)), make([]*string, len(ids))
		twins := make([]int32, len(ids))
		for i, p := range rk.Players {
			k := p.Keys
			ids[i], nameKeys[i], skeletons[i], twins[i], identityKeys[i], lookupKeys[i] = p.ID, k.NameKey, k.NameSkeleton, int32(k.NameTwin), nullable(k.IdentityKey), nullable(k.LookupKey)
		}
		// The skeletons that change are cleared first: a player's new one may be another's old.
		if _, err := tx.Exec(ctx, `UPDATE players SET name_skeleton = NULL WHERE id = ANY($1)`, ids); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE players p SET name_key = v.name_key, name_skeleton = v.skeleton, name_twin = v.twin, identity_key = v.identity_key, lookup_key = v.lookup_key
			FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::text[], $6::text[]) v(id, name_key, skeleton, twin, identity_key, lookup_key)
			WHERE p.id = v.id`, ids, nameKeys, skeletons, twins, identityKeys, lookupKeys); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM register`); err != nil {
			return err
		}
		n := len(rk.Register)
		keys, lookups, lasts, firsts, births, imports := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n), make([]int64, n)
		for i, e := range rk.Register {
			keys[i], lookups[i], lasts[i], firsts[i], births[i], imports[i] = e.Person.Key(), e.Person.LookupKey(), e.Person.LastName, e.Person.FirstNames, e.Person.BirthDate, e.ImportID
		}
		if _, err := tx.Exec(ctx, `INSERT INTO register (identity_key, lookup_key, last_name, first_names, birth_date, import_id)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[], $6::bigint[])`, keys, lookups, lasts, firsts, births, imports); err != nil {
			return err
		}
		for _, a := range rk.Collisions {
			if err := logAction(ctx, tx, a); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE key_scheme SET scheme = $1`, identity.KeyScheme())
		return err
	})
}

// nullable is a key as a column keeps it: NULL for none.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// logAction appends a line to the operators' log, in a transaction (until the keys are written once).
func logAction(ctx context.Context, tx pgx.Tx, a lottery.OperatorAction) error {
	var op *int64
	if a.OperatorID > 0 {
		op = &a.OperatorID
	}
	_, err := tx.Exec(ctx, `INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		op, a.Name, a.Action, a.Detail, a.Remote, a.CreatedAt)
	return err
}
