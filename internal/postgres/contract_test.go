package postgres_test

import (
	"testing"

	"starcolor/internal/storetest"
)

// The stores' contract (internal/storetest), on PostgreSQL: a schema of its own per test in the
// database of $STARCOLOR_TEST_POSTGRES.
func TestContract(t *testing.T) { storetest.Run(t, storetest.Postgres) }
