package admin

import (
	"fmt"
	"html"
	"math"
	"net/http"
	"strings"
	"time"

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
	now := s.now().In(paris)
	starts := make([]time.Time, w.Periods)
	for i := range starts {
		back := w.Periods - 1 - i
		if w.By == lottery.Day {
			starts[i] = time.Date(now.Year(), now.Month(), now.Day()-back, 0, 0, 0, 0, paris)
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
	today := d.Now.In(paris)
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
	w.Write([]byte(drawSales(periods, target, win, langOf(r))))
}

func drawSales(periods []periodSales, target float64, win window, lang string) string {
	const (
		W, H             = 960.0, 400.0
		left, right      = 58.0, 24.0
		top1, bottom1    = 34.0, 238.0 // the return panel
		top2, bottom2    = 282.0, 356.0
		clip             = 2.0 // returns above 200 % are drawn clipped
		labelY           = 380.0
		purple, teal     = "#6d4aff", "#0f9d8a"
		amber, ink, grid = "#d99a15", "#1d2433", "#e6e8f0"
	)
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...); b.WriteByte('\n') }
	// t translates a text of the chart, the period's word in it ("per day", "each hour").
	t := func(text string) string { return esc(tr(lang, strings.ReplaceAll(text, "PERIOD", string(win.By)))) }
	f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif" role="img" aria-label="%s">`, W, H, t("Return to players and units sold per PERIOD"))
	f(`<style>text{fill:%s;font-size:12px}.m{fill:#5b6478}.h{font-size:13px;font-weight:600}</style>`, ink)
	f(`<rect width="%g" height="%g" fill="#fff"/>`, W, H)
	n := len(periods)
	slot := (W - left - right) / float64(n)
	x := func(i int) float64 { return left + slot*float64(i) + slot/2 }

	// The return panel: 0 to the highest value shown, at least 100 %.
	hi := math.Max(1, math.Min(target, clip))
	for _, p := range periods {
		for _, v := range []float64{p.RTP, p.Cum} {
			if !math.IsNaN(v) {
				hi = math.Max(hi, math.Min(v, clip))
			}
		}
	}
	hi = math.Ceil(hi*4) / 4
	y := func(v float64) float64 { return bottom1 - (bottom1-top1)*math.Min(v, hi)/hi }
	f(`<text x="%g" y="18" class="h">%s</text>`, left, t("Return to players per PERIOD"))
	for v := 0.0; v <= hi+1e-9; v += 0.25 {
		f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s"/>`, left, W-right, y(v), y(v), grid)
		f(`<text x="%g" y="%.1f" text-anchor="end" class="m">%d %%</text>`, left-8, y(v)+4, int(math.Round(v*100)))
	}
	bw := math.Max(2, slot*0.62)
	for i, p := range periods {
		if math.IsNaN(p.RTP) {
			continue
		}
		f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.35" rx="2"><title>%s</title></rect>`,
			x(i)-bw/2, y(p.RTP), bw, bottom1-y(p.RTP), purple, esc(fmt.Sprintf(tr(lang, "%s: %s return, %s staked, %s won"), p.Label, pctIn(lang, p.RTP, 1), money(lang, p.All.Stakes), money(lang, p.All.Prizes))))
		if p.RTP > hi {
			f(`<path d="M%.1f %.1f l5 8 h-10 z" fill="%s"/>`, x(i), y(hi)-2, purple)
		}
	}
	f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="6 5"/>`, left, W-right, y(target), y(target), amber)
	var pts []string
	for i, p := range periods {
		if !math.IsNaN(p.Cum) {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Cum)))
		}
	}
	if len(pts) > 0 {
		f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"/>`, strings.Join(pts, " "), teal)
		last := pts[len(pts)-1]
		var lx, ly float64
		fmt.Sscanf(last, "%g,%g", &lx, &ly)
		f(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>`, lx, ly, teal)
	}
	// The legend, on the title's line.
	lx := W - right
	for _, it := range []struct{ col, label string }{{purple, t("each PERIOD")}, {teal, t("cumulative")}, {amber, t("table") + " " + pctIn(lang, target, 0)}} {
		lx -= 8 + 7*float64(len([]rune(it.label)))
		f(`<rect x="%.1f" y="9" width="12" height="12" rx="3" fill="%s"/><text x="%.1f" y="19" class="m">%s</text>`, lx-18, it.col, lx, it.label)
		lx -= 30
	}

	// The units panel.
	var most int64
	for _, p := range periods {
		most = max(most, p.All.Units)
	}
	f(`<text x="%g" y="%g" class="h">%s</text>`, left, top2-12, t("Units sold per PERIOD"))
	f(`<text x="%g" y="%g" text-anchor="end" class="m">%s %s</text>`, W-right, top2-12, t("most"), number(lang, most))
	f(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`, left, W-right, bottom2, bottom2, grid)
	for i, p := range periods {
		if p.All.Units == 0 {
			continue
		}
		h := (bottom2 - top2) * float64(p.All.Units) / float64(most)
		f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#8a94ad" rx="2"><title>%s: %s %s</title></rect>`, x(i)-bw/2, bottom2-h, bw, h, p.Label, number(lang, p.All.Units), t("units"))
	}
	// Period labels, about eight of them.
	every := max(1, n/8)
	for i := n - 1; i >= 0; i -= every {
		// The last label ends at the picture's edge rather than past it.
		lx, anchor := x(i), "middle"
		if half := 3.5 * float64(len([]rune(periods[i].Label))); lx+half > W-2 {
			lx, anchor = W-2, "end"
		}
		f(`<text x="%.1f" y="%g" text-anchor="%s" class="m">%s</text>`, lx, labelY, anchor, periods[i].Label)
	}
	f(`</svg>`)
	return b.String()
}

// esc escapes a text for the SVG picture.
func esc(s string) string { return html.EscapeString(s) }
