package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// What a sale adds to the file for the journal, as SQLite's dbstat counts the pages of its
// tables: 5,000 sales (50 players at once, 100 each), their entries (the sale, and the prize of a
// winner) with the index of the sales' games, and the tree's tiles over them. The figures are in
// docs/PERFORMANCE.md; the test fails if a sale comes to cost more than 200 bytes (464 when a
// sale's entry was kept as its bytes, before migration 0043).
func TestJournalBytesPerSale(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t)
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	e := &emission.Emission{ID: "20261130-090000-1eur", Price: 100, Definition: def.Version, Table: *table, CreatedAt: time.Now()}
	if err := d.CreateEmission(ctx, e, [32]byte{3}, lottery.ByServer, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(ctx, emission.Plan{Definition: def, Price: 100, Blocks: 5, Seed: [32]byte{3}}, put, nil)
	}); err != nil {
		t.Fatal(err)
	}
	r, err := emission.NewReader(e, d)
	if err != nil {
		t.Fatal(err)
	}
	f := &salesFixture{d: d, reader: r, now: time.Now()}
	const players, each = 50, 100
	var wg sync.WaitGroup
	for i := range players {
		p := f.player(t, fmt.Sprint("p", i), 1000_00)
		wg.Go(func() {
			for n := range each {
				if _, err := f.sell(p, fmt.Sprint("k", n)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// The entries appended and the tree's tiles, as journal.Log stores them.
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := journal.NewLog(d, key).Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := d.JournalState(ctx)
	if err != nil || st.Hashed != st.Size {
		t.Fatalf("%+v %v: the tree is not integrated", st, err)
	}

	var sales, prizes, saleBytes, prizeBytes int64
	// A sale's row keeps its leaf hash, not its bytes (migration 0043); a prize's keeps its bytes.
	var whole int64
	if err := d.db.QueryRow(`SELECT count(*) FILTER (WHERE k = 'sale'), count(*) FILTER (WHERE leaf IS NOT NULL), count(*) FILTER (WHERE k = 'prize'),
		coalesce(sum(length(leaf)), 0), coalesce(sum(n) FILTER (WHERE k = 'prize'), 0)
		FROM (SELECT json_extract(CAST(entry AS TEXT), '$.kind') AS k, length(entry) AS n, leaf FROM journal)`).Scan(&whole, &sales, &prizes, &saleBytes, &prizeBytes); err != nil {
		t.Fatal(err)
	}
	if whole != 0 || sales != players*each {
		t.Fatalf("%d sales kept as their leaves, %d as their bytes, for %d sales", sales, whole, players*each)
	}
	pages := func(table string) (size, payload int64) {
		t.Helper()
		if err := d.db.QueryRow(`SELECT sum(pgsize), sum(payload) FROM dbstat WHERE name = ?`, table).Scan(&size, &payload); err != nil {
			t.Fatal(err)
		}
		return size, payload
	}
	entryPages, _ := pages("journal")
	byGame, _ := pages("journal_by_game")
	tree, _ := pages("journal_tiles")
	treeKey, _ := pages("sqlite_autoindex_journal_tiles_1")
	tiles := len(tlog.NewTiles(journal.TileHeight, 0, st.Size))
	perEntry, perTree := float64(entryPages)/float64(st.Size), float64(tree+treeKey)/float64(st.Size)
	perSale := float64(sales+prizes) / float64(sales) * (perEntry + perTree)
	seq := float64(byGame) / float64(sales)
	t.Logf("%d sales: %d sale entries kept as leaves of %.0f bytes, %d prize entries of %.0f bytes (%d entries in all)", sales, sales,
		float64(saleBytes)/float64(sales), prizes, float64(prizeBytes)/float64(prizes), st.Size)
	t.Logf("journal: %d bytes of pages, %.0f an entry; journal_tiles: %d tiles, %d bytes of pages and %d of its key, %.1f an entry; journal_by_game: %.1f bytes a game",
		entryPages, perEntry, tiles, tree, treeKey, perTree, seq)
	t.Logf("a sale adds %.0f bytes: %.2f entries with their hashes, and its game's index", perSale+seq, float64(sales+prizes)/float64(sales))
	if perSale+seq > 200 {
		t.Errorf("a sale adds %.0f bytes to the file for the journal, more than 200", perSale+seq)
	}
}
