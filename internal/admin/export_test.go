package admin_test

import (
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/storetest"
)

// A real block (1,000,000 units of the regulation's table), exported through the back office as
// gzip, verifies on its own with the auditors' verifier.
func TestExportVerifies(t *testing.T) {
	t.Parallel() // mostly computing, while the browser tests mostly wait
	if testing.Short() {
		t.Skip("builds and exports a block of 1,000,000 units; skipped with -short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := storetest.Open(t)
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	e := storetest.CreateEmission(t, db, def, "REAL", 100, 1, 7)
	srv := httptest.NewServer(admin.New(ctx, db, admin.Config{Definition: def, Argon2: fast, Log: slog.New(slog.DiscardHandler)}).Handler())
	defer srv.Close()
	if err := admin.CreateOperator(ctx, db, opName, opPassword, fast, time.Now()); err != nil {
		t.Fatal(err)
	}
	c := (&env{url: srv.URL}).client(t)
	if resp, _ := c.login(opName, opPassword); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	resp, err := c.http.Get(srv.URL + "/admin/emissions/REAL/blocks/0/audit.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/gzip" {
		t.Fatalf("export: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sum, err := audit.Verify(resp.Body)
	if err != nil {
		t.Fatalf("the export does not verify: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	if sum.Units != def.BlockUnits || sum.Header.Root != hexRoot(e.Blocks[0].Root) {
		t.Fatalf("verified %d units under root %s, want %d under %s", sum.Units, sum.Header.Root, def.BlockUnits, hexRoot(e.Blocks[0].Root))
	}
}

func hexRoot(h audit.Hash) string { return hex.EncodeToString(h[:]) }
