package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"starcolor/internal/lottery"
)

// The check of the books since the last one (`ledger check --since-last`, lottery.BooksMark).
// What must hold over every game and transfer (the balances, the players' totals and stake
// windows, the blocks' and hours' totals) it proves as the mark's sums plus the new rows';
// what it checks of each row on its own it checks of the new rows; what does not grow with the
// games (the accounts, the blocks, the sessions) it reads whole. A full check is a check since
// an empty mark: every row is new.

// CheckBooks proves the books as CheckLedger does, in one snapshot: all of them when mark is nil,
// else the games and transfers above old's watermark and those recorded late since mark. When it
// finds nothing wrong it returns the mark of what it proved at the watermark w (RaiseLedgerMark,
// raised before it).
func (s *DB) CheckBooks(ctx context.Context, old lottery.Watermark, mark *lottery.BooksMark, w lottery.Watermark) (*lottery.LedgerCheck, *lottery.BooksMark, error) {
	var (
		c    *lottery.LedgerCheck
		next *lottery.BooksMark
	)
	err := s.snapshot(ctx, func(q Querier) error {
		c, next = &lottery.LedgerCheck{}, nil
		changes, err := s.checkSince(ctx, q, old, mark, c)
		if err != nil || len(c.Problems) > 0 {
			return err
		}
		next, err = s.booksMark(ctx, q, w, changes, c)
		return err
	})
	return c, next, s.fault(err)
}

// newRows is the rows of table above an id, and those recorded inserted late, as a subquery; the
// table itself when that is all of it. They are read by their ids: SQLite would otherwise group
// them by walking a whole index in its order, the history with them (byID).
func (d Dialect) newRows(table string, above int64, late map[int64]bool) string {
	if above <= 0 {
		return table
	}
	q := fmt.Sprintf(`SELECT * FROM %s WHERE id > %d`, d.byID(table), above)
	if len(late) > 0 {
		var ids []int64
		for id := range late {
			if id <= above {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			q += fmt.Sprintf(` UNION ALL SELECT * FROM %s WHERE id IN (%s)`, table, idList(ids))
		}
	}
	return "(" + q + ")"
}

// played is what a player's games add to their account's totals.
type played struct{ n, staked, won, prizes int64 }

// sums is what rows add to the accounts, the players and the blocks: the new rows' of a check
// since, the rows above the watermark that a mark leaves out. It counts the rows that break
// each row's rules beside.
type sums struct {
	accounts map[int64]int64  // account → money in, less money out
	players  map[int64]played // player → their games
	blocks   map[int64]sold   // block's number → its games
	hours    map[hourKey]hourSold
	games    played // all of them
	moves    int64  // transfers
	// stakePrize counts the stake and prize transfers; broken the rows that break each of
	// passRules.
	stakePrize int64
	broken     []int64
	// windowed is, for each player whose stake window moved past the old watermark, the stakes
	// of their new games in the part of its move above it (windowsMoved).
	windowed map[int64]int64
}

type blockKey struct {
	emission string
	block    int
}

type sold struct{ n, prizes, winners, top int64 } // top: the largest unit + 1

type hourKey struct {
	hour  string
	price int64
}

type hourSold struct{ units, stakes, prizes, winners, top int64 }

// The rules sumsOf's pass counts: first the games', then the transfers'.
var (
	passGameRules     = append(gameRules[:len(gameRules):len(gameRules)], gameRefs)
	passTransferRules = append(transferRules[:len(transferRules):len(transferRules)], transferRefs)
	passRules         = append(passGameRules[:len(passGameRules):len(passGameRules)], passTransferRules...)
)

// brokenMask is an expression whose bit i is set when a row breaks rules[i].
func brokenMask(rules []rowRule) string {
	terms := make([]string, len(rules))
	for i, r := range rules {
		terms[i] = fmt.Sprintf("(CASE WHEN %s THEN %d ELSE 0 END)", r.Broken, 1<<i)
	}
	return strings.Join(terms, " + ")
}

// sumsOf reads what the games and transfers of two subqueries add, in one pass over each: the
// sums are made here rather than grouped by the database, which would read the rows once for
// each grouping and sort them. The games are those above gamesAbove (all when 0), and those
// recorded late: a transfer's game among them is known from the pass over them, a bit an id;
// one at or below it is looked up.
// moved is the part above the watermark of the stake windows that moved (windowsMoved), whose
// new games' stakes the pass sums (sums.windowed); nil for none.
func (s *DB) sumsOf(ctx context.Context, q Querier, games, transfers string, gamesAbove int64, moved map[int64]idRange) (*sums, error) {
	out := &sums{accounts: map[int64]int64{}, players: map[int64]played{}, blocks: map[int64]sold{}, hours: map[hourKey]hourSold{},
		broken: make([]int64, len(passRules)), windowed: map[int64]int64{}}
	count := func(mask int64, first int) {
		for i := first; mask != 0; i, mask = i+1, mask>>1 {
			out.broken[i] += mask & 1
		}
	}
	var read idSet // the games read: 10^8 of them take 12.5 MB
	if err := s.gamesPass(ctx, q, games, gamesAbove, moved, out, &read, count); err != nil {
		return nil, err
	}
	rules := slices.Clone(passTransferRules)
	refs := len(rules) - 1
	rules[refs].Broken = fmt.Sprintf(rules[refs].Broken, gamesAbove)
	// The rows' values are scanned into the same variables: declared in the function, they were
	// six allocations a row.
	var from, to, amount, stakePrize, game, mask int64
	err := each(q.Query(ctx, `SELECT from_account, to_account, amount, CASE WHEN kind IN ('stake', 'prize') THEN 1 ELSE 0 END, coalesce(game_id, 0), `+
		brokenMask(rules)+` FROM `+transfers+` t`))(func(r Rows) error {
		if err := r.Scan(&from, &to, &amount, &stakePrize, &game, &mask); err != nil {
			return err
		}
		out.accounts[to] += amount
		out.accounts[from] -= amount
		out.moves++
		out.stakePrize += stakePrize
		if game > gamesAbove && !read.has(game) {
			mask |= 1 << refs
		}
		count(mask, len(passGameRules))
		return nil
	})
	return out, err
}

// gamesPass is sumsOf's pass over the games, those above above (0: all) and those recorded
// late: what they add to out, their ids into read.
func (s *DB) gamesPass(ctx context.Context, q Querier, games string, above int64, moved map[int64]idRange, out *sums, read *idSet, count func(mask int64, first int)) error {
	texts := map[int64]string{} // the hours' text (hourText), made once each
	// Scanned into the same variables, as sumsOf's.
	var id, player, b, unit, stake, prize, hour, mask int64
	return each(q.Query(ctx, `SELECT g.id, g.player_id, g.block_number, g.unit, g.stake, g.prize, `+s.d.gameHour("g.created_at")+`, `+
		brokenMask(passGameRules)+` FROM `+games+` g`+s.d.gameJoins(above)))(func(r Rows) error {
		if err := r.Scan(&id, &player, &b, &unit, &stake, &prize, &hour, &mask); err != nil {
			return err
		}
		won := int64(0)
		if prize > 0 {
			won = 1
		}
		p := out.players[player]
		out.players[player] = played{p.n + 1, p.staked + stake, p.won + won, p.prizes + prize}
		out.games = played{out.games.n + 1, out.games.staked + stake, out.games.won + won, out.games.prizes + prize}
		k := out.blocks[b]
		out.blocks[b] = sold{k.n + 1, k.prizes + prize, k.winners + won, max(k.top, unit+1)}
		text, ok := texts[hour]
		if !ok {
			text = hourText(hour)
			texts[hour] = text
		}
		hk := hourKey{text, stake}
		h := out.hours[hk]
		out.hours[hk] = hourSold{h.units + 1, h.stakes + stake, h.prizes + prize, h.winners + won, max(h.top, prize)}
		count(mask, 0)
		if m, ok := moved[player]; ok && id > m.lo && id <= m.hi {
			out.windowed[player] += stake
		}
		read.add(id)
		return nil
	})
}

// idRange is the games with ids in (lo, hi].
type idRange struct{ lo, hi int64 }

// windowsMoved is, for each player whose stake window moved since the mark past the old
// watermark, the part of its move above it: the stakes of those games, all new, are summed in the
// pass over the new games rather than read again by the games' index by player.
func windowsMoved(ctx context.Context, q Querier, old lottery.Watermark, mark *lottery.BooksMark) (map[int64]idRange, error) {
	was := make(map[int64]int64, len(mark.Accounts))
	for _, m := range mark.Accounts {
		was[m.ID] = m.ExpiredThrough
	}
	out := map[int64]idRange{}
	err := eachAccount(ctx, q, func(a *accountRow) error {
		lo, hi := min(was[a.ID], a.ExpiredThrough), max(was[a.ID], a.ExpiredThrough)
		if a.Player != 0 && hi > old.Games {
			out[a.Player] = idRange{max(lo, old.Games), hi}
		}
		return nil
	})
	return out, err
}

// problems reports the rows of the sums that break a rule.
func (u *sums) problems(problem func(string, ...any)) {
	for i, r := range passRules {
		if n := u.broken[i]; n != 0 {
			problem("%s: %d", r.What, n)
		}
	}
	if n := u.stakePrize - u.games.n - u.games.won; n != 0 {
		problem("%s: %d", stakePrizeCount, n)
	}
}

// checkSince proves the books from a mark: the rows above old's watermark and those recorded
// late since the mark. With no mark it proves them all: the mark is empty, every row is new, and
// the changes recorded so far were made to rows it reads as they stand. It returns the last
// change it read.
func (s *DB) checkSince(ctx context.Context, q Querier, old lottery.Watermark, mark *lottery.BooksMark, c *lottery.LedgerCheck) (int64, error) {
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	full := mark == nil
	if full {
		var last int64
		if err := q.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM ledger_changes`).Scan(&last); err != nil {
			return 0, err
		}
		old, mark = lottery.Watermark{}, &lottery.BooksMark{Changes: last}
	}
	late, last, err := late(ctx, q, mark.Changes)
	if err != nil {
		return 0, err
	}
	c.Problems = append(c.Problems, late.changed...)
	games, transfers := s.d.newRows("games", old.Games, late.games), s.d.newRows("transfers", old.Transfers, late.transfers)
	var total int64
	if err := q.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(balance), 0) AS BIGINT), CAST(coalesce(sum(balance) FILTER (WHERE kind = 'player'), 0) AS BIGINT),
		CAST(coalesce(sum(balance) FILTER (WHERE id = 1), 0) AS BIGINT), CAST(coalesce(sum(balance) FILTER (WHERE id = 2), 0) AS BIGINT) FROM accounts`).
		Scan(&c.Accounts, &total, &c.Players, &c.Bank, &c.PrizeFund); err != nil {
		return 0, err
	}
	if total != 0 {
		problem("the accounts sum to %d cents, not 0: money was created or lost", total)
	}
	cs := checks
	if full {
		cs = append(cs[:len(cs):len(cs)], s.d.refChecks()...)
	}
	if err := runChecks(ctx, q, cs, problem); err != nil {
		return 0, err
	}
	moved, err := windowsMoved(ctx, q, old, mark)
	if err != nil {
		return 0, err
	}
	added, err := s.sumsOf(ctx, q, games, transfers, old.Games, moved)
	if err != nil {
		return 0, err
	}
	added.problems(problem)
	if err := s.accountsSince(ctx, q, old, mark, late.games, added, problem); err != nil {
		return 0, err
	}
	if err := blocksSince(ctx, q, mark, added, problem); err != nil {
		return 0, err
	}
	if err := s.hoursSince(ctx, q, mark, added, problem); err != nil {
		return 0, err
	}
	c.Games = int(mark.Games + added.games.n)
	c.Transfers = int(mark.Transfers + added.moves)
	c.Stakes, c.Prizes = mark.Stakes+added.games.staked, mark.Prizes+added.games.prizes
	return last, nil
}

// accountRow is an account as the checks since read it.
type accountRow struct {
	lottery.AccountMark
	kind string
}

// eachAccount reads the accounts in the order of their ids, with their players'.
func eachAccount(ctx context.Context, q Querier, fn func(a *accountRow) error) error {
	return each(q.Query(ctx, `SELECT a.id, a.kind, coalesce(p.id, 0), a.balance, a.staked_total, a.games_played, a.games_won, a.prizes_won,
			a.staked_through_id, a.staked_expired
		FROM accounts a LEFT JOIN players p ON p.account_id = a.id ORDER BY a.id`))(func(r Rows) error {
		var a accountRow
		if err := r.Scan(&a.ID, &a.kind, &a.Player, &a.Balance, &a.Staked, &a.Played, &a.Won, &a.Prizes, &a.ExpiredThrough, &a.Expired); err != nil {
			return err
		}
		return fn(&a)
	})
}

// accountsSince proves each account's balance, its player's totals and stake window from the
// mark and the new rows.
func (s *DB) accountsSince(ctx context.Context, q Querier, old lottery.Watermark, mark *lottery.BooksMark, lateGames map[int64]bool,
	added *sums, problem func(string, ...any)) error {
	// The games recorded late, at or below the old watermark, with whose stake window they
	// count in.
	type lateGame struct{ id, stake int64 }
	lateOf := map[int64][]lateGame{}
	if len(lateGames) > 0 {
		err := each(q.Query(ctx, `SELECT player_id, id, stake FROM `+s.d.newRows("games", old.Games, lateGames)+` g WHERE id <= `+strconv.FormatInt(old.Games, 10)))(func(r Rows) error {
			var p int64
			var g lateGame
			err := r.Scan(&p, &g.id, &g.stake)
			lateOf[p] = append(lateOf[p], g)
			return err
		})
		if err != nil {
			return err
		}
	}
	lateSum := func(player, lo, hi int64) int64 { // of the late games in (lo, hi]
		var n int64
		for _, g := range lateOf[player] {
			if g.id > lo && g.id <= hi {
				n += g.stake
			}
		}
		return n
	}
	// Games in (lo, hi] of a player, the move of their window: those above the old watermark
	// summed in the pass (windowsMoved), the others read by the index by player.
	between := func(player, lo, hi int64) (int64, error) {
		var above, below int64
		if hi > old.Games {
			above, hi = added.windowed[player], old.Games
		}
		if lo >= hi {
			return above, nil
		}
		err := q.QueryRow(ctx, `SELECT CAST(coalesce(sum(stake), 0) AS BIGINT) FROM games WHERE player_id = $1 AND id > $2 AND id <= $3`, player, lo, hi).Scan(&below)
		return above + below, err
	}
	// The windows that moved since the mark, read once the accounts are: from the mark's.
	type window struct {
		a         accountRow
		from, was int64
	}
	var windows []window
	marks := mark.Accounts
	moved := 0 // the accounts the new transfers name
	err := eachAccount(ctx, q, func(a *accountRow) error {
		if _, ok := added.accounts[a.ID]; ok {
			moved++
		}
		for len(marks) > 0 && marks[0].ID < a.ID {
			problem("account %d, which the last check proved, is gone", marks[0].ID)
			marks = marks[1:]
		}
		var m lottery.AccountMark
		if len(marks) > 0 && marks[0].ID == a.ID {
			m, marks = marks[0], marks[1:]
		}
		if want := m.Balance + added.accounts[a.ID]; a.Balance != want {
			problem("account %d (%s) holds %d cents but its transfers add up to %d", a.ID, a.kind, a.Balance, want)
		}
		if a.kind == "player" && a.Balance < 0 {
			problem("player account %d is below zero: %d", a.ID, a.Balance)
		}
		if a.Player == 0 {
			return nil
		}
		p := added.players[a.Player]
		if a.Staked != m.Staked+p.staked || a.Played != m.Played+p.n || a.Won != m.Won+p.won || a.Prizes != m.Prizes+p.prizes {
			problem("players' stake windows (weekly limits) or totals that differ from their games: player %d keeps %d games, %d won, %d cents staked and %d won; its games make %d, %d, %d and %d",
				a.Player, a.Played, a.Won, a.Staked, a.Prizes, m.Played+p.n, m.Won+p.won, m.Staked+p.staked, m.Prizes+p.prizes)
		}
		if a.ExpiredThrough != m.ExpiredThrough || a.Expired != m.Expired || len(lateOf[a.Player]) > 0 {
			windows = append(windows, window{*a, m.ExpiredThrough, m.Expired})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range marks {
		problem("account %d, which the last check proved, is gone", m.ID)
	}
	if n := len(added.accounts) - moved; n > 0 {
		problem("transfers to or from accounts that do not exist: %d accounts", n)
	}
	// A stake window holds the stakes of its player's games through an id. The mark's window
	// held those through its id; the games between the two ids, and the games recorded late
	// below them, make the difference.
	for _, w := range windows {
		a, from, want := &w.a, w.from, w.was
		switch {
		case a.ExpiredThrough >= from:
			n, err := between(a.Player, from, a.ExpiredThrough)
			if err != nil {
				return err
			}
			want += n + lateSum(a.Player, 0, from)
		default:
			n, err := between(a.Player, a.ExpiredThrough, from)
			if err != nil {
				return err
			}
			want += -(n - lateSum(a.Player, a.ExpiredThrough, from)) + lateSum(a.Player, 0, a.ExpiredThrough)
		}
		if a.Expired != want {
			problem("players' stake windows (weekly limits) or totals that differ from their games: player %d's window keeps %d cents of stakes through game %d, its games make %d",
				a.Player, a.Expired, a.ExpiredThrough, want)
		}
	}
	return nil
}

// blocksSince proves each block's sold count and totals from the mark and the new games: the
// block has sold as many units as it has games, and each new game's unit is below its count.
// The units are distinct (the unique index, in the schema the mark names): so the games are the
// block's first units.
func blocksSince(ctx context.Context, q Querier, mark *lottery.BooksMark, added *sums, problem func(string, ...any)) error {
	marks := map[blockKey]lottery.BlockMark{}
	for _, b := range mark.Blocks {
		marks[blockKey{b.Emission, b.Block}] = b
	}
	seen, seenNumber := map[blockKey]bool{}, map[int64]bool{}
	err := each(q.Query(ctx, `SELECT number, emission_id, block, sold, prizes_sold, winners_sold FROM blocks`))(func(r Rows) error {
		var k blockKey
		var number, sold, prizes, winners int64
		if err := r.Scan(&number, &k.emission, &k.block, &sold, &prizes, &winners); err != nil {
			return err
		}
		seen[k], seenNumber[number] = true, true
		m, n := marks[k], added.blocks[number]
		if sold != m.Sold+n.n || sold < m.Top || n.top > sold {
			problem("blocks whose sold count differs from their games, or whose games are not their first units: %s block %d sold %d, its games make %d (%d new, the largest unit %d)",
				k.emission, k.block, sold, m.Sold+n.n, n.n, n.top-1)
		}
		if prizes != m.Prizes+n.prizes || winners != m.Winners+n.winners {
			problem("blocks whose totals of prizes and winners sold differ from their games: %s block %d keeps %d cents and %d winners, its games make %d and %d",
				k.emission, k.block, prizes, winners, m.Prizes+n.prizes, m.Winners+n.winners)
		}
		return nil
	})
	for k := range marks {
		if !seen[k] {
			problem("%s block %d, which the last check proved, is gone", k.emission, k.block)
		}
	}
	for number := range added.blocks {
		if !seenNumber[number] {
			problem("games of block number %d, which does not exist", number)
		}
	}
	return err
}

// hoursSince proves the hours' totals (sales_hourly) from the mark and the new games.
func (s *DB) hoursSince(ctx context.Context, q Querier, mark *lottery.BooksMark, added *sums, problem func(string, ...any)) error {
	want := map[hourKey]hourSold{}
	for _, h := range mark.Hours {
		want[hourKey{h.Hour, h.Price}] = hourSold{h.Units, h.Stakes, h.Prizes, h.Winners, h.TopPrize}
	}
	for k, n := range added.hours {
		w := want[k]
		want[k] = hourSold{w.units + n.units, w.stakes + n.stakes, w.prizes + n.prizes, w.winners + n.winners, max(w.top, n.top)}
	}
	differ := 0
	err := each(q.Query(ctx, `SELECT `+s.d.keptHour("hour")+`, price, units, stakes, prizes, winners, top_prize FROM sales_hourly`))(func(r Rows) error {
		var k hourKey
		var h hourSold
		if err := r.Scan(&k.hour, &k.price, &h.units, &h.stakes, &h.prizes, &h.winners, &h.top); err != nil {
			return err
		}
		if w, ok := want[k]; !ok || w != h {
			differ++
		}
		delete(want, k)
		return nil
	})
	for _, w := range want {
		if w != (hourSold{}) {
			differ++
		}
	}
	if differ > 0 {
		problem("hours of sales (sales_hourly) whose totals differ from their games: %d", differ)
	}
	return err
}

// booksMark makes the mark of the books a check proved in this snapshot, at watermark w: the
// rows as they stand, less the games and transfers above w (sold since w was raised), which the
// next check reads as new.
func (s *DB) booksMark(ctx context.Context, q Querier, w lottery.Watermark, changes int64, c *lottery.LedgerCheck) (*lottery.BooksMark, error) {
	tail, err := s.sumsOf(ctx, q, s.d.newRows("games", w.Games, nil), s.d.newRows("transfers", w.Transfers, nil), w.Games, nil)
	if err != nil {
		return nil, err
	}
	// A stake window past the watermark is brought back to it: its games above are in the tail.
	// They are read by the primary key: by the index of the games by player, whose order saves
	// the grouping's sort, SQLite read the index whole, every game ever sold.
	beyond := map[int64]int64{}
	if err := each(q.Query(ctx, `SELECT g.player_id, CAST(sum(g.stake) AS BIGINT) FROM `+s.d.newRows("games", w.Games, nil)+` g
			JOIN players p ON p.id = g.player_id JOIN accounts a ON a.id = p.account_id WHERE g.id <= a.staked_through_id GROUP BY g.player_id`))(func(r Rows) error {
		var p, n int64
		err := r.Scan(&p, &n)
		beyond[p] = n
		return err
	}); err != nil {
		return nil, err
	}
	m := &lottery.BooksMark{Changes: changes, Games: int64(c.Games) - tail.games.n, Transfers: int64(c.Transfers) - tail.moves,
		Stakes: c.Stakes - tail.games.staked, Prizes: c.Prizes - tail.games.prizes}
	if err := eachAccount(ctx, q, func(a *accountRow) error {
		am := a.AccountMark
		am.Balance -= tail.accounts[a.ID]
		if a.Player != 0 {
			p := tail.players[a.Player]
			am.Staked, am.Played, am.Won, am.Prizes = am.Staked-p.staked, am.Played-p.n, am.Won-p.won, am.Prizes-p.prizes
			if am.ExpiredThrough > w.Games {
				am.ExpiredThrough, am.Expired = w.Games, am.Expired-beyond[a.Player]
			}
		}
		m.Accounts = append(m.Accounts, am)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each(q.Query(ctx, `SELECT number, emission_id, block, sold, prizes_sold, winners_sold FROM blocks`))(func(r Rows) error {
		var b lottery.BlockMark
		var number int64
		if err := r.Scan(&number, &b.Emission, &b.Block, &b.Sold, &b.Prizes, &b.Winners); err != nil {
			return err
		}
		t := tail.blocks[number]
		b.Top = b.Sold
		b.Sold, b.Prizes, b.Winners = b.Sold-t.n, b.Prizes-t.prizes, b.Winners-t.winners
		m.Blocks = append(m.Blocks, b)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each(q.Query(ctx, `SELECT `+s.d.keptHour("hour")+`, price, units, stakes, prizes, winners, top_prize FROM sales_hourly`))(func(r Rows) error {
		var h lottery.HourMark
		if err := r.Scan(&h.Hour, &h.Price, &h.Units, &h.Stakes, &h.Prizes, &h.Winners, &h.TopPrize); err != nil {
			return err
		}
		t := tail.hours[hourKey{h.Hour, h.Price}]
		// The top prize stays: the next check takes the largest of it and the new games'.
		h.Units, h.Stakes, h.Prizes, h.Winners = h.Units-t.units, h.Stakes-t.stakes, h.Prizes-t.prizes, h.Winners-t.winners
		m.Hours = append(m.Hours, h)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortFunc(m.Blocks, func(a, b lottery.BlockMark) int {
		return cmp.Or(cmp.Compare(a.Emission, b.Emission), cmp.Compare(a.Block, b.Block))
	})
	return m, nil
}
