package game

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/sqlite"
	"starcolor/internal/storetest"
)

// When the answer to a committed sale cannot be made, the error does not say that nothing was
// changed: it says that the game was bought, and how to get its answer.
func TestSoldAnswerSaysTheGameWasBought(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), storetest.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	e := &emission.Emission{ID: "MINI", Price: 100, Definition: def.Version, Table: *table}
	if err := db.CreateEmission(context.Background(), e, [emission.SeedSize]byte{1}, lottery.ByCommandLine, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(context.Background(), emission.Plan{Definition: def, Price: 100, Blocks: 1, Seed: [emission.SeedSize]byte{1}}, put, nil)
	}); err != nil {
		t.Fatal(err)
	}
	s := New(db, DefaultConfig, time.Now, slog.New(slog.DiscardHandler))
	// A game whose unit cannot be read: its answer cannot be made.
	g := &lottery.Game{ID: 41, Emission: "MINI", Block: 0, Unit: 5000, Color: -1, Status: "choose_color", Mode: "manual"}
	_, err = s.soldAnswer(context.Background(), g)
	if err == nil || fault.CodeOf(err) != fault.Internal || !strings.Contains(err.Error(), "the game was bought (game 41") {
		t.Fatalf("the answer of a committed sale that failed: %v", err)
	}
	if strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("it says nothing was changed: %v", err)
	}
}
