package sqlite_test

import (
	"testing"

	"starcolor/internal/storetest"
)

// The stores' contract (internal/storetest), on SQLite.
func TestContract(t *testing.T) { storetest.Run(t, storetest.SQLite) }

// The one history of the schema (internal/sqlstore), on SQLite.
func TestMigrations(t *testing.T) { storetest.RunMigrations(t, storetest.SQLiteMigrations) }
