package lottery

import "time"

// What the sales add up to, for the back office: the totals every batch of sales keeps (by block,
// and by hour and price), so that its pages never sum every game. `ledger check` proves both
// equal to the games.

// Period is how sales are grouped in time.
type Period string

// The periods of a sales report.
const (
	Hour Period = "hour"
	Day  Period = "day"
)

// Start is the start of the period that holds t, in UTC.
func (p Period) Start(t time.Time) time.Time {
	t = t.UTC()
	if p == Day {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// Sales are the games sold at one price in one period (or ever, for totals).
type Sales struct {
	Period  time.Time // the period's start, UTC; zero for totals
	Price   int64     // cents
	Units   int64     // games sold
	Stakes  int64     // cents
	Prizes  int64     // cents
	Winners int64     // games with a prize
	Top     int64     // cents: the largest prize sold
}

// Add adds another's games, stakes, prizes and winners to s (its period and price stay), and
// keeps the larger top prize.
func (s *Sales) Add(o Sales) {
	s.Units += o.Units
	s.Stakes += o.Stakes
	s.Prizes += o.Prizes
	s.Winners += o.Winners
	s.Top = max(s.Top, o.Top)
}

// add counts one game.
func (s *Sales) add(g *Game) {
	s.Units++
	s.Stakes += g.Stake
	s.Prizes += g.Prize
	if g.Prize > 0 {
		s.Winners++
	}
	s.Top = max(s.Top, g.Prize)
}

// HourKey is an hour of sales at a price.
type HourKey struct {
	Hour  time.Time // UTC, on the hour
	Price int64
}

// BlockSales is what has been sold of one block: the units and the prizes they held.
type BlockSales struct {
	Emission string
	Block    int
	Price    int64
	Units    int
	Sold     int
	Prizes   int64 // cents, of the units sold
	Winners  int   // units sold with a prize
}

// WriteStats tells what a store's writer has done: the batches it committed, the operations they
// held, and the time it spent running their statements and committing them (the rest, it waited
// for work).
type WriteStats struct {
	Batches, Ops        int64
	Running, Committing time.Duration
}
