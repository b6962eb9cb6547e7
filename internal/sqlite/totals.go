package sqlite

import "fmt"

// The totals the sales keep for the back office (migration 0004), so that its pages never sum
// every game: each block's prizes and winners sold (added by writeCursor, in the update of the
// block's sold count that a batch makes anyway), and each hour's sales at each price, here.
// `ledger check` proves both equal to the games.

// hourTotals are a batch's sales by hour and price, to add to the totals the back office reads
// (sales_hourly, migration 0004).
type hourTotals map[hourKey]*Sales

type hourKey struct {
	hour  string // as stored: the first 13 characters of created_at
	price int64
}

// hourLayout formats a UTC time as the hours of sales_hourly: created_at's first 13 characters.
const hourLayout = "2006-01-02T15"

// add counts a game stored with the given created_at (RFC 3339, UTC) in its hour.
func (h hourTotals) add(created string, g *Game) {
	k := hourKey{created[:len(hourLayout)], g.Stake}
	s := h[k]
	if s == nil {
		s = &Sales{}
		h[k] = s
	}
	s.Units++
	s.Stakes += g.Stake
	s.Prizes += g.Prize
	if g.Prize > 0 {
		s.Winners++
	}
}

// write adds the batch's lines to sales_hourly: usually one, for the current hour.
func (h hourTotals) write(tx *Tx) error {
	var rows []any
	for k, s := range h {
		rows = append(rows, k.hour, k.price, s.Units, s.Stakes, s.Prizes, s.Winners)
	}
	err := tx.chunks(`INSERT INTO sales_hourly (hour, price, units, stakes, prizes, winners) VALUES `,
		` ON CONFLICT (hour, price) DO UPDATE SET units = units + excluded.units, stakes = stakes + excluded.stakes,
		  prizes = prizes + excluded.prizes, winners = winners + excluded.winners`, 6, rows,
		func(query string, args []any) error {
			_, err := tx.exec(query, args...)
			return err
		})
	if err != nil {
		return fmt.Errorf("write hourly sales: %w", err)
	}
	return nil
}
