package lottery

import "errors"

// A mark is what `ledger check` recorded of the books it found right, so that `ledger check
// --since-last` reads only what came after (issue 24):
//
//  1. Before it reads, a check raises the watermark: the largest game and transfer ids, written
//     into triggers that record in ledger_changes each row at or below it inserted late, and
//     each such game changed or deleted (sqlstore.RaiseLedgerMark).
//  2. Each part of the check reads its own snapshot. What it proved of the rows at or below the
//     watermark it keeps in its mark: the accounts' balances and totals, the blocks' and hours'
//     totals, the blocks whose units it verified, the journal's tree.
//  3. The next check reads the rows above the old watermark, and those the triggers recorded
//     since, and proves them against the marks. A row the triggers recorded changed or deleted
//     is a problem; a schema changed since (a trigger dropped, even put back) asks for a full
//     check.

// ErrSchemaChanged is a check since a mark whose database's schema changed since: a trigger or
// an index of the tables it does not read again was dropped, disabled or made again, so the
// rows it skips may have changed unrecorded. Only a full check proves them.
var ErrSchemaChanged = errors.New("the schema of the games, transfers, journal or emissions changed since the last check (a trigger or an index dropped, disabled or made again, or a migration): what it proved may have changed unrecorded; run a full check")

// Watermark is how far a mark covers: the rows at or below it, as recorded by the triggers.
type Watermark struct {
	Games, Transfers int64 // the largest ids the triggers watch
	Changes          int64 // the last of ledger_changes when it was raised
	// Schema is the database's schema as it stood after the triggers were written: SQLite's
	// schema_version, PostgreSQL's catalogue rows of the tables watched.
	Schema string
}

// AccountMark is an account's books at a mark: of its transfers and games at or below the
// watermark.
type AccountMark struct {
	ID, Player                  int64 // Player: 0 for the bank and the prize fund
	Balance                     int64
	Staked, Played, Won, Prizes int64 // the player's totals (games_played …)
	ExpiredThrough, Expired     int64 // the stake window: its stakes of the games through this id
}

// BlockMark is a block's sales at a mark.
type BlockMark struct {
	Emission              string
	Block                 int
	Sold, Prizes, Winners int64 // of the games at or below the watermark
	Top                   int64 // every game's unit then was below it
}

// HourMark is an hour's totals of sales at a stake (sales_hourly) at a mark.
type HourMark struct {
	Hour                                  string
	Price, Units, Stakes, Prizes, Winners int64
	TopPrize                              int64
}

// BooksMark is what the check of the books proved, at a watermark.
type BooksMark struct {
	Changes  int64         // the last of ledger_changes in its snapshot
	Accounts []AccountMark // by id
	Blocks   []BlockMark   // by emission and block
	Hours    []HourMark    // by hour and price
	// The totals the report prints.
	Games, Transfers int64
	Stakes, Prizes   int64
}

// UnitsMark is what the check of the units proved: the blocks whose every page it rebuilt and
// hashed up to their roots. (Since a mark, the comparison of the journal compares each new
// game's prize with its unit's.)
type UnitsMark struct {
	Blocks []VerifiedBlock
}

// VerifiedBlock is a block whose units were proved against its root.
type VerifiedBlock struct {
	Emission string
	Block    int
	Root     []byte
}
