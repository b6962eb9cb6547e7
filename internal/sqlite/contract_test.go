package sqlite_test

import (
	"testing"

	"starcolor/internal/storetest"
)

// The stores' contract (internal/storetest), on SQLite.
func TestContract(t *testing.T) { storetest.Run(t, storetest.SQLite) }
