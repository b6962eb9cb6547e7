package admin

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
)

// Today: the top of the back office's first page. The day's sales in Europe/Paris, each stake's
// return to players against its table and the statistical bound it should stay within, its
// largest prize (a big win is said), the
// blocks nearly sold out, the wallet's calls owed and disputed, the store's problems, the
// proposals waiting; and the alerts those raise, as docs/alerts.yml raises them for Prometheus.
// The page refreshes it every minute (admin.js).

// An alert's severities, as docs/alerts.yml labels them.
const (
	alertCritical = "critical"
	alertWarning  = "warning"
	alertInfo     = "info"
)

// The alerts' thresholds, as docs/alerts.yml has them.
const (
	driftSigmas    = 4               // the return to players strays beyond driftSigmas × σ × √n
	driftMinUnits  = 100             // and only past so many units sold today
	nearlySoldOut  = 20              // a block with less than 1/nearlySoldOut of its units left
	owedPiling     = 100             // calls owed to the wallet
	owedTooLong    = 5 * time.Minute // the oldest call owed
	todayRefreshMs = 60_000
)

// bigWin is the prize, in cents, from which a win is big: 1,000 €, docs/alerts.yml's
// StarColorBigWin. A variable for the tests, whose small tables have no such prize.
var bigWin = func() *atomic.Int64 {
	var v atomic.Int64
	v.Store(100_000)
	return &v
}()

type todayData struct {
	Day       time.Time // the day's start, Paris time
	All       lottery.Sales
	Lines     []todayLine
	NearOut   []lottery.BlockSales
	Outbox    lottery.OutboxState
	Problems  []string
	Proposals int // open, waiting for an approver
	Alerts    []todayAlert
	RefreshMs int
}

// todayLine is a stake's sales of the day, against its table.
type todayLine struct {
	lottery.Sales
	RTP, TableRTP float64
	// Expected is what the table would have paid for these units; Bound how far the prizes may
	// stray from it (driftSigmas standard deviations × √units); Beyond whether they did.
	Expected, Bound float64
	Beyond          bool
}

// todayAlert is an alert raised, in the reader's language, with its severity.
type todayAlert struct {
	Severity string // critical, warning or info
	Text     string
}

// tableSpread is a unit's mean prize and its standard deviation, over a block of the table.
func tableSpread(t *gamedef.Table) (mean, sd float64) {
	var units, sq float64
	for _, tier := range t.Tiers {
		units += float64(tier.Count)
		sq += float64(tier.Count) * float64(tier.Amount) * float64(tier.Amount)
	}
	if units == 0 {
		return 0, 0
	}
	mean = float64(t.Payout()) / units
	return mean, math.Sqrt(math.Max(0, sq/units-mean*mean))
}

// today reads the day's figures and raises its alerts, in lang.
func (s *Server) today(ctx context.Context, lang string) (todayData, error) {
	now := s.now()
	p := now.In(Paris)
	d := todayData{Day: time.Date(p.Year(), p.Month(), p.Day(), 0, 0, 0, 0, Paris), RefreshMs: todayRefreshMs}
	say := func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) }
	raise := func(severity, text string) { d.Alerts = append(d.Alerts, todayAlert{Severity: severity, Text: text}) }
	sales, err := s.db.SalesBetween(ctx, lottery.Hour, d.Day.UTC(), now.Add(time.Hour))
	if err != nil {
		return d, err
	}
	byPrice := map[int64]*todayLine{}
	for _, sl := range sales {
		l := byPrice[sl.Price]
		if l == nil {
			l = &todayLine{Sales: lottery.Sales{Price: sl.Price}}
			byPrice[sl.Price] = l
		}
		l.Add(sl)
		d.All.Add(sl)
	}
	for _, t := range s.def.Tables {
		l := byPrice[t.Price]
		if l == nil {
			continue
		}
		mean, sd := tableSpread(&t)
		l.RTP, l.TableRTP = ratio(l.Prizes, l.Stakes), mean/float64(t.Price)
		l.Expected = mean * float64(l.Units)
		l.Bound = driftSigmas * sd * math.Sqrt(float64(l.Units))
		l.Beyond = l.Units >= driftMinUnits && math.Abs(float64(l.Prizes)-l.Expected) > l.Bound
		if l.Beyond {
			raise(alertCritical, say("At %s, today's prizes (%s) stray from the table's %s by more than %s: check the emissions on sale at this price.",
				money(lang, t.Price), money(lang, l.Prizes), money(lang, int64(math.Round(l.Expected))), money(lang, int64(math.Round(l.Bound)))))
		}
		d.Lines = append(d.Lines, *l)
		if l.Top >= bigWin.Load() {
			raise(alertInfo, say("A prize of %s was sold today at %s: the largest of the day at this price.", money(lang, l.Top), money(lang, t.Price)))
		}
	}
	open, err := s.db.OpenBlockSales(ctx)
	if err != nil {
		return d, err
	}
	for _, b := range open {
		if (b.Units-b.Sold)*nearlySoldOut < b.Units {
			d.NearOut = append(d.NearOut, b)
			raise(alertInfo, say("Block %d of %s has %s units left.", b.Block, b.Emission, number(lang, int64(b.Units-b.Sold))))
		}
	}
	if d.Outbox, err = s.db.OutboxState(ctx, now); err != nil {
		return d, err
	}
	if d.Outbox.Pending > owedPiling || !d.Outbox.Oldest.IsZero() && now.Sub(d.Outbox.Oldest) > owedTooLong {
		raise(alertWarning, say("%s calls owed to the operator's wallet wait, the oldest since %s: check that the wallet answers.",
			number(lang, int64(d.Outbox.Pending)), span(lang, now.Sub(d.Outbox.Oldest).Round(time.Second))))
	}
	if d.Outbox.Disputed > 0 {
		raise(alertWarning, say("%s calls refused by the wallet are to settle by hand.", number(lang, int64(d.Outbox.Disputed))))
	}
	if s.cfg.Problems != nil {
		d.Problems = s.cfg.Problems()
	}
	for _, pr := range d.Problems {
		raise(alertCritical, say("The store: %s", pr))
	}
	props, err := s.db.Proposals(ctx, lottery.ProposalOpen, now, 1000)
	if err != nil {
		return d, err
	}
	if d.Proposals = len(props); d.Proposals > 0 {
		raise(alertInfo, fmt.Sprintf(pluralOf(lang, int64(d.Proposals), "%s proposal waits for an approver.", "%s proposals wait for an approver."), number(lang, int64(d.Proposals))))
	}
	return d, nil
}
