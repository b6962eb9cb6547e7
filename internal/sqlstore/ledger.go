package sqlstore

import (
	"context"
	"fmt"

	"starcolor/internal/lottery"
)

// The check of the books (starcolor ledger check) is what must hold between the games, the
// transfers and the blocks (docs/spec/RULES.md §7). One pass reads each game and transfer once,
// with a mask of the rules each breaks, and Go makes the sums the accounts, the players, the
// blocks and the hours must keep (sumsOf). A full check is a check since an empty mark: the
// pass reads every row. What does not grow with the games (the accounts, the blocks, the
// sessions) is read whole by SQL that SQLite and PostgreSQL read alike (checks).

// check is one query counting the rows that break a rule: 0 when the books are right.
type check struct {
	What string // the rule broken, as the report says it
	SQL  string
}

// rowRule is a rule each game or transfer keeps on its own: Broken is true of a row that breaks
// it, a game g with Dialect.gameJoins or a transfer t. The pass over the rows counts those that break
// each (sumsOf).
type rowRule struct{ What, Broken string }

// gameJoins are what a game's rules read beside it: its player, its stake transfer and the next.
// Games above an id (above > 0: a check since the last) are few beside the history: on
// PostgreSQL their transfers are then looked up one by one. Joined, its planner hashed every
// transfer ever made, twice, on three processes, at each check since the last (the tables
// read whole, 4.0 s for 10^6 new games of 2×10^6, against 3.5 s on one process looked up).
func (d Dialect) gameJoins(above int64) string {
	transfer := func(alias, id string) string {
		if d == SQLite || above <= 0 {
			return ` LEFT JOIN transfers ` + alias + ` ON ` + alias + `.id = ` + id
		}
		// OFFSET 0 keeps the subquery apart: pulled up, it is a join like the others.
		return ` LEFT JOIN LATERAL (SELECT * FROM transfers x WHERE x.id = ` + id + ` OFFSET 0) ` + alias + ` ON true`
	}
	return ` LEFT JOIN players p ON p.id = g.player_id` + transfer("s", "g.stake_transfer") + transfer("w", "g.stake_transfer + 1")
}

// Each game names its stake transfer; its prize transfer, when it won, is the next. One pass
// follows those ids (no grouping of the transfers: its memory would grow with the history).
// With the count of stakePrizeCount, it proves that each game has exactly its stake transfer and
// its prize transfer: the transfers it finds are distinct, since each names its game, and the
// stake and prize transfers are no more than them.
var gameRules = []rowRule{
	{What: "games whose stake transfer or prize transfer is not theirs (its kind, game, amount, payer or payee)", Broken: `p.id IS NOT NULL AND (
			   s.id IS NULL OR s.kind <> 'stake' OR s.game_id <> g.id OR s.amount <> g.stake OR s.from_account <> p.account_id OR s.to_account <> 2
			    OR (g.prize > 0 AND (w.id IS NULL OR w.kind <> 'prize' OR w.game_id <> g.id OR w.amount <> g.prize OR w.from_account <> 2 OR w.to_account <> p.account_id))
			    OR (g.prize = 0 AND w.kind = 'prize' AND w.game_id = g.id))`},
}

// stakePrizeCount is the rule that the stake and prize transfers are as many as the games and
// their prizes.
const stakePrizeCount = "stake or prize transfers of no game, or more than their games"

var transferRules = []rowRule{
	{What: "deposits or withdrawals not between the bank and a player", Broken: `t.kind IN ('deposit', 'withdrawal') AND NOT (
			  (t.kind = 'deposit' AND t.from_account = 1 AND t.to_account IN (SELECT account_id FROM players)) OR
			  (t.kind = 'withdrawal' AND t.to_account = 1 AND t.from_account IN (SELECT account_id FROM players)))`},
	// A self-exclusion and a closure pay the whole balance out in the step that shuts the
	// account, and no money reaches it afterwards (lottery.PaidAtExclusion, the stores' payOut).
	{What: "payouts at a self-exclusion or a closure that are not a withdrawal of a player so excluded or closed", Broken: `t.reason IS NOT NULL AND NOT EXISTS (
			   SELECT 1 FROM players p WHERE p.account_id = t.from_account AND t.kind = 'withdrawal' AND t.to_account = 1
			   AND ((t.reason = 'exclusion' AND p.excluded_until IS NOT NULL) OR (t.reason = 'closure' AND p.closed_by IN ('player', 'operator'))
			     OR (t.reason = 'register' AND p.closed_by = 'register')))`},
}

// The references of the games and transfers that the pass proves: a game's player, a transfer's
// game. It proves the others on the sums: a transfer's accounts (accountsSince), a game's block
// (blocksSince).
var (
	gameRefs = rowRule{What: "games of players that do not exist", Broken: `p.id IS NULL`}
	// A transfer's game at or below the new games (%d, sumsOf) is looked up here; one above is
	// known from the pass over the new games, with no lookup.
	transferRefs = rowRule{What: "transfers of games that do not exist", Broken: `t.game_id IS NOT NULL AND t.game_id <= %d AND NOT EXISTS (SELECT 1 FROM games x WHERE x.id = t.game_id)`}
)

// checks are the checks of what does not grow with the games, both dialects' alike. Accounts 1
// and 2 are the bank and the prize fund.
var checks = []check{
	// A block sells only while its emission is on sale (docs/spec/OPERATOR.md): its flag is set
	// in the write that records each change of status. A flag flipped by hand would sell a
	// suspended, scheduled or withdrawn emission, or stop one on sale, unrecorded.
	{What: "blocks selling against their emission's status", SQL: `SELECT count(*) FROM blocks b WHERE b.selling <> (coalesce((SELECT h.status FROM emission_history h
		 WHERE h.emission_id = b.emission_id ORDER BY h.id DESC LIMIT 1), 'on_sale') = 'on_sale')`},
	{What: "closed accounts holding money", SQL: `SELECT count(*) FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.closed_at IS NOT NULL AND a.balance <> 0`},
	{What: "sessions of players or operators that do not exist", SQL: `SELECT count(*) FROM sessions s
		 WHERE (s.kind = 'player' AND NOT EXISTS (SELECT 1 FROM players p WHERE p.id = s.owner_id))
		    OR (s.kind = 'operator' AND NOT EXISTS (SELECT 1 FROM operators o WHERE o.id = s.owner_id))`},
	{What: "idempotency keys of players that do not exist", SQL: `SELECT count(*) FROM idempotency i
		 WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = i.player_id)`},
}

// CheckLedger proves that the books balance:
//
//   - the accounts sum to zero;
//   - every balance equals its transfers;
//   - every game has exactly its stake and (when it won) its prize transfer;
//   - every block's sold count equals its games, which are its first units, each sold once;
//   - what the sales keep for the back office (the totals by block and by hour, each game's
//     transfer ids) agrees with the games and transfers;
//   - every row refers to rows that exist.
//
// It reads one snapshot of the database, so that sales going on meanwhile do not disturb it.
func (s *DB) CheckLedger(ctx context.Context) (*lottery.LedgerCheck, error) {
	c := &lottery.LedgerCheck{}
	err := s.snapshot(ctx, func(q Querier) error {
		*c = lottery.LedgerCheck{}
		return s.checkLedger(ctx, q, c)
	})
	return c, s.fault(err)
}

func (s *DB) checkLedger(ctx context.Context, q Querier, c *lottery.LedgerCheck) error {
	_, err := s.checkSince(ctx, q, lottery.Watermark{}, nil, c)
	return err
}

// runChecks runs checks, and reports those that count rows.
func runChecks(ctx context.Context, q Querier, cs []check, problem func(string, ...any)) error {
	for _, ch := range cs {
		var n int64
		if err := q.QueryRow(ctx, ch.SQL).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", ch.What, err)
		}
		if n != 0 {
			problem("%s: %d", ch.What, n)
		}
	}
	return nil
}
