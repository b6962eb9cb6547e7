package storetest

import (
	"testing"

	"starcolor/internal/app"
)

// OpenPostgres opens a new, empty PostgreSQL store: a schema of its own in the database of
// $STARCOLOR_TEST_POSTGRES.
func OpenPostgres(t testing.TB) app.Store {
	t.Helper()
	skipOrFail(t, "no PostgreSQL store yet")
	return nil
}
