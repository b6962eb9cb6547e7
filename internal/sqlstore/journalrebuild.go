package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/emission"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// A sale's entry is kept as its leaf hash (migration 0043): its bytes are those of
// journal.Encode over the game's rows, its unit's audit line and its player's account reference,
// all still in the database. They are rebuilt here, for whoever reads the entry (the journal's
// export, a game's proof) and for ledger check, and must hash to the leaf kept: a game rewritten
// since its sale cannot be served as its entry, and is named by ledger check.

// gameRow is a game as its sale entry records it, with its player's account.
type gameRow struct {
	g       lottery.Game
	account int64
}

// gameReader reads games as their sale entries record them, in one snapshot. Their blocks and
// their players' accounts are looked up here rather than joined: each game joined cost two
// seeks, 0.6 s of the 2.1 s that reading 10^6 games took (docs/PERFORMANCE.md, « eleventh
// round »), while the blocks are few and the players of a chunk of games are few too.
type gameReader struct {
	blocks   map[int64]gameBlock // by number, read once
	accounts map[int64]int64     // player → account, read as new players come
}

type gameBlock struct {
	emission string
	block    int
}

// maxAccounts bounds gameReader.accounts: past it, the players read so far are forgotten.
const maxAccounts = 1 << 20

// in reads the games of ids, by id. A game whose block is gone is read all the same, as of no
// block, and one whose player is gone as of account 0: its entry differs.
func (gr *gameReader) in(ctx context.Context, q Querier, ids []int64) (map[int64]*gameRow, error) {
	if gr.blocks == nil {
		gr.blocks, gr.accounts = map[int64]gameBlock{}, map[int64]int64{}
		err := each(q.Query(ctx, `SELECT number, emission_id, block FROM blocks`))(func(r Rows) error {
			var n int64
			var b gameBlock
			err := r.Scan(&n, &b.emission, &b.block)
			gr.blocks[n] = b
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	out := make(map[int64]*gameRow, len(ids))
	players := map[int64][]*gameRow{} // those not in accounts yet
	// The rows are made in one slice rather than one by one: a chunk holds thousands. The
	// ranges may hold games that are not in ids: those are made apart.
	rows := make([]gameRow, len(ids))
	err := inRanges(ctx, q, ids, `SELECT id, block_number, player_id, unit, stake, mode, prize, stake_transfer, created_at
		FROM games WHERE id >= $1 AND id <= $2`, func(r Rows) error {
		var g *gameRow
		if len(rows) > 0 {
			g, rows = &rows[0], rows[1:]
		} else {
			g = new(gameRow)
		}
		var number, player int64
		if err := r.Scan(&g.g.ID, &number, &player, &g.g.Unit, &g.g.Stake, &g.g.Mode, &g.g.Prize, &g.g.StakeTransfer, ScanTime(&g.g.CreatedAt)); err != nil {
			return err
		}
		g.g.Block = -1
		if b, ok := gr.blocks[number]; ok {
			g.g.Emission, g.g.Block = b.emission, b.block
		}
		if a, ok := gr.accounts[player]; ok {
			g.account = a
		} else {
			players[player] = append(players[player], g)
		}
		out[g.g.ID] = g
		return nil
	})
	if err != nil || len(players) == 0 {
		return out, err
	}
	if len(gr.accounts)+len(players) > maxAccounts {
		clear(gr.accounts)
	}
	// By a list: a chunk's players are as scattered as the players who play.
	ids = make([]int64, 0, len(players))
	for p := range players {
		ids = append(ids, p)
	}
	err = each(q.Query(ctx, `SELECT id, account_id FROM players WHERE id IN (`+idList(ids)+`)`))(func(r Rows) error {
		var p, a int64
		if err := r.Scan(&p, &a); err != nil {
			return err
		}
		gr.accounts[p] = a
		for _, g := range players[p] {
			g.account = a
		}
		return nil
	})
	return out, err
}

// inRanges runs query in q, whose $1 and $2 are the first and last id of a range, over the
// ranges that hold ids, and scan on each row.
func inRanges(ctx context.Context, q Querier, ids []int64, query string, scan func(Rows) error) error {
	for _, r := range ranges(ids) {
		if err := each(q.Query(ctx, query, r[0], r[1]))(scan); err != nil {
			return err
		}
	}
	return nil
}

// ranges are the ranges of ids that hold ids, none wider than rangeGap between two ids.
func ranges(ids []int64) [][2]int64 {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out [][2]int64
	for _, id := range ids {
		if n := len(out); n > 0 && id-out[n-1][1] <= rangeGap {
			out[n-1][1] = id
			continue
		}
		out = append(out, [2]int64{id, id})
	}
	return out
}

// saleBytes is the entry of g's sale at seq, whose unit's audit line has the leaf hash unit.
func saleBytes(seq int64, g *gameRow, unit [32]byte, key *journal.AccountKey) []byte {
	return journal.Encode(uint64(seq), g.g.CreatedAt, SaleEvent(&g.g, g.account, unit), key)
}

// errNoEmission is a game of an emission that is not in the database.
var errNoEmission = errors.New("no such emission")

// units reads the games' units from their emissions' stored pages, each emission's reader made
// once.
type units struct {
	s       *DB
	readers map[string]*unitReader
}

// unitReader reads the units of an emission, or says why they cannot be.
type unitReader struct {
	r   *emission.Reader
	err error
}

// leaf is the leaf hash of a game's unit's audit line, as its sale entry names it, and the
// unit's prize: the unit read from its emission's stored pages, each page checked against the
// block's root.
func (u *units) leaf(ctx context.Context, g *lottery.Game) ([32]byte, int64, error) {
	if g.Emission == "" { // its block is not in the database (gameReader): say so, not « no emission "" »
		return [32]byte{}, 0, fmt.Errorf("%w: block number of no block", errNoEmission)
	}
	if u.readers == nil {
		u.readers = map[string]*unitReader{}
	}
	r := u.readers[g.Emission]
	if r == nil {
		r = &unitReader{}
		e, err := u.s.Emission(ctx, g.Emission)
		switch {
		case errors.Is(err, emission.ErrNotFound):
			r.err = fmt.Errorf("%w %s", errNoEmission, g.Emission)
		case err != nil:
			return [32]byte{}, 0, err
		default:
			r.r, r.err = emission.NewReader(e, u.s.pages)
		}
		u.readers[g.Emission] = r
	}
	if r.err != nil {
		return [32]byte{}, 0, r.err
	}
	rec, leaf, err := r.r.UnitLeaf(ctx, g.Block, g.Unit)
	return leaf, rec.Prize, err
}

// journalRow is an entry's row as kept: its bytes, or a sale's leaf and game.
type journalRow struct {
	seq   int64
	entry []byte
	leaf  []byte
	game  *int64
}

// wellFormed says whether the row holds one form alone: an entry's bytes, or a leaf hash.
func (r *journalRow) wellFormed() bool {
	if r.entry != nil {
		return r.leaf == nil
	}
	return len(r.leaf) == len(tlog.Hash{})
}

// formErr says why the row is not well formed, or nil.
func (r *journalRow) formErr() error {
	if r.wellFormed() {
		return nil
	}
	return fmt.Errorf("journal: the row of entry %d holds neither an entry's bytes nor a leaf hash alone", r.seq)
}

// hash is the row's leaf hash: its entry's, or the one kept.
func (r *journalRow) hash() (tlog.Hash, error) {
	if err := r.formErr(); err != nil {
		return tlog.Hash{}, err
	}
	if r.entry != nil {
		return journal.Leaf(r.entry), nil
	}
	return tlog.Hash(r.leaf), nil
}

// selectJournalRows reads the rows of entries $1 to $2-1, in order (scanJournalRow).
const selectJournalRows = `SELECT seq, entry, leaf, game FROM journal WHERE seq >= $1 AND seq < $2 ORDER BY seq`

func scanJournalRow(r Rows) (row journalRow, err error) {
	err = r.Scan(&row.seq, &row.entry, &row.leaf, &row.game)
	return row, err
}

// journalRows reads the rows of entries start to end-1, failing if one is missing.
func journalRows(ctx context.Context, q Querier, start, end int64) ([]journalRow, error) {
	out := make([]journalRow, 0, end-start)
	err := each(q.Query(ctx, selectJournalRows, start, end))(func(r Rows) error {
		row, err := scanJournalRow(r)
		if err != nil {
			return err
		}
		if want := start + int64(len(out)); row.seq != want {
			return fmt.Errorf("journal: entry %d is missing (the next is %d)", want, row.seq)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != end-start {
		return nil, errShort{start, end, start + int64(len(out))}
	}
	return out, nil
}

// errShort is a range of entries beyond those appended.
type errShort struct{ start, end, size int64 }

func (e errShort) Error() string {
	return fmt.Sprintf("journal: entries %d to %d: only %d appended", e.start, e.end-1, e.size)
}

// rebuild rebuilds the bytes of the sales among rows kept as their leaves, read in q, and checks
// each against its leaf.
func (s *DB) rebuild(ctx context.Context, q Querier, rows []journalRow) ([][]byte, error) {
	var ids []int64
	for _, r := range rows {
		if r.entry == nil && r.game != nil {
			ids = append(ids, *r.game)
		}
	}
	var games map[int64]*gameRow
	if len(ids) > 0 {
		if s.key == nil {
			return nil, errNoKey
		}
		var err error
		var gr gameReader
		if games, err = gr.in(ctx, q, ids); err != nil {
			return nil, err
		}
	}
	u := units{s: s}
	out := make([][]byte, len(rows))
	for i := range rows {
		r := &rows[i]
		if err := r.formErr(); err != nil {
			return nil, err
		}
		if r.entry != nil {
			out[i] = r.entry
			continue
		}
		if r.game == nil {
			return nil, fmt.Errorf("journal: entry %d is kept as its leaf, and names no game to rebuild it from", r.seq)
		}
		g, ok := games[*r.game]
		if !ok {
			return nil, fmt.Errorf("journal: entry %d, the sale of game %d, cannot be rebuilt: the database has no game %d (ledger check names it)", r.seq, *r.game, *r.game)
		}
		unit, _, err := u.leaf(ctx, &g.g)
		if err != nil {
			return nil, fmt.Errorf("journal: entry %d, the sale of game %d: its unit (%s block %d unit %d): %w", r.seq, *r.game, g.g.Emission, g.g.Block, g.g.Unit, err)
		}
		e := saleBytes(r.seq, g, unit, s.key)
		if journal.Leaf(e) != tlog.Hash(r.leaf) {
			return nil, fmt.Errorf("journal: entry %d, the sale of game %d, cannot be rebuilt: the game's rows were changed since its sale (ledger check names how)", r.seq, *r.game)
		}
		out[i] = e
	}
	return out, nil
}
