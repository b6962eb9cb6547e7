package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"starcolor/internal/sqlstore"
)

// column is a column of a table as the schema declares it, in a kind both dialects share.
type column struct {
	kind    string // integer, text, blob, boolean, time, date, json
	notNull bool
}

// columns reads the columns of every table of a database, by "table.column".
func columns(t *testing.T, raw *Raw, d sqlstore.Dialect) map[string]column {
	t.Helper()
	query := `SELECT m.name, p.name, upper(p.type), p."notnull" OR p.pk > 0 FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
	if d == sqlstore.PostgreSQL {
		query = `SELECT table_name, column_name, data_type, is_nullable = 'NO' FROM information_schema.columns WHERE table_schema = current_schema()`
	}
	rows, err := raw.DB.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	kinds := map[string]string{
		"INTEGER": "integer", "BIGINT": "integer", "BLOB": "blob", "BOOLEAN": "boolean", "TEXT": "text",
		"smallint": "integer", "integer": "integer", "bigint": "integer", "bytea": "blob", "boolean": "boolean", "text": "text",
		"timestamp with time zone": "time", "date": "date", "jsonb": "json",
	}
	out := map[string]column{}
	for rows.Next() {
		var table, name, typ string
		var notNull bool
		if err := rows.Scan(&table, &name, &typ, &notNull); err != nil {
			t.Fatal(err)
		}
		kind, ok := kinds[typ]
		if !ok {
			t.Errorf("%s: %s.%s is of a type the stores do not use: %s", d, table, name, typ)
		}
		out[table+"."+name] = column{kind: kind, notNull: notNull}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// onlyOn are the tables one dialect has and the other has not, and why.
var onlyOn = map[string]string{
	"reserved_game_ids": "SQLite reserves the ids of games sold later in blocks kept in the file; PostgreSQL takes them from the games' sequence",
}

// integerTimes are the times SQLite keeps as integers of unix nanoseconds, where PostgreSQL has a
// timestamptz: those of the rows that grow with the sales (migration 0041, Dialect.SaleTime).
var integerTimes = map[string]bool{"games.created_at": true, "transfers.created_at": true}

// ColumnTypesAgree checks that every table has the same columns on SQLite and on PostgreSQL, of
// one type and nullability: SQLite's text stands for PostgreSQL's timestamptz, date and jsonb
// (it has no such types; it keeps them as text that sorts as they do), and its integer for the
// timestamptz of integerTimes.
func ColumnTypesAgree(t *testing.T) {
	kinds := map[sqlstore.Dialect]map[string]column{}
	for _, m := range []Migrations{SQLiteMigrations, PostgresMigrations} {
		raw, open := m.Empty(t)
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		kinds[m.Dialect] = columns(t, raw, m.Dialect)
	}
	lite, pg := kinds[sqlstore.SQLite], kinds[sqlstore.PostgreSQL]
	var names []string
	for n := range lite {
		names = append(names, n)
	}
	for n := range pg {
		if _, ok := lite[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var wrong []string
	for _, n := range names {
		if _, ok := onlyOn[strings.SplitN(n, ".", 2)[0]]; ok {
			continue
		}
		a, inLite := lite[n]
		b, inPG := pg[n]
		switch {
		case !inLite || !inPG:
			wrong = append(wrong, fmt.Sprintf("%s: only on %s", n, map[bool]string{true: "SQLite", false: "PostgreSQL"}[inLite]))
		case a.kind != b.kind && !(a.kind == "text" && (b.kind == "time" || b.kind == "date" || b.kind == "json")) &&
			!(integerTimes[n] && a.kind == "integer" && b.kind == "time"):
			wrong = append(wrong, fmt.Sprintf("%s: %s on SQLite, %s on PostgreSQL", n, a.kind, b.kind))
		case a.notNull != b.notNull:
			wrong = append(wrong, fmt.Sprintf("%s: NOT NULL %v on SQLite, %v on PostgreSQL", n, a.notNull, b.notNull))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("the columns differ between the dialects:\n%s", strings.Join(wrong, "\n"))
	}
}
