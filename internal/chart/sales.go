package chart

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Sales is what the back office's sales picture shows: the return to players and the units sold
// in each period of a window (hours or days), against the prize table's return. Its texts come
// already in the reader's language, figures included: the back office writes them its own way.
type Sales struct {
	Periods []SalesPeriod // oldest first
	Target  float64       // the prize table's return to players

	Name        string // the whole picture's, for screen readers
	ReturnTitle string // the return panel's title
	UnitsTitle  string // the units panel's title
	Each        string // the legend of a period's return
	Cumulative  string // the legend of the return since the window's start
	Table       string // the legend of the table's return, its figure included
	// Most labels the units panel's scale: the units of the busiest period, in words.
	Most func(units int64) string
}

// SalesPeriod is one period of the window.
type SalesPeriod struct {
	Label string
	RTP   float64 // prizes ÷ stakes in the period; NaN when nothing was staked
	Cum   float64 // prizes ÷ stakes from the window's start to the period's end; NaN before any stake
	Units int64
	// What a pointer over the period's bars shows.
	ReturnTip, UnitsTip string
}

// WriteSales draws the sales picture: 960 × 400 px, the return panel above the units panel.
func WriteSales(w io.Writer, s *Sales) error {
	const (
		W, H          = 960.0, 400.0
		left, right   = 58.0, 24.0
		top1, bottom1 = 34.0, 238.0 // the return panel
		top2, bottom2 = 282.0, 356.0
		clip          = 2.0 // returns above 200 % are drawn clipped
		labelY        = 380.0
	)
	var c canvas
	f := c.f
	f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif" role="img" aria-label="%s">`, W, H, esc(s.Name))
	f(`<style>text{fill:%s;font-size:12px}.m{fill:%s}.h{font-size:13px;font-weight:600}</style>`, colInk, colMuted)
	f(`<rect width="%g" height="%g" fill="%s"/>`, W, H, colCard)
	periods := s.Periods
	n := len(periods)
	slot := (W - left - right) / float64(n)
	x := func(i int) float64 { return left + slot*float64(i) + slot/2 }

	// The return panel: 0 to the highest value shown, at least 100 %.
	hi := math.Max(1, math.Min(s.Target, clip))
	for _, p := range periods {
		for _, v := range []float64{p.RTP, p.Cum} {
			if !math.IsNaN(v) {
				hi = math.Max(hi, math.Min(v, clip))
			}
		}
	}
	hi = math.Ceil(hi*4) / 4
	y := func(v float64) float64 { return bottom1 - (bottom1-top1)*math.Min(v, hi)/hi }
	f(`<text x="%g" y="18" class="h">%s</text>`, left, esc(s.ReturnTitle))
	for v := 0.0; v <= hi+1e-9; v += 0.25 {
		f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s"/>`, left, W-right, y(v), y(v), colGrid)
		f(`<text x="%g" y="%.1f" text-anchor="end" class="m">%d %%</text>`, left-8, y(v)+4, int(math.Round(v*100)))
	}
	bw := math.Max(2, slot*0.62)
	for i, p := range periods {
		if math.IsNaN(p.RTP) {
			continue
		}
		f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.35" rx="2"><title>%s</title></rect>`,
			x(i)-bw/2, y(p.RTP), bw, bottom1-y(p.RTP), colDrawn, esc(p.ReturnTip))
		if p.RTP > hi {
			f(`<path d="M%.1f %.1f l5 8 h-10 z" fill="%s"/>`, x(i), y(hi)-2, colDrawn)
		}
	}
	f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="6 5"/>`, left, W-right, y(s.Target), y(s.Target), colTarget)
	var pts []string
	var lx, ly float64
	for i, p := range periods {
		if !math.IsNaN(p.Cum) {
			lx, ly = x(i), y(p.Cum)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", lx, ly))
		}
	}
	if len(pts) > 0 {
		f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"/>`, strings.Join(pts, " "), colHit)
		f(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>`, lx, ly, colHit)
	}
	// The legend, on the title's line, its width reckoned at 7 px a character.
	lx = W - right
	for _, it := range []struct{ col, label string }{{colDrawn, s.Each}, {colHit, s.Cumulative}, {colTarget, s.Table}} {
		lx -= 8 + 7*float64(len([]rune(it.label)))
		f(`<rect x="%.1f" y="9" width="12" height="12" rx="3" fill="%s"/><text x="%.1f" y="19" class="m">%s</text>`, lx-18, it.col, lx, esc(it.label))
		lx -= 30
	}

	// The units panel.
	var most int64
	for _, p := range periods {
		most = max(most, p.Units)
	}
	f(`<text x="%g" y="%g" class="h">%s</text>`, left, top2-12, esc(s.UnitsTitle))
	f(`<text x="%g" y="%g" text-anchor="end" class="m">%s</text>`, W-right, top2-12, esc(s.Most(most)))
	f(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`, left, W-right, bottom2, bottom2, colGrid)
	for i, p := range periods {
		if p.Units == 0 {
			continue
		}
		h := (bottom2 - top2) * float64(p.Units) / float64(most)
		f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" rx="2"><title>%s</title></rect>`, x(i)-bw/2, bottom2-h, bw, h, colNeutral, esc(p.UnitsTip))
	}
	// Period labels, about eight of them.
	every := max(1, n/8)
	for i := n - 1; i >= 0; i -= every {
		// The last label ends at the picture's edge rather than past it.
		lx, anchor := x(i), "middle"
		if half := 3.5 * float64(len([]rune(periods[i].Label))); lx+half > W-2 {
			lx, anchor = W-2, "end"
		}
		f(`<text x="%.1f" y="%g" text-anchor="%s" class="m">%s</text>`, lx, labelY, anchor, esc(periods[i].Label))
	}
	f(`</svg>`)
	_, err := io.WriteString(w, c.b.String())
	return err
}
