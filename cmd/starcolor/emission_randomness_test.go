package main

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/storetest"
)

// emission randomness on a fresh block of the regulation's table, 1,000,000 units read back from
// SQLite: every test runs, prints its statistic, p-value and verdict, and the emission passes;
// its flags may follow the id.
func TestEmissionRandomness(t *testing.T) {
	t.Parallel() // a long one: see TestMain
	db := filepath.Join(sharedDir(t), "shared.db")
	r := cli("emission", "randomness", "--db", db, "E1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, want := range []string{
		"BLOCK 0 — 1\u202f000\u202f000 units, 243\u202f912 winning",
		"wins by segment", "χ²(99) = ", "100 segments",
		"runs of wins and losses",
		"serial correlation, lag 1", "serial correlation, lag 10",
		"positions of 20\u202f000 €, 1\u202f000 €, 100 €", "12 units",
		"positions of losing", "756\u202f088 units",
		"Tiers of fewer than 10 units (20\u202f000 €, 1\u202f000 €)",
		"ACROSS THE 1 BLOCK(S) — 12 tests",
		"VERDICT: PASS",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	// Each of the 12 tests: once in the block, once across the blocks.
	if n := strings.Count(r.stdout, "  pass\n"); n != 24 {
		t.Errorf("%d lines end in pass, want 24:\n%s", n, r.stdout)
	}
	if after := cli("emission", "randomness", "E1", "--db", db); after.code != 0 || !strings.Contains(after.stdout, "VERDICT: PASS") {
		t.Errorf("with --db after the id: exit %d, %s", after.code, after.stderr)
	}

	// The report ends with the same tests, word for word.
	rep := cli("emission", "report", "--db", db, "E1")
	_, tests, _ := strings.Cut(r.stdout, "Each test is at 99 %")
	_, inReport, found := strings.Cut(rep.stdout, "RANDOMNESS OF THE SALE ORDERS\nEach test is at 99 %")
	if rep.code != 0 || !found || inReport != tests {
		t.Errorf("the report (exit %d) does not end with the randomness tests:\n%s", rep.code, rep.stdout)
	}
}

// The same emission, stored in SQLite and in PostgreSQL, reads back to the same sale orders and
// the same tests, word for word (but the time taken).
func TestRandomnessOnBothStores(t *testing.T) {
	ctx := context.Background()
	def := gamedeftest.Mini(t)
	var outs []string
	for _, db := range []string{filepath.Join(t.TempDir(), "mini.db"), storetest.PostgresURL(t)} {
		store, err := openStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		storetest.CreateEmission(t, store, def, "MINI", 100, 3, 7)
		store.Close()
		r := cli("emission", "randomness", "--db", db, "MINI")
		if r.code != 0 || !strings.Contains(r.stdout, "ACROSS THE 3 BLOCK(S) — 11 tests") || !strings.Contains(r.stdout, "VERDICT: PASS") {
			t.Fatalf("%s: exit %d: %s\n%s", db, r.code, r.stderr, r.stdout)
		}
		_, tests, _ := strings.Cut(r.stdout, "Each test is at 99 %")
		outs = append(outs, tests)
	}
	if outs[0] != outs[1] {
		t.Errorf("SQLite and PostgreSQL give other tests:\n%s\n%s", outs[0], outs[1])
	}
}

// emission create --rng-out writes the ChaCha8 words that drew the sale order, readable by its
// owner only, and changes nothing: the same seed with and without it makes the same root (the
// shared E1 was made without it).
func TestCreateRNGOut(t *testing.T) {
	dir := sharedDir(t)
	ctx := context.Background()
	shared, err := openStore(ctx, filepath.Join(dir, "shared.db"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := shared.Emission(ctx, "E1")
	shared.Close()
	if err != nil {
		t.Fatal(err)
	}

	db := filepath.Join(t.TempDir(), "words.db")
	words := filepath.Join(t.TempDir(), "e1.bin")
	r := cli("emission", "create", "--db", db, "--id", "E1", "--price", "1", "--blocks", "1", "--seed", seed1, "--rng-out", words)
	if r.code != 0 || !strings.Contains(r.stdout, "written to "+words) {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := store.Emission(ctx, "E1")
	if err != nil {
		t.Fatal(err)
	}
	if e.Blocks[0].Root != plain.Blocks[0].Root {
		t.Fatalf("root %x with --rng-out, %x without", e.Blocks[0].Root, plain.Blocks[0].Root)
	}
	data, err := os.ReadFile(words)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(words); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600: the words give the sale order", st.Mode().Perm())
	}
	var seed [emission.SeedSize]byte
	if _, err := hex.Decode(seed[:], []byte(seed1)); err != nil {
		t.Fatal(err)
	}
	emissiontest.CheckWords(t, e, store, seed, data)
}
