package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/game"
	"starcolor/internal/storetest"
)

// serve --demo tops the demo player up to 50 €, but never once they have excluded themselves or
// closed the account: its balance was paid out, and no money reaches it again. The server still
// starts.
func TestDemoNotToppedUpOnceShut(t *testing.T) {
	ctx := context.Background()
	store := storetest.OpenSQLite(t)
	cfg := game.DefaultConfig
	cfg.Argon2 = apptest.Fast
	svc := game.New(store, cfg, time.Now, slog.New(slog.DiscardHandler))
	if err := ensureDemo(ctx, svc, store); err != nil {
		t.Fatal(err)
	}
	p, err := store.PlayerByName(ctx, "demo")
	if err != nil || p.Balance != 5000 {
		t.Fatalf("the demo player: %+v %v", p, err)
	}
	if _, paid, err := store.ExcludePlayer(ctx, p.ID, nil, time.Now().Add(24*time.Hour), time.Now()); err != nil || paid != 5000 {
		t.Fatalf("the demo player's exclusion: paid %d, %v", paid, err)
	}
	if err := ensureDemo(ctx, svc, store); err != nil {
		t.Fatalf("serve --demo with the demo player excluded: %v", err)
	}
	if p, err := store.PlayerByName(ctx, "demo"); err != nil || p.Balance != 0 {
		t.Fatalf("the excluded demo player was topped up: %+v %v", p, err)
	}
}
