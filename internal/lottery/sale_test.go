package lottery

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"starcolor/internal/fault"
)

// book is a Book over one open block per price, of units whose prizes are prizes[unit % len],
// and its Stock.
type book struct {
	Book
	units                  int
	cursors                map[int64]*Cursor
	nextGame, nextTransfer int64
}

func newBook(units int, balances map[int64]int64) *book {
	b := &book{units: units, cursors: map[int64]*Cursor{}, nextGame: 1, nextTransfer: 1}
	stakes := map[int64]*Staking{}
	for id := range balances {
		stakes[id] = &Staking{Limit: Limit{Set: true, Amount: MaxLimit}}
	}
	b.Book = Book{Balances: balances, Taken: map[KeyRef]bool{}, Live: map[string]bool{"live": true}, Stakes: stakes}
	return b
}

func (b *book) Cursor(price int64) (*Cursor, error) {
	c := b.cursors[price]
	if c == nil {
		c = &Cursor{Emission: fmt.Sprintf("E%d", price), Units: b.units}
		b.cursors[price] = c
	}
	if !c.Open() {
		return nil, fault.Errorf(fault.SoldOut, "sold out")
	}
	return c, nil
}

func (b *book) NextIDs(won bool) (int64, int64) {
	g, s := b.nextGame, b.nextTransfer
	b.nextGame++
	b.nextTransfer += 1 + map[bool]int64{true: 1}[won]
	return g, s
}

func (b *book) TransferID() int64 {
	b.nextTransfer++
	return b.nextTransfer - 1
}

// sale is a sale by account (its player's id is the account's) at a price, whose unit u wins
// prizes[u % len(prizes)].
func sale(account, price int64, key string, prizes ...int64) *Sale {
	return &Sale{Time: time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC), Request: SaleRequest{
		PlayerID: account, AccountID: account, Price: price, Mode: Auto, Status: Finished, Key: key,
		Prizes: prizeCycle(prizes)}}
}

// prizeCycle is units whose unit u wins prizes[u % len(prizes)], or nothing, and whose audit
// line's leaf is {u, 'u'} (lottery.Prizes).
type prizeCycle []int64

func (p prizeCycle) Unit(_ context.Context, _ string, _, unit int) (SoldUnit, error) {
	u := SoldUnit{Leaf: [32]byte{byte(unit), 'u'}} // a leaf of its own for each unit
	if len(p) > 0 {
		u.Prize = p[unit%len(p)]
	}
	return u, nil
}

// brokenUnits fails every read of a prize with err, and counts the reads.
type brokenUnits struct {
	err   error
	reads int
}

func (b *brokenUnits) Unit(context.Context, string, int, int) (SoldUnit, error) {
	b.reads++
	return SoldUnit{}, b.err
}

// A player runs out of money exactly when the stakes exceed what they hold, the prizes of the
// batch's earlier sales included; each sale gets the next unit, its transfers, its answer.
func TestDecideBalances(t *testing.T) {
	b := newBook(1000, map[int64]int64{10: 250, 11: 250})
	sales := []*Sale{
		sale(10, 100, "a"), sale(10, 100, "b"), sale(10, 100, "c"), // no prizes: the third is refused
		sale(11, 100, "a", 0, 0, 200), sale(11, 100, "b"), sale(11, 100, "c"), // its unit, 2, wins 2 €: all three sell
	}
	rows, err := Decide(context.Background(), sales, &b.Book, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{nil, nil, insufficient, nil, nil, nil} {
		if got := sales[i].Err; !sameErr(got, want) {
			t.Errorf("sale %d: %v, want %v", i, got, want)
		}
	}
	if sales[5].Game.BalanceAfter != 150 || sales[3].Game.Prize != 200 || sales[3].Game.Unit != 2 {
		t.Fatalf("player 11's games: %+v, %+v", sales[3].Game, sales[5].Game)
	}
	if b.Balances[10] != 50 || sales[1].Game.BalanceAfter != 50 || sales[1].Game.Unit != 1 {
		t.Fatalf("player 10: balance %d, second game %+v", b.Balances[10], sales[1].Game)
	}
	if len(rows.Games) != 5 || rows.Moves[PrizeFundAccount] != -(rows.Moves[10]+rows.Moves[11]) {
		t.Fatalf("rows: %d games, moves %v", len(rows.Games), rows.Moves)
	}
	for i, g := range rows.Games {
		if g.Unit != i || g.ID != int64(i+1) {
			t.Fatalf("game %d: unit %d, id %d", i, g.Unit, g.ID)
		}
		if len(rows.Leaves) != len(rows.Games) || rows.Leaves[i] != [32]byte{byte(g.Unit), 'u'} {
			t.Fatalf("game %d: the leaves of the units sold %x, want one a game, in order", i, rows.Leaves)
		}
	}
	if c := b.cursors[100]; c.Sold != 5 {
		t.Fatalf("the cursor: %+v", c)
	}
	h := rows.Hours[HourKey{Hour: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Price: 100}]
	if h == nil || h.Units != 5 || h.Stakes != 500 {
		t.Fatalf("the hour's sales: %+v", rows.Hours)
	}
	if string(sales[0].Answer.Body) != "game:1" || rows.Answers[0].KeyRef != (KeyRef{10, "a"}) {
		t.Fatalf("the answer kept: %+v %+v", sales[0].Answer, rows.Answers[0])
	}
}

var insufficient = fault.Errorf(fault.InsufficientFunds, "")

// sameErr compares errors by their fault code, or as sentinels.
func sameErr(got, want error) bool {
	if want == nil || got == nil {
		return got == want
	}
	var f *fault.Error
	if errors.As(want, &f) {
		return fault.CodeOf(got) == f.Code
	}
	return errors.Is(got, want)
}

// A prize won earlier in the batch pays for a later stake; its transfer follows the stake's.
func TestDecidePrizePays(t *testing.T) {
	b := newBook(1000, map[int64]int64{7: 100})
	sales := []*Sale{sale(7, 100, "a", 300), sale(7, 100, "b", 300)}
	rows, err := Decide(context.Background(), sales, &b.Book, b)
	if err != nil || sales[1].Err != nil {
		t.Fatalf("%v, %v", err, sales[1].Err)
	}
	if b.Balances[7] != 500 || len(rows.Transfers) != 4 {
		t.Fatalf("balance %d, transfers %+v", b.Balances[7], rows.Transfers)
	}
	st, pr := rows.Transfers[0], rows.Transfers[1]
	if st.Kind != Stake || pr.Kind != Prize || pr.ID != st.ID+1 || st.GameID != 1 || pr.From != PrizeFundAccount || pr.To != 7 {
		t.Fatalf("transfers %+v %+v", st, pr)
	}
	if rows.Games[1].StakeTransfer != 3 {
		t.Fatalf("the second game's stake transfer: %d", rows.Games[1].StakeTransfer)
	}
}

// A key already answered, or used twice in the batch, sells once; an ended session sells
// nothing; a price sold out refuses its sales while the others sell.
func TestDecideRefusals(t *testing.T) {
	b := newBook(2, map[int64]int64{1: 10_000})
	b.Taken[KeyRef{1, "old"}] = true
	s := []*Sale{sale(1, 100, "old"), sale(1, 100, "k"), sale(1, 100, "k"), sale(1, 200, "x"), sale(1, 100, "y"), sale(1, 100, "z")}
	s[3].Request.Session = []byte("gone")
	s[4].Request.Session = []byte("live")
	if _, err := Decide(context.Background(), s, &b.Book, b); err != nil {
		t.Fatal(err)
	}
	want := []error{ErrKeyTaken, nil, ErrKeyTaken, ErrSessionEnded, nil, fault.Errorf(fault.SoldOut, "")}
	for i := range s {
		if !sameErr(s[i].Err, want[i]) {
			t.Errorf("sale %d: %v, want %v", i, s[i].Err, want[i])
		}
	}
}

// A unit whose prize cannot be read is not sold: the sales at its price fail with its error,
// without reading it again, and the other prices sell.
func TestDecideUnreadableUnit(t *testing.T) {
	b := newBook(1000, map[int64]int64{1: 10_000})
	broken := errors.New("broken page")
	units := &brokenUnits{err: broken}
	bad := func(price int64, key string) *Sale {
		s := sale(1, price, key)
		s.Request.Prizes = units
		return s
	}
	s := []*Sale{bad(200, "a"), sale(1, 100, "b"), bad(200, "c")}
	rows, err := Decide(context.Background(), s, &b.Book, b)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(s[0].Err, broken) || s[1].Err != nil || !errors.Is(s[2].Err, broken) || units.reads != 1 {
		t.Fatalf("errors %v %v %v, reads %d", s[0].Err, s[1].Err, s[2].Err, units.reads)
	}
	if b.cursors[200].Sold != 0 || len(rows.Games) != 1 {
		t.Fatalf("the unreadable unit moved the cursor: %+v", b.cursors[200])
	}
}

// Whatever the batch, money is neither made nor lost: the balance changes and the transfers sum
// to nothing, no balance goes below zero, each price's units are sold in order from the first,
// and a game's balance after is its player's balance after its sale.
func TestDecideProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 30))
	for trial := range 300 {
		balances := map[int64]int64{}
		for a := int64(3); a < 3+1+int64(rng.IntN(6)); a++ {
			balances[a] = int64(rng.IntN(800))
		}
		start := map[int64]int64{}
		for a, v := range balances {
			start[a] = v
		}
		b := newBook(1+rng.IntN(30), balances)
		var s []*Sale
		for range rng.IntN(60) {
			a := 3 + int64(rng.IntN(len(balances)))
			s = append(s, sale(a, int64(100*(1+rng.IntN(3))), fmt.Sprint(rng.IntN(20)), int64(rng.IntN(4))*100, 0, 0))
		}
		rows, err := Decide(context.Background(), s, &b.Book, b)
		if err != nil {
			t.Fatal(err)
		}
		var moved int64
		for a, d := range rows.Moves {
			moved += d
			if a != PrizeFundAccount && start[a]+d != balances[a] {
				t.Fatalf("trial %d: account %d moved %d from %d to %d", trial, a, d, start[a], balances[a])
			}
		}
		flows := map[int64]int64{}
		for _, tr := range rows.Transfers {
			flows[tr.From] -= tr.Amount
			flows[tr.To] += tr.Amount
		}
		for a, d := range rows.Moves {
			if flows[a] != d {
				t.Fatalf("trial %d: account %d moved %d, its transfers %d", trial, a, d, flows[a])
			}
		}
		if moved != 0 {
			t.Fatalf("trial %d: the moves sum to %d", trial, moved)
		}
		next := map[int64]int{}
		after := map[int64]int64{}
		for a, v := range start {
			after[a] = v
		}
		for _, x := range s {
			if x.Err != nil {
				continue
			}
			g := x.Game
			after[g.PlayerID] += g.Prize - g.Stake
			if after[g.PlayerID] < 0 || g.BalanceAfter != after[g.PlayerID] || g.Unit != next[g.Stake] {
				t.Fatalf("trial %d: game %+v (balance %d, next unit %d)", trial, g, after[g.PlayerID], next[g.Stake])
			}
			next[g.Stake]++
		}
	}
}

// The weekly stake limit within a batch: sales pass up to the limit exactly, counting the week's
// earlier stakes and the batch's, and not a cent past; a buyer without a limit buys nothing; the
// windows of those who bought come out as they stand.
func TestDecideStakeLimit(t *testing.T) {
	b := newBook(1000, map[int64]int64{1: 10_000, 2: 10_000, 3: 10_000})
	b.Stakes[1] = &Staking{Limit: Limit{Set: true, Amount: 500}, Window: Window{Total: 900, Expired: 600, Next: t0}} // 300 staked this week
	delete(b.Stakes, 3)
	sales := []*Sale{sale(1, 100, "a"), sale(2, 100, "a"), sale(1, 100, "b"), sale(1, 100, "c"), sale(3, 100, "a"), sale(1, 50, "d")}
	rows, err := Decide(context.Background(), sales, &b.Book, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []fault.Code{"", "", "", fault.LimitReached, fault.LimitsRequired, fault.LimitReached} {
		if got := sales[i].Err; (want == "" && got != nil) || (want != "" && !fault.Is(got, want)) {
			t.Errorf("sale %d: %v, want %q", i, got, want)
		}
	}
	if w := rows.Windows[1]; w.Sum() != 500 || w.Total != 1100 {
		t.Errorf("player 1's window: %+v", w)
	}
	if w := rows.Windows[2]; w.Sum() != 100 || !w.Next.Equal(sales[1].Game.CreatedAt) {
		t.Errorf("player 2's window: %+v", w)
	}
	if _, ok := rows.Windows[3]; ok || b.Balances[3] != 10_000 {
		t.Errorf("player 3 without a limit: %v, balance %d", rows.Windows[3], b.Balances[3])
	}
	// A raise whose 48 hours have passed holds.
	b = newBook(1000, map[int64]int64{1: 10_000})
	b.Stakes[1].Limit = Limit{Set: true, Amount: 0, Pending: &Pending{Amount: 100, EffectiveAt: sales[0].Time}}
	s := sale(1, 100, "a")
	if _, err := Decide(context.Background(), []*Sale{s}, &b.Book, b); err != nil || s.Err != nil {
		t.Errorf("a raise in force: %v %v", err, s.Err)
	}
}
