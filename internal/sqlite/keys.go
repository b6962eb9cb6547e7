package sqlite

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The keys names and identities are compared by (lottery.Keys, docs/spec/API.md 1.2), and who may not sign
// up for who they are.

// refusal says why a person may not open an account (lottery.Refusal): the persons of the
// register and the players whose self-exclusion runs, found under the person's LookupKey.
func (t *tx) refusal(p identity.Person, now time.Time) error {
	key := p.LookupKey()
	var listed []identity.Person
	if err := t.rows(func(r *sql.Rows) error {
		l, err := scanPerson(r)
		listed = append(listed, l)
		return err
	}, `SELECT last_name, first_names, birth_date FROM register WHERE lookup_key = ?`, key); err != nil {
		return err
	}
	var excluded []lottery.Player
	if err := t.rows(func(r *sql.Rows) error {
		e, err := scanPlayer(r)
		excluded = append(excluded, e)
		return err
	}, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.lookup_key = ? AND p.excluded_until > ?`, key, storedTime(now)); err != nil {
		return err
	}
	return lottery.Refusal(p, listed, excluded)
}

// CheckIdentity says whether a person may open an account (fault.RegistrationRefused if not,
// as CreatePlayer would), without opening one: for a sign-up refused otherwise, that must still
// be refused for who it reads as.
func (d *DB) CheckIdentity(ctx context.Context, p identity.Person, now time.Time) error {
	return d.update(ctx, func(t *tx) error { return t.refusal(p, now) })
}

// scanPerson reads a person of the register: last name, first names, birth date.
func scanPerson(r scanner) (identity.Person, error) {
	var p identity.Person
	var birth string
	if err := r.Scan(&p.LastName, &p.FirstNames, &birth); err != nil {
		return p, err
	}
	var err error
	p.BirthDate, err = time.Parse(identity.DateLayout, birth)
	return p, err
}

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
		var players []lottery.KeyedPlayer
		if err := t.rows(func(r *sql.Rows) error {
			var p lottery.KeyedPlayer
			var last, first, birth sql.NullString
			err := r.Scan(&p.ID, &p.Username, &p.Wallet, &last, &first, &birth, sqlstore.ScanTime(&p.ExcludedUntil), sqlstore.ScanTime(&p.ClosedAt),
				&p.Keys.NameKey, &p.Keys.NameSkeleton, &p.Keys.NameTwin, &p.Keys.IdentityKey, &p.Keys.LookupKey)
			if err == nil {
				p.Person, err = sqlstore.StoredPerson(last, first, birth)
			}
			players = append(players, p)
			return err
		}, `SELECT p.id, p.username, w.player_id IS NOT NULL, p.last_name, p.first_names, p.birth_date, p.excluded_until, p.closed_at,
			p.name_key, coalesce(p.name_skeleton, ''), p.name_twin, coalesce(p.identity_key, ''), coalesce(p.lookup_key, '')
			FROM players p LEFT JOIN wallet_players w ON w.player_id = p.id ORDER BY p.id`); err != nil {
			return err
		}
		var register []lottery.RegisterEntry
		if err := t.rows(func(r *sql.Rows) error {
			var e lottery.RegisterEntry
			var birth string
			err := r.Scan(&e.Person.LastName, &e.Person.FirstNames, &birth, &e.ImportID)
			if err == nil {
				e.Person.BirthDate, err = time.Parse(identity.DateLayout, birth)
			}
			register = append(register, e)
			return err
		}, `SELECT last_name, first_names, birth_date, import_id FROM register ORDER BY identity_key`); err != nil {
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
		for _, a := range rk.Collisions {
			if err := t.logAction(a); err != nil {
				return err
			}
		}
		_, err := t.exec(`UPDATE key_scheme SET scheme = ?`, identity.KeyScheme())
		return err
	})
}

// nullable is a key as a column keeps it: NULL for none.
func nullable(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// logAction appends a line to the operators' log, in a write (until the keys are written once).
func (t *tx) logAction(a lottery.OperatorAction) error {
	var op any
	if a.OperatorID > 0 {
		op = a.OperatorID
	}
	_, err := t.exec(`INSERT INTO operator_log (operator_id, name, action, detail, remote, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		op, a.Name, a.Action, a.Detail, a.Remote, storedTime(a.CreatedAt))
	return err
}
