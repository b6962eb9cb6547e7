package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// A process started again on the file (after a crash: nothing but the file remains) never hands
// out a game id handed out before, even one whose sale was never made: the wallet knows that id as
// a round already.
func TestReservedGameIDsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ids.db")
	seen := map[int64]bool{}
	for run := range 3 {
		d, err := Open(ctx, path, testKey)
		if err != nil {
			t.Fatal(err)
		}
		for range reserveBlock + 10 { // past a block: the reservation written twice
			id, err := d.ReserveGameID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if seen[id] {
				t.Fatalf("run %d handed out id %d again", run, id)
			}
			seen[id] = true
		}
		d.Close() // no game was sold: only the reservation says which ids are taken
	}
}
