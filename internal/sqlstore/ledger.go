package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"starcolor/internal/lottery"
)

// The check of the books (starcolor ledger check) is what must hold between the games, the
// transfers and the blocks (docs/spec/RULES.md §7), as SQL that SQLite and PostgreSQL read
// alike. Each dialect adds checks of its own: the hours' totals, as each keeps them, and the
// references its tables do not enforce.

// check is one query counting the rows that break a rule: 0 when the books are right.
type check struct {
	What  string // the rule broken, as the report says it
	SQL   string
	Scope scope
}

// scope is what a check reads, and so what a check since the last one does with it.
type scope int

const (
	// history: every game or transfer, grouped. A check since proves it against its mark.
	history scope = iota
	// rows: each game or transfer on its own, from {games} and {transfers}. A check since reads
	// there the rows it has not proved yet.
	rows
	// whole: the accounts, players, blocks or sessions, whose count does not grow with the
	// games. Every check reads them whole.
	whole
)

// rowRule is a rule each game or transfer keeps on its own: Broken is true of a row that breaks
// it, a game g with gameJoins or a transfer t. The full check counts those rows (checks); a check
// since counts them in its one pass over the new rows (sumsOf).
type rowRule struct{ What, Broken string }

// gameJoins are what a game's rules read beside it: its player, its stake transfer and the next.
const gameJoins = ` LEFT JOIN players p ON p.id = g.player_id
			   LEFT JOIN transfers s ON s.id = g.stake_transfer
			   LEFT JOIN transfers w ON w.id = g.stake_transfer + 1`

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

// The references of the new rows that a check since proves in its pass: a game's player, a
// transfer's game. It proves the others on the sums (accountsSince, blocksSince); the full check
// proves every table's with the dialect's checks.
var (
	gameRefs     = rowRule{What: "new games of players that do not exist", Broken: `p.id IS NULL`}
	transferRefs = rowRule{What: "new transfers of games that do not exist", Broken: `t.game_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM games x WHERE x.id = t.game_id)`}
)

// checks are the checks both dialects share. Accounts 1 and 2 are the bank and the prize fund.
var checks = append(append(rowChecks("{games} g"+gameJoins, gameRules), rowChecks("{transfers} t", transferRules)...),
	[]check{{What: stakePrizeCount, Scope: rows, SQL: `SELECT (SELECT count(*) FROM {transfers} t WHERE kind IN ('stake', 'prize')) -
			        (SELECT count(*) FROM {games} g) - (SELECT count(*) FROM {games} g WHERE prize > 0)`},
		// A block sells only while its emission is on sale (docs/spec/OPERATOR.md): its flag is set
		// in the write that records each change of status. A flag flipped by hand would sell a
		// suspended, scheduled or withdrawn emission, or stop one on sale, unrecorded.
		{What: "blocks selling against their emission's status", Scope: whole, SQL: `SELECT count(*) FROM blocks b WHERE b.selling <> (coalesce((SELECT h.status FROM emission_history h
			 WHERE h.emission_id = b.emission_id ORDER BY h.id DESC LIMIT 1), 'on_sale') = 'on_sale')`},
		{What: "closed accounts holding money", Scope: whole, SQL: `SELECT count(*) FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.closed_at IS NOT NULL AND a.balance <> 0`},
		{What: "blocks whose sold count differs from their games, or whose games are not their first units", SQL: `SELECT count(*) FROM blocks b LEFT JOIN (
			   SELECT block_number, count(*) AS n, max(unit) + 1 AS top FROM games GROUP BY block_number) g
			   ON g.block_number = b.number
			 WHERE b.sold <> coalesce(g.n, 0) OR b.sold <> coalesce(g.top, 0)`},
		{What: "blocks whose totals of prizes and winners sold differ from their games", SQL: `SELECT count(*) FROM blocks b LEFT JOIN (
			   SELECT block_number, sum(prize) AS prizes, count(*) FILTER (WHERE prize > 0) AS winners FROM games GROUP BY block_number) g
			   ON g.block_number = b.number
			 WHERE b.prizes_sold <> coalesce(g.prizes, 0) OR b.winners_sold <> coalesce(g.winners, 0)`},
		// The weekly stake limit is checked against the window each account keeps (lottery.Window).
		// It must hold all the player's stakes. Those that have left the week are the stakes of
		// their games up to the last it counts as gone.
		// The account keeps its player's totals too, for the back office (migration 0037).
		{What: "players' stake windows (weekly limits) or totals that differ from their games", SQL: `SELECT count(*) FROM players p JOIN accounts a ON a.id = p.account_id
			   LEFT JOIN (SELECT player_id, sum(stake) AS total, count(*) AS n, count(*) FILTER (WHERE prize > 0) AS won, sum(prize) AS prizes
			              FROM games GROUP BY player_id) g ON g.player_id = p.id
			   LEFT JOIN (SELECT g.player_id, sum(g.stake) AS gone FROM games g JOIN players q ON q.id = g.player_id JOIN accounts b ON b.id = q.account_id
			              WHERE g.id <= b.staked_through_id GROUP BY g.player_id) e ON e.player_id = p.id
			 WHERE a.staked_total <> coalesce(g.total, 0) OR a.staked_expired <> coalesce(e.gone, 0)
			    OR a.games_played <> coalesce(g.n, 0) OR a.games_won <> coalesce(g.won, 0) OR a.prizes_won <> coalesce(g.prizes, 0)`},
		{What: "sessions of players or operators that do not exist", Scope: whole, SQL: `SELECT count(*) FROM sessions s
			 WHERE (s.kind = 'player' AND NOT EXISTS (SELECT 1 FROM players p WHERE p.id = s.owner_id))
			    OR (s.kind = 'operator' AND NOT EXISTS (SELECT 1 FROM operators o WHERE o.id = s.owner_id))`},
	}...)

// rowChecks are the checks counting the rows of from that break rules.
func rowChecks(from string, rules []rowRule) []check {
	out := make([]check, len(rules))
	for i, r := range rules {
		out[i] = check{What: r.What, Scope: rows, SQL: "SELECT count(*) FROM " + from + " WHERE " + r.Broken}
	}
	return out
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
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	var total int64
	if err := q.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(balance), 0) AS BIGINT), CAST(coalesce(sum(balance) FILTER (WHERE kind = 'player'), 0) AS BIGINT),
		CAST(coalesce(sum(balance) FILTER (WHERE id = 1), 0) AS BIGINT), CAST(coalesce(sum(balance) FILTER (WHERE id = 2), 0) AS BIGINT) FROM accounts`).
		Scan(&c.Accounts, &total, &c.Players, &c.Bank, &c.PrizeFund); err != nil {
		return err
	}
	if total != 0 {
		problem("the accounts sum to %d cents, not 0: money was created or lost", total)
	}
	if err := each(q.Query(ctx, `WITH moved AS (
			SELECT to_account AS account, amount FROM transfers
			UNION ALL SELECT from_account, -amount FROM transfers)
		SELECT a.id, a.kind, a.balance, CAST(coalesce(m.total, 0) AS BIGINT)
		FROM accounts a LEFT JOIN (SELECT account, sum(amount) AS total FROM moved GROUP BY account) m ON m.account = a.id
		WHERE a.balance <> coalesce(m.total, 0) OR (a.kind = 'player' AND a.balance < 0)`))(func(r Rows) error {
		var id, balance, moved int64
		var kind string
		if err := r.Scan(&id, &kind, &balance, &moved); err != nil {
			return err
		}
		if balance != moved {
			problem("account %d (%s) holds %d cents but its transfers add up to %d", id, kind, balance, moved)
		}
		if kind == "player" && balance < 0 {
			problem("player account %d is below zero: %d", id, balance)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := runChecks(ctx, q, append(checks[:len(checks):len(checks)], s.d.checks()...), "games", "transfers", problem); err != nil {
		return err
	}
	if err := q.QueryRow(ctx, `SELECT count(*), CAST(coalesce(sum(stake), 0) AS BIGINT), CAST(coalesce(sum(prize), 0) AS BIGINT) FROM games`).
		Scan(&c.Games, &c.Stakes, &c.Prizes); err != nil {
		return err
	}
	return q.QueryRow(ctx, `SELECT count(*) FROM transfers`).Scan(&c.Transfers)
}

// runChecks runs checks, reading games and transfers as {games} and {transfers}.
func runChecks(ctx context.Context, q Querier, cs []check, games, transfers string, problem func(string, ...any)) error {
	for _, ch := range cs {
		var n int64
		query := strings.NewReplacer("{games}", games, "{transfers}", transfers).Replace(ch.SQL)
		if err := q.QueryRow(ctx, query).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", ch.What, err)
		}
		if n != 0 {
			problem("%s: %d", ch.What, n)
		}
	}
	return nil
}
