package lottery

import (
	"context"
	"fmt"
	"time"

	"starcolor/internal/fault"
)

// The sale (docs/spec/RULES.md §7) is all of it or nothing. The stake is debited, the next
// unsold unit of the open block at that price assigned, its prize credited, the game written,
// the answer kept under the request's key. Sales come in batches, the server's hot path, one
// transaction each:
//
//  1. the store reads, once, what the batch is decided against: a Book (the buyers' balances and
//     stakes of the week, the keys they have used, their sessions);
//  2. Decide decides each sale in turn against the Book as the batch's earlier sales leave it. It
//     asks the store's Stock where the sales at a price stand and the ids of the rows, and the
//     request's Prizes the prize of the unit it gives;
//  3. the store writes the Rows that come out.

// SaleRequest is a sale with its idempotency key: what a store needs to know to sell.
type SaleRequest struct {
	PlayerID, AccountID int64
	// Session is the hash of the buyer's session token: the sale is refused if the session has
	// ended (a logout) by the time it is written. Nil is not checked.
	Session []byte
	Price   int64
	Mode    string // Manual or Auto
	Color   int    // -1 until chosen (« Jouer »); drawn already for « Auto »
	Status  string // the game's first status: ChooseColor, or Finished for « Auto »

	// GameID is the id the game gets, reserved before the sale (a sale in wallet mode names its
	// round to the wallet first); 0: the store gives one.
	GameID int64
	// Wallet is the sale's debit at the operator's wallet, made already (seamless wallet mode:
	// the money is the wallet's); nil for a sale from the player's own account.
	Wallet *WalletSale

	Key         string // the request's Idempotency-Key
	RequestHash []byte // SHA-256 of the request's call and body, kept under the key with SoldAnswer
	// Unkept: no answer is kept under Key, nor is Key looked up among those kept. Only the fill
	// tool's sales are so (internal/fill): made at times older than any kept answer, each answer
	// would be written only for the sweep of old keys to delete it. Never a request's.
	Unkept bool
	// Prizes reads the prize of the unit the sale is given.
	Prizes Prizes
}

// Prizes reads the units sales are given, each checked against its emission's commitment (the
// game server's unit cache). Decide asks it in the store's turn, with the store's context: never
// the request's, whose end (a client hanging up) would otherwise fail every sale of the batch.
type Prizes interface {
	Unit(ctx context.Context, emission string, block, unit int) (SoldUnit, error)
}

// SoldUnit is what a sale reads of its unit: its prize, and the leaf hash of its audit line
// (docs/spec/RULES.md §8), which the sale's entry in the journal names (docs/spec/API.md 1.2).
type SoldUnit struct {
	Prize int64
	Leaf  [32]byte
}

// Sale is a sale being decided: its request and its time, and once decided, its game and the
// answer kept under its key, or why it was refused.
type Sale struct {
	Request SaleRequest
	Time    time.Time

	Game   Game
	Answer Answer
	Err    error
}

// Cursor is where the sales at one price stand: the open block they sell from and how many of its
// units are sold, so the index of the next unit to sell. Written is the sold count the store
// holds; Prizes and Winners are what the units sold since then hold, still to be added to the
// block's totals.
type Cursor struct {
	Emission    string
	Block       int
	Number      int64 // the block's number in the store: what its games' rows name it by
	Sold, Units int
	Written     int
	Prizes      int64
	Winners     int
}

// Open tells whether the block has units left to sell.
func (c *Cursor) Open() bool { return c.Sold < c.Units }

// Book is what a batch of sales is decided against, read by the store once per batch and
// changed by Decide as each sale is decided.
type Book struct {
	Balances map[int64]int64 // the buyers' accounts
	Taken    map[KeyRef]bool // the keys already answered
	Live     map[string]bool // the sessions still open, by hash
	// Held are the rollbacks still held of the batch's sales in wallet mode, by transaction id.
	// One no longer held was released (a sweep took its sale for one a crash ended): its debit
	// is being rolled back, so the sale must not be made.
	Held map[string]bool
	// Stakes are the buyers' weekly stake limits and the stakes of their week, by account. A
	// buyer without one has set no limit. The limit is checked in the sale's atomic step
	// (docs/spec/RULES.md §7 and docs/spec/API.md 1.1).
	Stakes map[int64]*Staking
}

// Stock is what Decide asks of the store while it decides a batch, in the batch's transaction:
// where the sales at a price stand, and the ids of the rows to write. Each store hands out the
// ids its own way.
type Stock interface {
	// Cursor is where the sales at a price stand. The store moves it to the next open block
	// (oldest emission first) once its block is sold out; none left is a fault.SoldOut.
	Cursor(price int64) (*Cursor, error)
	// NextIDs gives a sold game its id and its stake transfer's; its prize transfer's, when it
	// won, is the next.
	NextIDs(won bool) (game, stake int64)
	// TransferID gives another transfer its id (a sale in wallet mode's deposit and withdrawal),
	// called in the order the transfers are written.
	TransferID() int64
}

// WalletSale is what a sale in wallet mode brings from the debit the wallet acknowledged. The
// stake is the wallet's, so the player's account is neither checked nor left changed. The books
// show the debit as a deposit from the bank, which stands for the wallet, and the prize,
// credited to the wallet, as a withdrawal to it. The player's limits are the operator's.
type WalletSale struct {
	// Balance is the wallet's balance after the debit.
	Balance int64
	// Credit makes the credit of the game's prize, to keep in the outbox with the game (held
	// until the game finishes).
	Credit WalletCredit
	// Rollback is the transaction id of the rollback kept (held) before the debit, in case the
	// sale is not made: the sale deletes it.
	Rollback string
	// Next, if not nil, is the rollback to hold ahead for the player's next sale, kept with this
	// sale's game. That sale then sends its debit without a write of its own before it.
	Next *WalletCall
}

// WalletCredit makes the call that credits a sold game's prize at the operator's wallet, once
// Decide knows the prize. The call's body is in the wallet's protocol (internal/wallet), which
// the domain does not speak.
type WalletCredit interface {
	CreditOf(g *Game) WalletCall
}

// Staking is what a buyer's stakes are checked against: their weekly stake limit and their
// stakes of the week. Changed says that the window changed (the store brought it forward, or a
// sale added to it), so that it is written.
type Staking struct {
	Limit   Limit
	Window  Window
	Changed bool
}

// BringForward brings forward, to the batch's first sale, the buyers' stake windows that a stake
// has left since they were last brought forward. That is rare: a stake leaves a week after it
// was made. The batch's later sales are checked against a sum that may still count a stake that
// left meanwhile, never one that is missing. forward reads a player's games as Window.Forward
// asks.
func (b *Book) BringForward(sales []*Sale, forward func(player int64, w *Window, at time.Time) error) error {
	first := sales[0].Time
	owner := map[int64]int64{} // the buyer of each account
	for _, s := range sales {
		if s.Time.Before(first) {
			first = s.Time
		}
		owner[s.Request.AccountID] = s.Request.PlayerID
	}
	for id, st := range b.Stakes {
		if !st.Window.Current(first) {
			if err := forward(owner[id], &st.Window, first); err != nil {
				return fmt.Errorf("bring the stakes of the week forward: %w", err)
			}
			st.Changed = true
		}
	}
	return nil
}

// KeyedAnswer is an answer kept under a key, as written.
type KeyedAnswer struct {
	KeyRef
	KeptAnswer
	CreatedAt int64 // unix seconds
}

// Rows are what a batch of sales writes: its games, their transfers, the answers under their
// keys, the change of each account's balance, and what they add to each hour's sales at each
// price. (The cursors the store handed out say what to add to each block.)
type Rows struct {
	Games []*Game
	// Leaves are the leaf hashes of the games' units (SoldUnit.Leaf), in the order of Games: the
	// journal's sale entries name them, the games' rows do not keep them.
	Leaves    [][32]byte
	Transfers []Transfer
	Answers   []KeyedAnswer
	Moves     map[int64]int64 // by account
	Hours     map[HourKey]*Sales
	Windows   map[int64]Window // by account: the stake windows that changed, as they now stand
	// Played is what the batch adds to each buyer's totals (by account): the back office shows
	// a player's totals from their account, not from their games (issue 24: 10^6 games).
	Played map[int64]PlayerTotals
	// The wallet's outbox: the credits of the sales in wallet mode, and the rollbacks they hold
	// ahead for their players' next sales. Released holds the transaction ids of the rollbacks
	// held before their debits, which the sales delete.
	WalletCalls []WalletCall
	Released    []string
}

// Decide decides each sale in turn against the book, its units and ids taken from the store's
// stock. A sale gets its error and changes nothing when:
//
//   - its session has ended;
//   - its key is taken;
//   - its price is sold out;
//   - the buyer cannot afford it;
//   - its unit cannot be read;
//   - it goes past the buyer's weekly stake limit, or they have set none.
//
// The others get their game, and their rows. An error returned (a store that cannot say where a
// price's sales stand) means that none of the batch may be written.
func Decide(ctx context.Context, sales []*Sale, b *Book, stock Stock) (*Rows, error) {
	rows := &Rows{Moves: map[int64]int64{}, Hours: map[HourKey]*Sales{}, Played: map[int64]PlayerTotals{}}
	unread := map[int64]error{} // by price: the next unit's prize could not be read
	for _, s := range sales {
		r := &s.Request
		k := KeyRef{r.PlayerID, r.Key}
		if r.Session != nil && !b.Live[string(r.Session)] {
			s.Err = ErrSessionEnded
			continue
		}
		if r.Wallet != nil && r.Wallet.Rollback != "" && !b.Held[r.Wallet.Rollback] {
			s.Err = ErrDebitRolledBack
			continue
		}
		if b.Taken[k] {
			s.Err = ErrKeyTaken
			continue
		}
		c, err := stock.Cursor(r.Price)
		if err != nil {
			if fault.CodeOf(err) != fault.SoldOut {
				return nil, err
			}
			s.Err = err
			continue
		}
		st := b.Stakes[r.AccountID]
		if st == nil {
			st = &Staking{}
		}
		if r.Wallet == nil {
			if err := st.Limit.Allows(StakeWeekly, r.Price, st.Window.Sum(), s.Time); err != nil {
				s.Err = err
				continue
			}
		}
		if r.Wallet == nil && b.Balances[r.AccountID] < r.Price {
			s.Err = fault.Errorf(fault.InsufficientFunds, "not enough money in the account for a stake of %d cents", r.Price)
			continue
		}
		if unread[r.Price] != nil {
			s.Err = unread[r.Price]
			continue
		}
		g := &s.Game
		// Times are kept to the microsecond, as PostgreSQL keeps them: a game reads back as sold.
		// A sale is never dated before the player's previous one: requests queued at once may be
		// decided in another order. So a player's games are in the order of time by id, as their
		// stake window counts them.
		at := s.Time.UTC().Truncate(time.Microsecond)
		if at.Before(st.Window.Last) {
			at = st.Window.Last
		}
		*g = Game{PlayerID: r.PlayerID, Emission: c.Emission, Block: c.Block, BlockNumber: c.Number, Unit: c.Sold, Stake: r.Price,
			Mode: r.Mode, Color: r.Color, Status: r.Status, CreatedAt: at, UpdatedAt: s.Time.Unix()}
		u, err := r.Prizes.Unit(ctx, g.Emission, g.Block, g.Unit)
		if err != nil {
			// This unit cannot be read (or failed its check against the commitment): the sales at
			// this price fail, and it stays unsold; the others go on.
			s.Err, unread[r.Price] = err, err
			continue
		}
		g.Prize = u.Prize
		c.Sold++
		c.Prizes += g.Prize
		if g.Prize > 0 {
			c.Winners++
		}
		var debit int64
		if r.Wallet != nil {
			debit = stock.TransferID() // the deposit that stands for the debit, written first
		}
		g.ID, g.StakeTransfer = stock.NextIDs(g.Prize > 0)
		if r.GameID != 0 {
			g.ID = r.GameID
		}
		b.Taken[k] = true
		st.Window.Add(g.Stake, g.CreatedAt) // kept in wallet mode too: the books check it against the games
		st.Changed = true
		if r.Wallet != nil {
			// The wallet's money: the player's account takes the stake from the bank and gives the
			// prize back to it, so it is left as it was.
			g.BalanceAfter = r.Wallet.Balance + g.Prize
			rows.Moves[BankAccount] += g.Prize - g.Stake
			rows.Transfers = append(rows.Transfers, Transfer{ID: debit, From: BankAccount, To: r.AccountID,
				Amount: g.Stake, Kind: Deposit, CreatedAt: g.CreatedAt})
		} else {
			b.Balances[r.AccountID] += g.Prize - g.Stake
			g.BalanceAfter = b.Balances[r.AccountID]
			rows.Moves[r.AccountID] += g.Prize - g.Stake
		}
		rows.Moves[PrizeFundAccount] += g.Stake - g.Prize
		s.Answer = SoldAnswer(g.ID)
		rows.Played[r.AccountID] = rows.Played[r.AccountID].add(g)

		rows.Games, rows.Leaves = append(rows.Games, g), append(rows.Leaves, u.Leaf)
		rows.Transfers = append(rows.Transfers, Transfer{ID: g.StakeTransfer, From: r.AccountID, To: PrizeFundAccount,
			Amount: g.Stake, Kind: Stake, GameID: g.ID, CreatedAt: g.CreatedAt})
		if g.Prize > 0 {
			rows.Transfers = append(rows.Transfers, Transfer{ID: g.StakeTransfer + 1, From: PrizeFundAccount, To: r.AccountID,
				Amount: g.Prize, Kind: Prize, GameID: g.ID, CreatedAt: g.CreatedAt})
		}
		if r.Wallet != nil {
			if g.Prize > 0 {
				rows.Transfers = append(rows.Transfers, Transfer{ID: stock.TransferID(), From: r.AccountID, To: BankAccount,
					Amount: g.Prize, Kind: Withdrawal, CreatedAt: g.CreatedAt})
			}
			rows.WalletCalls = append(rows.WalletCalls, r.Wallet.Credit.CreditOf(g))
			if r.Wallet.Next != nil {
				rows.WalletCalls = append(rows.WalletCalls, *r.Wallet.Next)
			}
			if r.Wallet.Rollback != "" {
				rows.Released = append(rows.Released, r.Wallet.Rollback)
			}
		}
		if !r.Unkept {
			rows.Answers = append(rows.Answers, KeyedAnswer{KeyRef: k,
				KeptAnswer: KeptAnswer{RequestHash: r.RequestHash, Answer: s.Answer}, CreatedAt: s.Time.Unix()})
		}
		h := HourKey{Hour: Hour.Start(g.CreatedAt), Price: g.Stake}
		if rows.Hours[h] == nil {
			rows.Hours[h] = &Sales{Period: h.Hour, Price: h.Price}
		}
		rows.Hours[h].add(g)
	}
	for id, st := range b.Stakes {
		if st.Changed {
			if rows.Windows == nil {
				rows.Windows = map[int64]Window{}
			}
			rows.Windows[id] = st.Window
		}
	}
	return rows, nil
}
