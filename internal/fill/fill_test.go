package fill_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/fill"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
)

// A fill makes the sales it was asked for, of every stake and mode, for its players, with the
// heavy ones playing their share; every « Jouer » game is finished, and the books pass the ledger
// check and match the journal entry for entry. On both stores.
func TestFillPassesLedgerCheck(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testFill(t, storetest.OpenSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { testFill(t, storetest.OpenPostgres(t)) })
}

func testFill(t *testing.T, store app.Store) {
	ctx := context.Background()
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.DefaultConfig
	cfg.Argon2 = apptest.Fast
	a, err := app.New(ctx, store, app.Config{Game: cfg, Definition: gamedeftest.Mini(t), Journal: key})
	if err != nil {
		t.Fatal(err)
	}
	env := struct {
		App   *app.App
		Store app.Store
	}{a, store}
	const games = 3000
	res, err := fill.Run(ctx, env.App, fill.Config{Games: games, Players: 30, Heavy: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != games || res.Manual != games/50 || res.Players != 32 {
		t.Errorf("made %d games (%d « Jouer ») for %d players, want %d (%d) for 32", res.Games, res.Manual, res.Players, games, games/50)
	}
	// The mini definition's blocks hold 1,000 units: the 1,500 games at the lowest stake take
	// two blocks, of one emission.
	if len(res.Emissions) != 3 {
		t.Errorf("emissions made: %v, want one at each stake", res.Emissions)
	}
	check, err := env.Store.CheckLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check.Problems {
		t.Errorf("ledger check: %s", p)
	}
	if check.Games != games {
		t.Errorf("ledger check counts %d games, want %d", check.Games, games)
	}
	if n := storetest.CheckJournal(t, env.Store, storetest.AccountKey); n < games {
		t.Errorf("the journal holds %d entries, fewer than the %d sales", n, games)
	}
	var report strings.Builder
	if err := fill.Report(ctx, store.(fill.Sizer), &report); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{fmt.Sprintf("%d games", games), "\ngames ", "\ntransfers ", "\nsales ", "\njournal ", "\nunits ", "\nall "} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("the size report lacks %q:\n%s", want, report.String())
		}
	}
	left, err := env.Store.Abandoned(ctx, time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("%d « Jouer » games left unfinished, first %d", len(left), left[0].ID)
	}

	// Every stake is sold, half the games at the lowest; the two heavy players play about 40 %
	// of them.
	stakes := map[int64]int{}
	heavy, modes := 0, map[string]int{}
	players, err := env.Store.FindPlayers(ctx, "fill", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(players) != 32 {
		t.Fatalf("found %d players of the fill, want 32", len(players))
	}
	for i, p := range players {
		gs, err := env.Store.Games(ctx, p.ID, games, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			stakes[g.Stake]++
			modes[g.Mode]++
		}
		if i >= 30 {
			heavy += len(gs)
		}
	}
	if stakes[100] != games/2 || stakes[200] != games*3/10 || stakes[300] != games/5 {
		t.Errorf("games by stake: %v", stakes)
	}
	if modes[lottery.Manual] != games/50 || modes[lottery.Auto] != games-games/50 {
		t.Errorf("games by mode: %v", modes)
	}
	if heavy < games*35/100 || heavy > games*45/100 {
		t.Errorf("the heavy players played %d of %d games, want about 40 %%", heavy, games)
	}
}
