package postgres_test

import (
	"testing"

	"starcolor/internal/storetest"
)

// The stores' contract (internal/storetest), on PostgreSQL: a schema of its own per test in the
// database of $STARCOLOR_TEST_POSTGRES.
func TestContract(t *testing.T) { storetest.Run(t, storetest.Postgres) }

// The one history of the schema (internal/sqlstore), on PostgreSQL.
func TestMigrations(t *testing.T) { storetest.RunMigrations(t, storetest.PostgresMigrations) }

// Every table has the same columns on both dialects, of one type and nullability.
func TestColumnTypesAgree(t *testing.T) { storetest.ColumnTypesAgree(t) }
