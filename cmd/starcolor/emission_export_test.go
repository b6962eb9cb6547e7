package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/audit"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/storetest"
)

// No unit leaves before it is sold (docs/spec/RULES.md §6): emission export refuses a block with units for
// sale (exit 1, no file), and exports it once the game server has sold it out, its lines hashing
// to the committed root.
func TestExportOnceSoldOut(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "sold.db")
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	def := gamedeftest.Mini(t)
	e := storetest.CreateEmission(t, store, def, "MINI", 100, 2, 7)
	out := filepath.Join(t.TempDir(), "block0.jsonl")
	export := func(k int) result {
		return cli("emission", "export", "--db", db, "--emission", "MINI", "--block", fmt.Sprint(k), "--out", out)
	}
	want := fmt.Sprintf("block 0 of emission MINI still has %d of its %d units for sale", def.BlockUnits, def.BlockUnits)
	if r := export(0); r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("export of a block on sale: exit %d, %q; want 1 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused export left %s", out)
	}

	// The game server sells block 0 out to one player.
	cfg := game.DefaultConfig
	cfg.Argon2 = apptest.Fast
	// The server signs with the key the store's account key came from, as serve does.
	key, err := journal.OpenKey(journalKeyPath(db), "", false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, store, app.Config{Game: cfg, Definition: def, Journal: key})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	p := &player{name: "buyer", http: &http.Client{Jar: jar}, base: srv.URL}
	creds := `{"username":"buyer","password":"pw-buyer-secret"}`
	for _, step := range []struct{ method, path, body string }{
		{"POST", "/api/v1/players", signUp(creds)},
		{"POST", "/api/v1/session", creds},
		{"PUT", "/api/v1/me/limits", `{"deposit_weekly":100000000,"stake_weekly":100000000}`},
		{"POST", "/api/v1/deposits", `{"amount":100000}`},
	} {
		if st, raw, err := p.call(step.method, step.path, step.body, "k-"+step.path); err != nil || st >= 300 {
			t.Fatalf("%s %s: %d %s %v", step.method, step.path, st, raw, err)
		}
	}
	for i := range def.BlockUnits {
		if st, raw, err := p.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, fmt.Sprint("game-", i)); err != nil || st != 201 {
			t.Fatalf("sale %d: %d %s %v", i, st, raw, err)
		}
	}

	if r := export(0); r.code != 0 {
		t.Fatalf("export of the block sold out: exit %d, %s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(lines) != 1+def.BlockUnits {
		t.Fatalf("%d lines, want a header and %d units", len(lines), def.BlockUnits)
	}
	var leaves []audit.Hash
	for _, l := range lines[1:] {
		leaves = append(leaves, audit.LeafHash(l))
	}
	if got := audit.Root(leaves); got != e.Blocks[0].Root {
		t.Fatalf("the export hashes to %x, the committed root is %x", got, e.Blocks[0].Root)
	}
	if r := cli("emission", "export", "--db", db, "--emission", "MINI", "--block", "0", "--out", filepath.Join(t.TempDir(), "no", "x.jsonl")); r.code != 1 || !strings.Contains(r.stderr, "no such file") {
		t.Fatalf("export into a missing folder: exit %d, %q", r.code, r.stderr)
	}
	if r := export(1); r.code != 1 || !strings.Contains(r.stderr, "block 1 of emission MINI still has") {
		t.Fatalf("export of block 1, on sale now: exit %d, %q", r.code, r.stderr)
	}
}
