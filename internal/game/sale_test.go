package game

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
)

// The stakes on sale are the prices of the game definition's tables. The regulation's three are
// on sale by default, and any other stake is refused with the message it always had; a definition
// with other prices sells at those and at no other, and its refusal names them. On SQLite and on
// PostgreSQL.
func TestStakesOfTheDefinition(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(testing.TB) Store
	}{
		{"sqlite", func(t testing.TB) Store { return storetest.OpenSQLite(t) }},
		{"postgres", func(t testing.TB) Store { return storetest.OpenPostgres(t) }},
	} {
		t.Run(store.name, func(t *testing.T) {
			ctx := context.Background()
			db := store.open(t)
			now := time.Now()
			p, err := db.CreatePlayer(ctx, "stella", "x", nil, now)
			if err != nil {
				t.Fatal(err)
			}
			high := int64(lottery.MaxLimit)
			if _, err := db.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &high, Stake: &high}, "player", now); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: 10_000}, now); err != nil {
				t.Fatal(err)
			}
			buyer := Player{ID: p.ID, AccountID: p.AccountID}
			n := 0
			play := func(s *Service, stake int64) (*lottery.Game, error) {
				n++
				body := fmt.Sprintf(`{"stake":%d,"mode":"auto"}`, stake)
				_, g, err := s.Play(ctx, buyer, Request{Key: fmt.Sprint("k", n), Call: "POST /api/v1/games", Body: []byte(body)}, stake, lottery.Auto)
				return g, err
			}
			refused := func(s *Service, stake int64, message string) {
				t.Helper()
				_, err := play(s, stake)
				var f *fault.Error
				if !fault.Is(err, fault.Invalid) || !errors.As(err, &f) || f.Message != message {
					t.Fatalf("a stake of %d: %v, want 400 %q", stake, err, message)
				}
			}
			onSale := func(s *Service, stake int64, sold bool) {
				t.Helper()
				g, err := play(s, stake)
				switch {
				case sold && (err != nil || g.Stake != stake):
					t.Fatalf("a stake of %d on sale: %+v %v", stake, g, err)
				case !sold && !fault.Is(err, fault.SoldOut):
					t.Fatalf("a stake of %d with no emission: %v, want sold_out", stake, err)
				}
			}

			regulation := New(db, DefaultConfig, time.Now, slog.New(slog.DiscardHandler))
			for _, stake := range []int64{100, 200, 300} {
				onSale(regulation, stake, false)
			}
			for _, stake := range []int64{-1, 0, 50, 150, 400, 10_000} {
				refused(regulation, stake, "the stake is 100, 200 or 300 cents (1, 2 or 3 €)")
			}

			// The mini table at 0,50 € and at 1,50 €: an emission at 1,50 € only.
			other := *gamedeftest.Mini(t)
			other.Version = "mini-other/1"
			other.Tables = []gamedef.Table{other.Tables[0], other.Tables[0]}
			other.Tables[0].Price, other.Tables[1].Price = 150, 50
			storetest.CreateEmission(t, db, &other, "OTHER", 150, 1, 3)
			cfg := DefaultConfig
			cfg.Definition = &other
			s := New(db, cfg, time.Now, slog.New(slog.DiscardHandler))
			onSale(s, 150, true)
			onSale(s, 50, false)
			for _, stake := range []int64{100, 200, 300, 0} {
				refused(s, stake, "the stake is 50 or 150 cents (0,50 or 1,50 €)")
			}
			// The regulation's service does not sell at 1,50 €, emission or not.
			refused(regulation, 150, "the stake is 100, 200 or 300 cents (1, 2 or 3 €)")
		})
	}
}
