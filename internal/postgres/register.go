package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// registerLock orders imports of the list of excluded persons and sign-ups: an import holds it
// alone, each sign-up shared, so that no account opens unseen while a list is imported (the
// import would not find it to close it).
const registerLock = `hashtextextended('starcolor:register', 0)`

// ImportRegister replaces the list of excluded persons with persons, and closes every open
// account of a listed person (its balance paid out to the bank, its sessions ended), in one
// transaction; it keeps the import with its counts, journals it (each closure, then the import),
// and returns it.
func (d *DB) ImportRegister(ctx context.Context, persons []identity.Person, imp lottery.RegisterImport) (lottery.RegisterImport, error) {
	n := len(persons)
	keys, lookups, lasts, firsts, births := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	for i, p := range persons {
		keys[i], lookups[i], lasts[i], firsts[i], births[i] = p.Key(), p.LookupKey(), p.LastName, p.FirstNames, p.BirthDate
	}
	listed := lottery.IndexRegister(persons)
	var out lottery.RegisterImport
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		out = imp
		out.Listed = len(persons)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+registerLock+`)`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO register_imports (created_at, by, source, listed, added, gone, closed, closed_players)
			VALUES ($1, $2, $3, 0, 0, 0, 0, '[]') RETURNING id`, imp.At, imp.By, imp.Source).Scan(&out.ID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE r.identity_key IS NULL), (SELECT count(*) FROM register WHERE identity_key <> ALL($1))
			FROM unnest($1::text[]) k(key) LEFT JOIN register r ON r.identity_key = k.key`, keys).Scan(&out.Added, &out.Gone); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM register`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO register (identity_key, lookup_key, last_name, first_names, birth_date, import_id)
			SELECT k, lk, l, f, b, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[]) v(k, lk, l, f, b) ON CONFLICT DO NOTHING`,
			keys, lookups, lasts, firsts, births, out.ID); err != nil {
			return err
		}
		// The open accounts of listed persons (identity.SamePerson, among those of a listed
		// LookupKey), their accounts locked: paid out and closed.
		rows, err := tx.Query(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
			WHERE p.closed_at IS NULL AND p.lookup_key IN (SELECT lookup_key FROM register) ORDER BY a.id FOR UPDATE OF a`)
		if err != nil {
			return err
		}
		candidates, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lottery.Player, error) { return scanPlayer(r) })
		if err != nil {
			return err
		}
		out.ClosedPlayers = nil
		var events []journal.Event
		for _, p := range candidates {
			if p.Person == nil || !listed.Lists(*p.Person) {
				continue
			}
			po, err := sqlstore.PayOut(ctx, pgxQ{tx}, sqlstore.PostgreSQL, p.ID, nil, lottery.PaidAtRegister, imp.At)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE players SET closed_at = $1, closed_by = $2 WHERE id = $3`, imp.At, lottery.ClosedByRegister, p.ID); err != nil {
				return err
			}
			paid := po.Withdrawal.Amount
			out.ClosedPlayers = append(out.ClosedPlayers, lottery.ClosedAccount{PlayerID: p.ID, Username: p.Username, PaidOut: paid})
			events = append(append(events, po.Events()...), journal.Closure{AccountID: po.Account, Paid: paid, By: lottery.ClosedByRegister})
		}
		out.Closed = len(out.ClosedPlayers)
		closed, _ := json.Marshal(out.ClosedPlayers)
		if _, err := tx.Exec(ctx, `UPDATE register_imports SET listed = $1, added = $2, gone = $3, closed = $4, closed_players = $5 WHERE id = $6`,
			out.Listed, out.Added, out.Gone, out.Closed, closed, out.ID); err != nil {
			return err
		}
		return d.AppendJournal(ctx, pgxQ{tx}, imp.At, append(events, sqlstore.RegisterEvent(out))...)
	})
	return out, asFault(err)
}
