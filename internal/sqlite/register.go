package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// ImportRegister replaces the list of excluded persons with persons, and closes every open
// account of a listed person (its balance paid out to the bank, its sessions ended), in one
// write; it keeps the import with its counts, journals it (each closure, then the import), and
// returns it.
func (d *DB) ImportRegister(ctx context.Context, persons []identity.Person, imp lottery.RegisterImport) (lottery.RegisterImport, error) {
	err := d.update(ctx, func(t *tx) error {
		imp.Listed, imp.Added, imp.Gone, imp.Closed, imp.ClosedPlayers = len(persons), 0, 0, 0, nil
		res, err := t.exec(`INSERT INTO register_imports (created_at, by, source, listed, added, gone, closed, closed_players) VALUES (?, ?, ?, 0, 0, 0, 0, '[]')`,
			storedTime(imp.At), imp.By, imp.Source)
		if err != nil {
			return err
		}
		imp.ID, _ = res.LastInsertId()
		was := map[string]bool{}
		if err := t.rows(func(r *sql.Rows) error {
			var k string
			err := r.Scan(&k)
			was[k] = true
			return err
		}, `SELECT identity_key FROM register`); err != nil {
			return err
		}
		if _, err := t.exec(`DELETE FROM register`); err != nil {
			return err
		}
		args := make([]any, 0, 6*len(persons))
		for _, p := range persons {
			k := p.Key()
			if !was[k] {
				imp.Added++
			}
			delete(was, k)
			args = append(args, k, p.LookupKey(), p.LastName, p.FirstNames, p.BirthDate.Format(identity.DateLayout), imp.ID)
		}
		imp.Gone = len(was)
		if err := t.chunks(`INSERT INTO register (identity_key, lookup_key, last_name, first_names, birth_date, import_id) VALUES `, ` ON CONFLICT DO NOTHING`, 6, args,
			func(q string, a []any) error { _, err := t.exec(q, a...); return err }); err != nil {
			return err
		}
		// The open accounts of listed persons (identity.SamePerson, among those of a listed
		// LookupKey): paid out and closed.
		listed := lottery.IndexRegister(persons)
		var open []lottery.Player
		if err := t.rows(func(r *sql.Rows) error {
			p, err := scanPlayer(r)
			if err == nil && p.Person != nil && listed.Lists(*p.Person) {
				open = append(open, p)
			}
			return err
		}, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
			WHERE p.closed_at IS NULL AND p.lookup_key IN (SELECT lookup_key FROM register) ORDER BY p.id`); err != nil {
			return err
		}
		var events []journal.Event
		for _, p := range open {
			out, err := sqlstore.PayOut(t.ctx, txQ{t}, sqlstore.SQLite, p.ID, nil, lottery.PaidAtRegister, imp.At)
			if err != nil {
				return err
			}
			if _, err := t.exec(`UPDATE players SET closed_at = ?, closed_by = ? WHERE id = ?`, storedTime(imp.At), lottery.ClosedByRegister, p.ID); err != nil {
				return err
			}
			paid := out.Withdrawal.Amount
			imp.ClosedPlayers = append(imp.ClosedPlayers, lottery.ClosedAccount{PlayerID: p.ID, Username: p.Username, PaidOut: paid})
			events = append(append(events, out.Events()...), journal.Closure{AccountID: out.Account, Paid: paid, By: lottery.ClosedByRegister})
		}
		imp.Closed = len(imp.ClosedPlayers)
		closed, _ := json.Marshal(imp.ClosedPlayers)
		if _, err := t.exec(`UPDATE register_imports SET listed = ?, added = ?, gone = ?, closed = ?, closed_players = ? WHERE id = ?`,
			imp.Listed, imp.Added, imp.Gone, imp.Closed, string(closed), imp.ID); err != nil {
			return err
		}
		return d.AppendJournal(t.ctx, txQ{t}, imp.At, append(events, sqlstore.RegisterEvent(imp))...)
	})
	return imp, asFault(err)
}
