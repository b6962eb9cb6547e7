package sqlite

import (
	"database/sql"
	"testing"
)

// The statements shared with PostgreSQL (internal/sqlstore) number their parameters $1, $2, …:
// modernc's driver binds $N to the Nth argument, wherever it stands and however often, as
// PostgreSQL does.
func TestDollarParameters(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var a, b, c string
	if err := db.QueryRow(`SELECT $2 || $1, $1, $3 || $2`, "one", "two", "three").Scan(&a, &b, &c); err != nil {
		t.Fatal(err)
	}
	if a != "twoone" || b != "one" || c != "threetwo" {
		t.Fatalf("$2 || $1, $1, $3 || $2 of one, two, three: %q, %q, %q", a, b, c)
	}
}
