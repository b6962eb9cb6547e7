package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// changeTier changes, in the database file itself, the tier (the prize) of one unit of the first
// page of emission id's block 0. It changes it as a flipped byte on disk would, and returns the
// unit's index.
func changeTier(t *testing.T, db, id string) int {
	t.Helper()
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	data, err := store.Page(context.Background(), id, 0, 0)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	// A unit's record starts with its tier: find it in the file by the bytes around it. A page
	// of units spans several pages of the file, so some units' bytes are not in one piece.
	for j := range 256 {
		off := int(binary.LittleEndian.Uint16(data[2*j:]))
		if off < 24 || off+24 > len(data) {
			continue
		}
		window := data[off-24 : off+24]
		at := bytes.Index(file, window)
		if at < 0 || bytes.Contains(file[at+1:], window) {
			continue
		}
		tier := file[at+24]
		file[at+24] = tier ^ 1 // another tier of the table: another prize
		if err := os.WriteFile(db, file, 0o644); err != nil {
			t.Fatal(err)
		}
		return j
	}
	t.Fatal("no unit of the page found whole in the file")
	return 0
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// One byte changed on disk in a unit's stored record: its tier, which would pay another prize.
//   - The unit is never sold or paid: its price answers 503, the others sell.
//   - The server says so: an error in its log, /healthz 503, a metric.
//   - ledger check reports it and exits 1.
func TestCorruptUnitOnDisk(t *testing.T) {
	t.Parallel() // a long one: see TestMain
	db := filepath.Join(t.TempDir(), "corrupt.db")
	servableDB(t, db)
	unit := changeTier(t, db, "S1")
	srv := startServer(t, db)
	p := newPlayer(t, srv.url, "cora")
	if st, raw, _ := p.call("POST", "/api/v1/deposits", `{"amount":100000}`, "dep"); st != 201 {
		t.Fatalf("deposit: %d %s", st, raw)
	}
	for i := range unit + 3 {
		st, raw, err := p.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, "one-"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
		if err != nil {
			t.Fatal(err)
		}
		if st == 201 {
			t.Fatalf("sale %d at 1 € from a page with a changed unit: %d %s", i, st, raw)
		}
		if st != 503 || !strings.Contains(string(raw), "integrity check") {
			t.Fatalf("sale %d at 1 €: %d %s, want 503 saying why", i, st, raw)
		}
	}
	if st, raw, _ := p.call("POST", "/api/v1/games", `{"stake":200,"mode":"auto"}`, "two"); st != 201 {
		t.Fatalf("a sale at 2 €: %d %s", st, raw)
	}
	if st, body := get(t, srv.url+"/healthz"); st != 503 || !strings.Contains(body, "block 0 page 0") {
		t.Errorf("/healthz: %d %s", st, body)
	}
	if _, body := get(t, srv.metrics+"/metrics"); !strings.Contains(body, "starcolor_corrupt_unit_pages 1") {
		t.Errorf("metrics without the corrupt page")
	}
	if !strings.Contains(srv.logs.String(), `"level":"ERROR","msg":"the store is damaged: emission S1 block 0 page 0`) {
		t.Errorf("no error in the log: %s", srv.logs)
	}
	// The server's own check at start finds it too; ledger check waits for it to end.
	waitLog(t, srv, `"msg":"the store is damaged","problems"`)
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
	r := cli("ledger", "check", "--db", db)
	if r.code != 1 || !strings.Contains(r.stdout, "PROBLEM: stored units do not match their commitment: emission S1 block 0 page 0") {
		t.Fatalf("ledger check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// 64 KiB of random bytes written over the file, in the units of the first emission. ledger check
// reports it. The server starts, its check at start finds the damage (/healthz 503), and from
// then on no money moves.
func TestRandomBytesOnDisk(t *testing.T) {
	db := filepath.Join(t.TempDir(), "random.db")
	servableDB(t, db)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 64<<10)
	rand.Read(junk)
	if _, err := f.WriteAt(junk, 8<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := cli("ledger", "check", "--db", db)
	if r.code != 1 || !strings.Contains(r.stdout, "PROBLEM:") {
		t.Fatalf("ledger check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("ledger check:\n%s", r.stdout)
	srv := startServer(t, db)
	p := newPlayer(t, srv.url, "rand")
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, body := get(t, srv.url+"/healthz")
		if st == 503 {
			t.Logf("/healthz: %s", body)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after start, /healthz still says %d %s", st, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st, raw, _ := p.call("POST", "/api/v1/deposits", `{"amount":1000}`, "after-damage"); st != 503 || !strings.Contains(string(raw), "damaged") {
		t.Fatalf("a deposit on a damaged store: %d %s", st, raw)
	}
}
