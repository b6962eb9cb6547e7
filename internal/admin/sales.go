package admin

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"starcolor/internal/chart"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
)

// window is the span of the sales page: hours over two days, or days over a month, of Paris.
type window struct {
	By      lottery.Period
	Periods int
}

func windowOf(r *http.Request) window {
	if r.URL.Query().Get("by") == "day" {
		return window{By: lottery.Day, Periods: 30}
	}
	return window{By: lottery.Hour, Periods: 48}
}

// periodSales are the sales of one period, at each price and in all.
type periodSales struct {
	Start   time.Time
	Label   string
	ByPrice map[int64]lottery.Sales
	All     lottery.Sales
	RTP     float64 // prizes / stakes of the period
	Cum     float64 // prizes / stakes from the window's start to the period's end
}

// priceLine is a price's figures against its prize table.
type priceLine struct {
	lottery.Sales
	RTP, HitRate           float64
	TableRTP, TableHitRate float64
}

type liabilityLine struct {
	lottery.BlockSales
	TablePrizes   int64
	Liability     int64 // prizes still to be won in the block
	WinnersLeft   int
	RemainingUnit int
}

type salesData struct {
	Today      todayData
	W          window
	Prices     []int64
	Totals     []priceLine
	All        priceLine
	Periods    []periodSales // newest first, for the table
	Open       []liabilityLine
	Liability  int64
	UnsoldSale int64 // what the remaining units of the open blocks will take in stakes
	TableRTP   float64
	Now        time.Time
	// The sales report's default dates (salescsv.go): the last 30 days.
	ReportFrom, ReportTo string
	// The operator's wallet (wallet mode): the credits and rollbacks not yet acknowledged, how
	// long the oldest has waited, the disputed ones; shown when there are any.
	Outbox    lottery.OutboxState
	OutboxAge time.Duration
	// The calls themselves: every disputed one (up to maxDisputed), and the pending ones that
	// have waited longest.
	Disputed, Pending []outboxRow
}

// outboxRow is a call to the wallet as the sales page lists it, with how long it has been kept.
type outboxRow struct {
	lottery.OutboxCall
	Age time.Duration
}

// How many calls the sales page lists: the disputed ones are settled by hand, one by one, and
// should be few; the pending ones are shown only to see what is stuck.
const (
	maxDisputed  = 50
	pendingShown = 10
)

// tableFigures are a table's return to players and hit rate over a block.
func tableFigures(t *gamedef.Table) (rtp, hit float64) {
	units := 0
	for _, tr := range t.Tiers {
		units += tr.Count
	}
	return ratio(t.Payout(), t.Price*int64(units)), ratio(int64(t.Winners()), int64(units))
}

// periods are the window's sales, period by period, in Paris hours or days: the store keeps
// UTC hours, which parisPeriods gathers (a Paris day starts at 22:00 or 23:00 UTC).
func (s *Server) periods(r *http.Request, w window) ([]periodSales, error) {
	now := s.now().In(Paris)
	starts := make([]time.Time, w.Periods)
	for i := range starts {
		back := w.Periods - 1 - i
		if w.By == lottery.Day {
			starts[i] = time.Date(now.Year(), now.Month(), now.Day()-back, 0, 0, 0, 0, Paris)
		} else {
			starts[i] = now.Truncate(time.Hour).Add(-time.Duration(back) * time.Hour)
		}
	}
	hours, err := s.db.SalesOver(r.Context(), lottery.Hour, starts[0])
	if err != nil {
		return nil, err
	}
	out := make([]periodSales, w.Periods)
	index := map[int64]int{}
	for i, t := range starts {
		label := hourLabel(langOf(r), t)
		if w.By == lottery.Day {
			label = dayLabel(langOf(r), t)
		}
		out[i] = periodSales{Start: t, Label: label, ByPrice: map[int64]lottery.Sales{}}
		index[t.Unix()] = i
	}
	for _, row := range parisPeriods(hours, w.By) {
		i, ok := index[row.Period.Unix()]
		if !ok {
			continue
		}
		p := &out[i]
		p.ByPrice[row.Price] = row
		p.All.Add(row)
	}
	var stakes, prizes int64
	for i := range out {
		p := &out[i]
		stakes += p.All.Stakes
		prizes += p.All.Prizes
		p.RTP = math.NaN()
		if p.All.Stakes > 0 {
			p.RTP = ratio(p.All.Prizes, p.All.Stakes)
		}
		p.Cum = math.NaN()
		if stakes > 0 {
			p.Cum = ratio(prizes, stakes)
		}
	}
	return out, nil
}

func (s *Server) salesPage(w http.ResponseWriter, r *http.Request) {
	win := windowOf(r)
	d := salesData{W: win, Now: s.now()}
	var err error
	if d.Today, err = s.today(r.Context(), langOf(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	today := d.Now.In(Paris)
	d.ReportFrom, d.ReportTo = today.AddDate(0, 0, -29).Format(time.DateOnly), today.Format(time.DateOnly)
	for _, t := range s.def.Tables {
		d.Prices = append(d.Prices, t.Price)
	}
	d.TableRTP, _ = tableFigures(&s.def.Tables[0])
	if o, err := s.db.OutboxState(r.Context(), s.now()); err == nil {
		d.Outbox = o
		if !o.Oldest.IsZero() {
			d.OutboxAge = d.Now.Sub(o.Oldest).Round(time.Second)
		}
	} else {
		s.fail(w, r, err)
		return
	}
	for _, l := range []struct {
		status string
		n, max int
		rows   *[]outboxRow
	}{{lottery.CallDisputed, d.Outbox.Disputed, maxDisputed, &d.Disputed}, {lottery.CallPending, d.Outbox.Pending, pendingShown, &d.Pending}} {
		if l.n == 0 {
			continue
		}
		calls, err := s.db.WalletCalls(r.Context(), l.status, l.max)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, c := range calls {
			*l.rows = append(*l.rows, outboxRow{OutboxCall: c, Age: d.Now.Sub(c.CreatedAt).Round(time.Second)})
		}
	}
	totals, err := s.db.SalesTotals(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, t := range totals {
		l := priceLine{Sales: t, RTP: ratio(t.Prizes, t.Stakes), HitRate: ratio(t.Winners, t.Units)}
		if tab, err := s.def.Table(t.Price); err == nil {
			l.TableRTP, l.TableHitRate = tableFigures(tab)
		}
		d.Totals = append(d.Totals, l)
		d.All.Add(t)
	}
	d.All.RTP, d.All.HitRate = ratio(d.All.Prizes, d.All.Stakes), ratio(d.All.Winners, d.All.Units)
	periods, err := s.periods(r, win)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for i := len(periods) - 1; i >= 0; i-- {
		if periods[i].All.Units > 0 {
			d.Periods = append(d.Periods, periods[i])
		}
	}
	open, err := s.db.OpenBlockSales(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	es, err := s.db.Emissions(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tables := map[string]*gamedef.Table{}
	for _, e := range es {
		tables[e.ID] = &e.Table
	}
	for _, b := range open {
		t := tables[b.Emission]
		if t == nil {
			continue
		}
		l := liabilityLine{BlockSales: b, TablePrizes: t.Payout(), WinnersLeft: t.Winners() - b.Winners, RemainingUnit: b.Units - b.Sold}
		l.Liability = l.TablePrizes - b.Prizes
		d.Liability += l.Liability
		d.UnsoldSale += int64(l.RemainingUnit) * b.Price
		d.Open = append(d.Open, l)
	}
	s.render(w, r, http.StatusOK, "sales", s.t(r, "Sales"), d)
}

// salesChart draws the return to players of each period against the table's, and the units
// sold, as one SVG picture.
func (s *Server) salesChart(w http.ResponseWriter, r *http.Request) {
	win := windowOf(r)
	periods, err := s.periods(r, win)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	target, _ := tableFigures(&s.def.Tables[0])
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	chart.WriteSales(w, salesPicture(periods, target, win, langOf(r)))
}

// salesPicture is the sales picture of a window, its texts and figures in a language.
func salesPicture(periods []periodSales, target float64, win window, lang string) *chart.Sales {
	// t translates a text of the picture, the period's word in it ("per day", "each hour").
	t := func(text string) string { return tr(lang, strings.ReplaceAll(text, "PERIOD", string(win.By))) }
	c := &chart.Sales{
		Target:      target,
		Name:        t("Return to players and units sold per PERIOD"),
		ReturnTitle: t("Return to players per PERIOD"),
		UnitsTitle:  t("Units sold per PERIOD"),
		Each:        t("each PERIOD"),
		Cumulative:  t("cumulative"),
		Table:       t("table") + " " + pctIn(lang, target, 0),
		Most:        func(units int64) string { return t("most") + " " + number(lang, units) },
	}
	for _, p := range periods {
		c.Periods = append(c.Periods, chart.SalesPeriod{
			Label: p.Label, RTP: p.RTP, Cum: p.Cum, Units: p.All.Units,
			ReturnTip: fmt.Sprintf(tr(lang, "%s: %s return, %s staked, %s won"), p.Label, pctIn(lang, p.RTP, 1), money(lang, p.All.Stakes), money(lang, p.All.Prizes)),
			UnitsTip:  p.Label + ": " + number(lang, p.All.Units) + " " + t("units"),
		})
	}
	return c
}
