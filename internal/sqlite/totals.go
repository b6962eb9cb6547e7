package sqlite

import (
	"fmt"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The totals the sales keep for the back office (migration 0004), so that its pages never sum
// every game: each block's prizes and winners sold (added by writeCursor, in the update of the
// block's sold count that a batch makes anyway), and each hour's sales at each price, here.
// `ledger check` proves both equal to the games.

// hourLayout formats a UTC time as the hours of sales_hourly: the hour of the games' created_at,
// as RFC 3339 text cut after the hour.
const hourLayout = "2006-01-02T15"

// storedTime is a time as the store keeps it (sqlstore.TextTime: RFC 3339 in UTC, to the
// nanosecond, at a fixed width so that times sort as text).
func storedTime(t time.Time) string { return sqlstore.TextTime(t) }

// saleTime is a time of the games and the transfers as the store keeps it
// (sqlstore.Dialect.SaleTime: unix nanoseconds).
func saleTime(t time.Time) any { return sqlstore.SQLite.SaleTime(t) }

// addHours adds a batch's sales to sales_hourly: usually one line, for the current hour.
func (t *tx) addHours(hours map[lottery.HourKey]*lottery.Sales) error {
	rows := make([]any, 0, 7*len(hours))
	for k, s := range hours {
		rows = append(rows, k.Hour.UTC().Format(hourLayout), k.Price, s.Units, s.Stakes, s.Prizes, s.Winners, s.Top)
	}
	err := t.chunks(`INSERT INTO sales_hourly (hour, price, units, stakes, prizes, winners, top_prize) VALUES `,
		` ON CONFLICT (hour, price) DO UPDATE SET units = units + excluded.units, stakes = stakes + excluded.stakes,
		  prizes = prizes + excluded.prizes, winners = winners + excluded.winners, top_prize = max(top_prize, excluded.top_prize)`, 7, rows,
		func(query string, args []any) error {
			_, err := t.exec(query, args...)
			return err
		})
	if err != nil {
		return fmt.Errorf("write hourly sales: %w", err)
	}
	return nil
}
