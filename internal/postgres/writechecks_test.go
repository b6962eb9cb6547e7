package postgres_test

import (
	"errors"
	"strings"
	"testing"

	"starcolor/internal/postgres"
	"starcolor/internal/storetest"
)

// TestWriteChecks: the writes of a sale batch that must not pass fail in PostgreSQL itself, and
// are named so: the batch sends them with its COMMIT in one round trip, with nothing checked
// between. A key written twice is errKeyRace (the batch is made again, and finds it taken); a
// block's count that is no longer the one read fails the batch.
func TestWriteChecks(t *testing.T) {
	_, raw := storetest.Postgres.Open(t)
	keys := func() error {
		_, err := raw.DB.Exec(postgres.InsertKeys, "{1}", "{k1}", `{"\\x00"}`, "{201}", `{"\\x7b7d"}`, "{0}")
		return err
	}
	if err := keys(); err != nil {
		t.Fatal(err)
	}
	if err := postgres.WriteChecks(keys()); !errors.Is(err, postgres.ErrKeyRace) {
		t.Errorf("a key written twice: %v, want errKeyRace", err)
	}
	// No block 0 of emission NONE sold 5 units: the update finds no row.
	_, err := raw.DB.Exec(postgres.UpdateSold, 6, 0, 0, "NONE", 0, 5)
	if err = postgres.WriteChecks(err); err == nil || !strings.Contains(err.Error(), "sold count changed") {
		t.Errorf("a block's count changed: %v", err)
	}
}
