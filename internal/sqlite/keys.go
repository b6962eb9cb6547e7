package sqlite

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The keys names and identities are compared by (lottery.Keys, docs/spec/API.md 1.2), and who may not sign
// up for who they are.

// rekey makes every stored key again (lottery.Rekey) when the comparison has changed since they
// were made (identity.KeyScheme, kept in key_scheme), and lists in the operators' log what the
// operator must look at: once a change, in one write, before the store serves.
func (d *DB) rekey(ctx context.Context, now time.Time) error {
	var scheme string
	if err := d.db.QueryRowContext(ctx, `SELECT scheme FROM key_scheme`).Scan(&scheme); err != nil || scheme == identity.KeyScheme() {
		return err // read beside the writer first: almost every opening finds nothing to do
	}
	return d.update(ctx, func(t *tx) error {
		if err := t.queryRow(`SELECT scheme FROM key_scheme`).Scan(&scheme); err != nil || scheme == identity.KeyScheme() {
			return err
		}
		players, register, err := sqlstore.ReadKeyed(t.ctx, txQ{t}, sqlstore.SQLite)
		if err != nil {
			return err
		}
		rk := lottery.Rekey(players, register, now)
		// The skeletons that change are cleared first: a player's new one may be another's old.
		for _, p := range rk.Players {
			if _, err := t.exec(`UPDATE players SET name_skeleton = NULL WHERE id = ?`, p.ID); err != nil {
				return err
			}
		}
		for _, p := range rk.Players {
			k := p.Keys
			if _, err := t.exec(`UPDATE players SET name_key = ?, name_skeleton = ?, name_twin = ?, identity_key = ?, lookup_key = ? WHERE id = ?`,
				k.NameKey, k.NameSkeleton, k.NameTwin, nullable(k.IdentityKey), nullable(k.LookupKey), p.ID); err != nil {
				return err
			}
		}
		if _, err := t.exec(`DELETE FROM register`); err != nil {
			return err
		}
		for _, e := range rk.Register {
			if _, err := t.exec(`INSERT INTO register (identity_key, lookup_key, last_name, first_names, birth_date, import_id) VALUES (?, ?, ?, ?, ?, ?)`,
				e.Person.Key(), e.Person.LookupKey(), e.Person.LastName, e.Person.FirstNames, e.Person.BirthDate.Format(identity.DateLayout), e.ImportID); err != nil {
				return err
			}
		}
		events := make([]journal.Event, len(rk.Collisions))
		for i, a := range rk.Collisions {
			if err := sqlstore.LogAction(t.ctx, txQ{t}, sqlstore.SQLite, a); err != nil {
				return err
			}
			events[i] = sqlstore.OperatorEvent(a)
		}
		if _, err = t.exec(`UPDATE key_scheme SET scheme = ?`, identity.KeyScheme()); err != nil {
			return err
		}
		return d.AppendJournal(t.ctx, txQ{t}, now, events...)
	})
}

// nullable is a key as a column keeps it: NULL for none.
func nullable(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
