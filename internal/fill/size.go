package fill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"starcolor/internal/lottery"
)

// Where a database's bytes go, a game at a time: what the growth measurements of
// docs/PERFORMANCE.md report at each size (starcolor-loadtest size).

// Sizer is a store that tells the bytes of its tables and indexes (both stores do).
type Sizer interface {
	TableSizes(ctx context.Context) ([]lottery.TableSize, error)
	SalesTotals(ctx context.Context) ([]lottery.Sales, error)
}

// Share is what a part of the database holds.
type Share string

// The parts: what a sale keeps beyond 48 hours, the journal, the emissions' units, the rest.
const (
	Sales   Share = "sales"
	Journal Share = "journal"
	Units   Share = "units"
	Other   Share = "other"
)

// shareOf is the part a table's bytes count in.
func shareOf(table string) Share {
	switch table {
	case "games", "transfers", "sales_hourly", "idempotency", "accounts":
		return Sales
	case "journal", "journal_tiles", "journal_accounts", "journal_checkpoints", "journal_queue", "journal_state":
		return Journal
	case "unit_pages", "block_trees", "blocks", "emissions":
		return Units
	}
	return Other
}

// Report writes where the bytes of a store go: by table and index, then by part, each with its
// bytes a game.
func Report(ctx context.Context, s Sizer, w io.Writer) error {
	sizes, err := s.TableSizes(ctx)
	if err != nil {
		return err
	}
	totals, err := s.SalesTotals(ctx)
	if err != nil {
		return err
	}
	var games int64
	for _, t := range totals {
		games += t.Units
	}
	if games == 0 {
		return errors.New("no games sold: nothing to divide by")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%d games\t\t\t\t\n", games)
	fmt.Fprintf(tw, "table or index\tof\tpart\tbytes\tbytes a game\t\n")
	parts := map[Share]int64{}
	var all int64
	for _, t := range sizes {
		part := shareOf(t.Table)
		parts[part] += t.Bytes
		all += t.Bytes
		if t.Bytes*20 >= games { // 0.05 bytes a game or more
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t\n", t.Name, t.Table, part, t.Bytes, float64(t.Bytes)/float64(games))
		}
	}
	for _, p := range []Share{Sales, Journal, Units, Other} {
		fmt.Fprintf(tw, "%s\t\t\t%d\t%.1f\t\n", p, parts[p], float64(parts[p])/float64(games))
	}
	fmt.Fprintf(tw, "all\t\t\t%d\t%.1f\t\n", all, float64(all)/float64(games))
	return tw.Flush()
}
