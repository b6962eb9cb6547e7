package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The operator's list of excluded persons, and who may not sign up for who they are (the keys
// names and identities are compared by: lottery.Keys, docs/spec/API.md 1.2). An import of the
// list stays each store's: it writes the whole list at once, in multi-row statements on SQLite
// and from arrays on PostgreSQL, and so does the making of every key again (rekey).

// ScanPerson reads a person of the register: last name, first names, birth date (as text:
// Dialect.date).
func ScanPerson(r Row) (identity.Person, error) {
	var p identity.Person
	var birth string
	if err := r.Scan(&p.LastName, &p.FirstNames, &birth); err != nil {
		return p, err
	}
	var err error
	p.BirthDate, err = time.Parse(identity.DateLayout, birth)
	return p, err
}

// Refusal says why a person may not open an account (lottery.Refusal), in a write: the persons
// of the register and the players whose self-exclusion runs, found under the person's LookupKey.
func Refusal(ctx context.Context, q Querier, d Dialect, p identity.Person, now time.Time) error {
	key := p.LookupKey()
	var listed []identity.Person
	if err := each(q.Query(ctx, `SELECT last_name, first_names, `+d.date("birth_date")+` FROM register WHERE lookup_key = $1`, key))(func(r Rows) error {
		l, err := ScanPerson(r)
		listed = append(listed, l)
		return err
	}); err != nil {
		return err
	}
	var excluded []lottery.Player
	if err := each(q.Query(ctx, `SELECT `+PlayerColumns(d)+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.lookup_key = $1 AND p.excluded_until > $2`, key, d.Time(now)))(func(r Rows) error {
		e, err := ScanPlayer(r)
		excluded = append(excluded, e)
		return err
	}); err != nil {
		return err
	}
	return lottery.Refusal(p, listed, excluded)
}

// CheckIdentity says whether a person may open an account (fault.RegistrationRefused if not,
// as CreatePlayer would), without opening one: for a sign-up refused otherwise, that must still
// be refused for who it reads as.
func (s *DB) CheckIdentity(ctx context.Context, p identity.Person, now time.Time) error {
	return s.fault(s.write(ctx, func(q Querier) error { return Refusal(ctx, q, s.d, p, now) }))
}

// RegisterImports lists the imports of the list of excluded persons, the latest first.
func (s *DB) RegisterImports(ctx context.Context, limit int) ([]lottery.RegisterImport, error) {
	var out []lottery.RegisterImport
	err := each(s.read.Query(ctx, `SELECT id, created_at, by, source, listed, added, gone, closed, closed_players FROM register_imports
		ORDER BY id DESC LIMIT $1`, limit))(func(r Rows) error {
		var imp lottery.RegisterImport
		var closed []byte
		err := r.Scan(&imp.ID, ScanTime(&imp.At), &imp.By, &imp.Source, &imp.Listed, &imp.Added, &imp.Gone, &imp.Closed, &closed)
		if err == nil {
			err = json.Unmarshal(closed, &imp.ClosedPlayers)
		}
		out = append(out, imp)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// RegisterPersons lists up to limit persons of the list of excluded persons from the first whose
// last name comes at or after start's (both as identities compare them: identity.NameKey), in
// the order of their key, and how many it holds.
func (s *DB) RegisterPersons(ctx context.Context, start string, limit int) ([]identity.Person, int, error) {
	var n int
	if err := s.read.QueryRow(ctx, `SELECT count(*) FROM register`).Scan(&n); err != nil {
		return nil, 0, s.fault(err)
	}
	var out []identity.Person
	err := each(s.read.Query(ctx, `SELECT last_name, first_names, `+s.d.date("birth_date")+` FROM register WHERE `+s.d.binary("identity_key")+` >= $1
		ORDER BY `+s.d.binary("identity_key")+` LIMIT $2`, identity.NameKey(start), limit))(func(r Rows) error {
		p, err := ScanPerson(r)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, 0, s.fault(err)
	}
	return out, n, nil
}

// ReadKeyed reads, in a write, what the keys of names and identities are made from
// (lottery.Rekey): every player with their keys as they stand, and the register in the order of
// its keys. The keys are written again by each store's rekey, all at once in its own way.
func ReadKeyed(ctx context.Context, q Querier, d Dialect) ([]lottery.KeyedPlayer, []lottery.RegisterEntry, error) {
	var players []lottery.KeyedPlayer
	if err := each(q.Query(ctx, `SELECT p.id, p.username, w.player_id IS NOT NULL, p.last_name, p.first_names, `+d.date("p.birth_date")+`,
			p.excluded_until, p.closed_at, p.name_key, coalesce(p.name_skeleton, ''), p.name_twin, coalesce(p.identity_key, ''), coalesce(p.lookup_key, '')
		FROM players p LEFT JOIN wallet_players w ON w.player_id = p.id ORDER BY p.id`))(func(r Rows) error {
		var p lottery.KeyedPlayer
		var last, first, birth sql.NullString
		err := r.Scan(&p.ID, &p.Username, &p.Wallet, &last, &first, &birth, ScanTime(&p.ExcludedUntil), ScanTime(&p.ClosedAt),
			&p.Keys.NameKey, &p.Keys.NameSkeleton, &p.Keys.NameTwin, &p.Keys.IdentityKey, &p.Keys.LookupKey)
		if err == nil {
			p.Person, err = StoredPerson(last, first, birth)
		}
		players = append(players, p)
		return err
	}); err != nil {
		return nil, nil, err
	}
	var register []lottery.RegisterEntry
	err := each(q.Query(ctx, `SELECT last_name, first_names, `+d.date("birth_date")+`, import_id FROM register ORDER BY `+d.binary("identity_key")))(func(r Rows) error {
		var e lottery.RegisterEntry
		var birth string
		err := r.Scan(&e.Person.LastName, &e.Person.FirstNames, &birth, &e.ImportID)
		if err == nil {
			e.Person.BirthDate, err = time.Parse(identity.DateLayout, birth)
		}
		register = append(register, e)
		return err
	})
	return players, register, err
}
