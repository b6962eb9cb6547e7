package game

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/sqlite"
	"starcolor/internal/sqlite/sqlitetest"
)

// When the answer to a committed sale cannot be made, the error does not say that nothing was
// changed: it says that the game was bought, and how to get its answer.
func TestSoldAnswerSaysTheGameWasBought(t *testing.T) {
	db := sqlitetest.Open(t)
	sqlitetest.CreateEmission(t, db, gamedeftest.Mini(t), "MINI", 100, 1, 1)
	s := New(db, DefaultConfig, time.Now, slog.New(slog.DiscardHandler))
	// A game whose unit cannot be read: its answer cannot be made.
	g := &sqlite.Game{ID: 41, Emission: "MINI", Block: 0, Unit: 5000, Color: -1, Status: "choose_color", Mode: "manual"}
	_, err := s.soldAnswer(context.Background(), g)
	if err == nil || fault.CodeOf(err) != fault.Internal || !strings.Contains(err.Error(), "the game was bought (game 41") {
		t.Fatalf("the answer of a committed sale that failed: %v", err)
	}
	if strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("it says nothing was changed: %v", err)
	}
}
