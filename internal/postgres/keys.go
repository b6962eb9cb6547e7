package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The keys names and identities are compared by (lottery.Keys, docs/spec/API.md 1.2), and who
// may not sign up for who they are: as the SQLite store's keys.go, in PostgreSQL's terms.

// rekey makes every stored key again (lottery.Rekey) when the comparison has changed since they
// were made (identity.KeyScheme, kept in key_scheme). It lists in the operators' log what the
// operator must look at. It runs once a change, in one transaction, under the lock of the
// migrations: of the servers starting together, one makes them. The players and the register
// are locked against writes meanwhile.
func (d *DB) rekey(ctx context.Context, conn *pgx.Conn, now time.Time) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var scheme string
		if err := tx.QueryRow(ctx, `SELECT scheme FROM key_scheme`).Scan(&scheme); err != nil || scheme == identity.KeyScheme() {
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE players, register IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		players, register, err := sqlstore.ReadKeyed(ctx, pgxQ{tx}, sqlstore.PostgreSQL)
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
		events := make([]journal.Event, len(rk.Collisions))
		for i, a := range rk.Collisions {
			if err := sqlstore.LogAction(ctx, pgxQ{tx}, sqlstore.PostgreSQL, a); err != nil {
				return err
			}
			events[i] = sqlstore.OperatorEvent(a)
		}
		if _, err = tx.Exec(ctx, `UPDATE key_scheme SET scheme = $1`, identity.KeyScheme()); err != nil {
			return err
		}
		return d.AppendJournal(ctx, pgxQ{tx}, now, events...)
	})
}

// nullable is a key as a column keeps it: NULL for none.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
