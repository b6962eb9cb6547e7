package chart

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/randomness"
)

// The report's picture is one card of 1200 × 1864 px.
const (
	reportWidth  = 1200
	reportHeight = 1864
)

// WriteReport draws an emission's report as one self-contained SVG document, in a language:
//
//   - the key figures;
//   - the units of each tier against the prize table;
//   - the return to players and hit rate of each block against the table's;
//   - the number of amounts revealed per unit;
//   - how each winning tier is shown;
//   - the presentation features;
//   - the randomness tests of the sale orders, each across the blocks, with each block's p-value.
//
// The same report in the same words always gives the same bytes.
func WriteReport(w io.Writer, r *emission.Report, words Words) error {
	c := &report{r: r, w: words.orEnglish()}
	c.document()
	_, err := io.WriteString(w, c.b.String())
	return err
}

// report draws a report into a buffer.
type report struct {
	canvas
	r *emission.Report
	w Words
}

// t translates a text of the chart; tf translates a format, then fills it.
func (c *report) t(s string) string { return c.w.T(s) }

func (c *report) tf(format string, args ...any) string { return fmt.Sprintf(c.w.T(format), args...) }

// num writes a decimal number as the chart's language does.
func (c *report) num(s string) string {
	if c.w.Comma {
		return strings.Replace(s, ".", ",", 1)
	}
	return s
}

// n writes a coordinate: one decimal at most, the same bytes for the same value.
func n(x float64) string {
	s := strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// text writes a text element; anchor is start, middle or end; extra holds further attributes.
func (c *report) text(x, y float64, class, anchor, content string, extra ...string) {
	attrs := ""
	if anchor != "" && anchor != "start" {
		attrs += ` text-anchor="` + anchor + `"`
	}
	for _, e := range extra {
		attrs += " " + e
	}
	c.f(`<text x="%s" y="%s" class="%s"%s>%s</text>`, n(x), n(y), class, attrs, esc(content))
}

// fill colours a text: an inline style, since the style sheet's colour of text would override
// a fill attribute.
func fill(colour string) string { return `style="fill:` + colour + `"` }

func (c *report) rect(x, y, w, h float64, fill string, extra ...string) {
	attrs := ""
	for _, e := range extra {
		attrs += " " + e
	}
	c.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"%s/>`, n(x), n(y), n(max(w, 0)), n(max(h, 0)), fill, attrs)
}

func (c *report) line(x1, y1, x2, y2 float64, stroke string, extra ...string) {
	attrs := ""
	for _, e := range extra {
		attrs += " " + e
	}
	c.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"%s/>`, n(x1), n(y1), n(x2), n(y2), stroke, attrs)
}

// card draws a panel with its title and subtitle.
func (c *report) card(x, y, w, h float64, title, sub string) {
	c.rect(x, y, w, h, colCard, `rx="14"`, `stroke="`+colCardLine+`"`)
	c.text(x+24, y+34, "h", "", title)
	if sub != "" {
		c.text(x+24, y+54, "note", "", sub)
	}
}

// legend draws legend entries right-aligned so that the last ends at x.
func (c *report) legend(x, y float64, items ...[2]string) {
	width := 0.0
	for _, it := range items {
		width += 22 + textWidth(it[1], 12.5) + 18
	}
	cx := x - width + 18
	for _, it := range items {
		c.rect(cx, y-10, 12, 12, it[0], `rx="3"`)
		c.text(cx+18, y, "lab", "", it[1])
		cx += 22 + textWidth(it[1], 12.5) + 18
	}
}

// textWidth estimates the width of a text in a sans-serif font, for layout only.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ' || r == '\u202f' || r == '.' || r == ',' || r == 'i' || r == 'l' || r == '1':
			w += 0.32
		case r >= 'A' && r <= 'Z', r == '€', r == '%', r == 'm', r == 'w':
			w += 0.72
		default:
			w += 0.56
		}
	}
	return w * size
}

// count writes a number of units with thin spaces between thousands: "1 000 000".
func count(v int) string {
	s := strconv.Itoa(v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "\u202f" + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// pct writes a share as a percentage with the given decimals: "70.00 %".
func (c *report) pct(x float64, decimals int) string {
	return c.num(strconv.FormatFloat(100*x, 'f', decimals, 64)) + "\u202f%"
}

// smartPct writes a share with enough decimals to tell small shares apart.
func (c *report) smartPct(x float64) string {
	switch p := 100 * x; {
	case p == 0:
		return "0\u202f%"
	case p < 0.01:
		return c.num("<0.01") + "\u202f%"
	case p < 10:
		return c.pct(x, 2)
	default:
		return c.pct(x, 1)
	}
}

// shareOf is k out of n, 0 when n is 0.
func shareOf(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// niceScale rounds a positive maximum up to a round number of round steps, for an axis of about
// five ticks: steps of 1, 2, 2.5 or 5 times a power of ten.
func niceScale(hi float64) (top, step float64) {
	if !(hi > 0) || math.IsInf(hi, 0) {
		return 1, 0.2
	}
	base := math.Pow(10, math.Floor(math.Log10(hi/5)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		step = m * base
		if hi/step <= 5.000001 {
			break
		}
	}
	return math.Ceil(hi/step-1e-9) * step, step
}

// tickPct writes an axis tick in percent with no more decimals than it needs.
func (c *report) tickPct(v float64) string {
	return c.num(strconv.FormatFloat(math.Round(v*1e6)/1e4, 'f', -1, 64)) + "\u202f%"
}

// odds writes "1 in N" for a count among units.
func (c *report) odds(units, k int) string {
	if k == 0 {
		return c.t("never")
	}
	v := float64(units) / float64(k)
	if v >= 100 {
		return c.tf("1 in %s", count(int(math.Round(v))))
	}
	return c.tf("1 in %s", c.num(strconv.FormatFloat(v, 'f', 2, 64)))
}

func (c *report) tierName(amount int64) string {
	if amount == 0 {
		return c.t("losing")
	}
	return gamedef.FormatEUR(amount)
}

func (c *report) document() {
	r := c.r
	t := &r.Total
	c.f(`<?xml version="1.0" encoding="UTF-8"?>`)
	c.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title desc">`,
		reportWidth, reportHeight, reportWidth, reportHeight)
	c.f(`<title id="title">%s</title>`, esc(c.tf("Star Color — emission %s report", r.Emission)))
	c.f(`<desc id="desc">%s</desc>`, esc(c.tf("%d block(s), %d units at %s: prizes %s, return to player %s, hit rate %s.",
		len(r.Blocks), t.Units, gamedef.FormatEUR(r.Price), gamedef.FormatEUR(t.Prizes), c.pct(t.RTP(), 2), c.pct(t.HitRate(), 2))))
	c.f(`<style>`)
	c.f(`text { font-family: %s; fill: %s; }`, fontStack, colInk)
	c.f(`.title { font-size: 28px; font-weight: 700; }`)
	c.f(`.sub { font-size: 14px; fill: %s; }`, colMuted)
	c.f(`.h { font-size: 17px; font-weight: 700; }`)
	c.f(`.note { font-size: 12px; fill: %s; }`, colMuted)
	c.f(`.axis { font-size: 11.5px; fill: %s; }`, colMuted)
	c.f(`.lab { font-size: 12.5px; }`)
	c.f(`.val { font-size: 11.5px; font-weight: 600; }`)
	c.f(`.kpi { font-size: 25px; font-weight: 700; }`)
	c.f(`.kpil { font-size: 11px; font-weight: 600; letter-spacing: 0.08em; fill: %s; }`, colMuted)
	c.f(`.tag { font-size: 10px; font-weight: 600; fill: %s; }`, colTagInk)
	c.f(`</style>`)
	c.rect(0, 0, reportWidth, reportHeight, colPage)

	c.header()
	c.tiers(40, 200, 1120, 400)
	c.blocks(40, 620, 550, 370)
	c.gains(610, 620, 550, 370)
	c.heatmap(40, 1010, 550, 370)
	c.features(610, 1010, 550, 370)
	c.randomness(40, 1400, 1120, 420)
	c.text(40, reportHeight-18, "note", "", c.t("starcolor emission report · every unit read back and evaluated under the rules for the canonical colour · counts are exact"))
	c.f(`</svg>`)
}

func (c *report) header() {
	r := c.r
	t := &r.Total
	c.text(40, 56, "title", "", c.tf("Star Color — emission %s", r.Emission))
	units := 0
	if len(r.Blocks) > 0 {
		units = r.Blocks[0].Units
	}
	format := "%d blocks of %s units at %s · game definition %s"
	if len(r.Blocks) == 1 {
		format = "%d block of %s units at %s · game definition %s"
	}
	c.text(40, 82, "sub", "", c.tf(format, len(r.Blocks), count(units), gamedef.FormatEUR(r.Price), r.Definition))

	type kpi struct{ label, value, sub, colour string }
	verdict := kpi{c.t("PRIZE TABLE"), c.t("exact"), c.t("all tiers, in every block"), colGood}
	if !r.OK() {
		bad := 0
		for _, b := range r.Blocks {
			if !b.OK() {
				bad++
			}
		}
		verdict = kpi{c.t("PRIZE TABLE"), c.t("MISMATCH"), c.tf("in %d of %d block(s)", bad, len(r.Blocks)), colBad}
	}
	kpis := []kpi{
		{c.t("UNITS"), count(t.Units), c.tf("%s of sales", gamedef.FormatEUR(t.Sales)), colInk},
		{c.t("PRIZES"), gamedef.FormatEUR(t.Prizes), c.tf("table: %s", gamedef.FormatEUR(t.TablePrizes)), colInk},
		{c.t("RETURN TO PLAYER"), c.pct(t.RTP(), 2), c.tf("target %s", c.pct(t.TableRTP(), 2)), colDrawn},
		{c.t("HIT RATE"), c.pct(t.HitRate(), 2), c.tf("%s wins", c.odds(t.Units, t.Winners)), colHit},
		verdict,
	}
	const gap = 16.0
	w := (1120 - gap*float64(len(kpis)-1)) / float64(len(kpis))
	for i, k := range kpis {
		x := 40 + float64(i)*(w+gap)
		c.rect(x, 104, w, 78, colCard, `rx="12"`, `stroke="`+colCardLine+`"`)
		c.rect(x, 104, 5, 78, k.colour, `rx="2"`)
		c.text(x+20, 126, "kpil", "", k.label)
		c.text(x+20, 156, "kpi", "", k.value, fill(k.colour))
		c.text(x+20, 174, "note", "", k.sub)
	}
}

// tiers draws, per tier, the units drawn against the prize table on a logarithmic scale.
func (c *report) tiers(x, y, w, h float64) {
	t := &c.r.Total
	c.card(x, y, w, h, c.t("Units per tier: drawn vs prize table"),
		c.tf("Exact counts over %d block(s), logarithmic scale. Composite tiers are reached only by cumulating several amounts.", len(c.r.Blocks)))
	c.legend(x+w-24, y+34, [2]string{colTable, c.t("prize table")}, [2]string{colDrawn, c.t("drawn")}, [2]string{colBad, c.t("mismatch")})
	px0, px1 := x+104, x+w-24
	py0, py1 := y+96, y+h-92
	vmax := 1
	for _, tr := range t.Tiers {
		vmax = max(vmax, tr.Count, tr.TableCount)
	}
	// A logarithmic scale with 0 on the axis and 1 a decade above it, so that a tier of a
	// single unit still shows a bar.
	decades := int(math.Ceil(math.Log10(float64(vmax))))
	ypos := func(v int) float64 {
		if v <= 0 {
			return py1
		}
		return py1 - (py1-py0)*(math.Log10(float64(v))+1)/float64(decades+1)
	}
	c.text(px0-10, py1+4, "axis", "end", "0")
	for d := 0; d <= decades; d++ {
		v := int(math.Pow(10, float64(d)))
		yy := ypos(v)
		c.line(px0, yy, px1, yy, colGrid)
		c.text(px0-10, yy+4, "axis", "end", count(v))
	}
	c.line(px0, py1, px1, py1, colMuted)
	c.text(x+30, (py0+py1)/2, "axis", "middle", c.t("units (log scale)"), fmt.Sprintf(`transform="rotate(-90 %s %s)"`, n(x+30), n((py0+py1)/2)))

	if len(t.Tiers) == 0 {
		return
	}
	gw := (px1 - px0) / float64(len(t.Tiers))
	bw := math.Min(40, gw*0.3)
	for i, tr := range t.Tiers {
		cx := px0 + gw*(float64(i)+0.5)
		drawn := colDrawn
		if tr.Amount == 0 {
			drawn = colNeutral
		}
		if !tr.OK() {
			drawn = colBad
		}
		yt, yd := ypos(tr.TableCount), ypos(tr.Count)
		c.rect(cx-bw-2, yt, bw, py1-yt, colTable, `rx="3"`)
		c.rect(cx+2, yd, bw, py1-yd, drawn, `rx="3"`)
		label := count(tr.Count)
		colour := fill(colInk)
		if tr.Count != tr.TableCount {
			label = count(tr.Count) + " ≠ " + count(tr.TableCount)
			colour = fill(colBad)
		} else if !tr.OK() {
			label += " " + c.t("(single gain)")
			colour = fill(colBad)
		}
		c.text(cx, math.Min(yt, yd)-8, "val", "middle", label, colour)
		c.text(cx, py1+22, "lab", "middle", c.tierName(tr.Amount), `font-weight="600"`)
		c.text(cx, py1+40, "axis", "middle", c.odds(t.Units, tr.TableCount))
		if tr.Composite {
			tw := textWidth(c.t("composite"), 10) + 14
			c.rect(cx-tw/2, py1+50, tw, 18, colTag, `rx="9"`)
			c.text(cx, py1+63, "tag", "middle", c.t("composite"))
		}
	}
}

// blocks draws the return to players and hit rate of each block against the table's.
func (c *report) blocks(x, y, w, h float64) {
	r := c.r
	c.card(x, y, w, h, c.t("Return to player and hit rate, per block"), c.t("Prizes ÷ (price × units), and winning units ÷ units; dashed: the prize table."))
	c.legend(x+w-24, y+82, [2]string{colDrawn, c.t("return to player")}, [2]string{colHit, c.t("hit rate")})
	px0, px1 := x+64, x+w-86
	py0, py1 := y+104, y+h-52
	hi := 1.0
	for _, b := range r.Blocks {
		hi = math.Max(hi, math.Max(b.RTP(), b.HitRate()))
	}
	ypos := c.percentAxis(px0, px1, py0, py1, hi)
	nb := len(r.Blocks)
	if nb > 0 {
		gw := (px1 - px0) / float64(nb)
		bw := math.Min(44, gw*0.36)
		every := int(math.Ceil(float64(nb) / 12))
		for i, b := range r.Blocks {
			cx := px0 + gw*(float64(i)+0.5)
			rtpColour, hitColour := colDrawn, colHit
			if b.Prizes != b.TablePrizes {
				rtpColour = colBad
			}
			if b.Winners != b.TableWinners {
				hitColour = colBad
			}
			c.rect(cx-bw-1, ypos(b.RTP()), bw, py1-ypos(b.RTP()), rtpColour, `rx="3"`)
			c.rect(cx+1, ypos(b.HitRate()), bw, py1-ypos(b.HitRate()), hitColour, `rx="3"`)
			if nb <= 6 {
				c.text(cx-bw/2-1, ypos(b.RTP())-8, "val", "middle", c.pct(b.RTP(), 2))
				c.text(cx+bw/2+1, ypos(b.HitRate())-8, "val", "middle", c.pct(b.HitRate(), 2))
			}
			if i%every == 0 {
				label := strconv.Itoa(b.Block)
				if nb <= 6 {
					label = c.tf("block %s", label)
				}
				c.text(cx, py1+20, "lab", "middle", label)
			}
		}
	}
	if nb > 6 {
		c.text((px0+px1)/2, py1+38, "axis", "middle", c.t("block"))
	}
	// The table's targets, drawn over the bars.
	t := &r.Total
	for _, tg := range []struct {
		v      float64
		colour string
		label  string
	}{{t.TableRTP(), colTarget, c.t("table RTP")}, {t.TableHitRate(), colHit, c.t("table hit")}} {
		yy := ypos(tg.v)
		c.line(px0, yy, px1, yy, tg.colour, `stroke-width="2"`, `stroke-dasharray="6 4"`)
		c.text(px1+8, yy-2, "axis", "", tg.label, fill(tg.colour))
		c.text(px1+8, yy+12, "val", "", c.pct(tg.v, 2), fill(tg.colour))
	}
}

// gains draws how many amounts the units reveal.
func (c *report) gains(x, y, w, h float64) {
	t := &c.r.Total
	c.card(x, y, w, h, c.t("Amounts revealed per unit"), c.t("Share of all units revealing 0, 1, 2 … amounts; a total may be shown by several."))
	c.legend(x+w-24, y+82, [2]string{colNeutral, c.t("losing")}, [2]string{colDrawn, c.t("winning")})
	px0, px1 := x+64, x+w-24
	py0, py1 := y+104, y+h-52
	hi := 0.0
	for _, k := range t.Gains {
		hi = math.Max(hi, shareOf(k, t.Units))
	}
	ypos := c.percentAxis(px0, px1, py0, py1, hi)
	c.text((px0+px1)/2, py1+38, "axis", "middle", c.t("amounts revealed on the unit's boards"))
	if len(t.Gains) == 0 {
		return
	}
	gw := (px1 - px0) / float64(len(t.Gains))
	bw := math.Min(40, gw*0.62)
	for k, v := range t.Gains {
		cx := px0 + gw*(float64(k)+0.5)
		share := shareOf(v, t.Units)
		colour := colDrawn
		if k == 0 {
			colour = colNeutral
		}
		yy := ypos(share)
		c.rect(cx-bw/2, yy, bw, py1-yy, colour, `rx="3"`)
		if gw >= 34 {
			c.text(cx, yy-8, "val", "middle", c.smartPct(share))
		}
		c.text(cx, py1+20, "lab", "middle", strconv.Itoa(k))
	}
}

// heatmap draws, for each winning tier, the share of its units by number of amounts revealed,
// and the number of distinct combinations of amounts that show it.
func (c *report) heatmap(x, y, w, h float64) {
	t := &c.r.Total
	c.card(x, y, w, h, c.t("How each winning tier is shown"), c.t("Share of each tier's units by amounts revealed; ways: distinct combinations."))
	from := 1
	for _, tr := range t.Tiers {
		if tr.Amount > 0 && len(tr.Gains) > 0 && tr.Gains[0] > 0 {
			from = 0
		}
	}
	cols := len(t.Gains) - from
	var rows []emission.TierStats
	for _, tr := range t.Tiers {
		if tr.Amount > 0 {
			rows = append(rows, tr)
		}
	}
	if cols <= 0 || len(rows) == 0 {
		return
	}
	gx0, gx1 := x+126, x+w-90
	gy0 := y + 100
	cw := (gx1 - gx0) / float64(cols)
	rh := math.Min(32, (y+h-40-gy0)/float64(len(rows)))
	c.text((gx0+gx1)/2, y+80, "axis", "middle", c.t("amounts revealed"))
	for j := range cols {
		c.text(gx0+cw*(float64(j)+0.5), gy0-6, "lab", "middle", strconv.Itoa(from+j), `font-weight="600"`)
	}
	c.text(gx1+44, gy0-6, "lab", "middle", c.t("ways"), `font-weight="600"`)
	for i, tr := range rows {
		yy := gy0 + rh*float64(i)
		if tr.Composite && rh >= 26 {
			c.text(x+24, yy+rh/2, "lab", "", c.tierName(tr.Amount), `font-weight="600"`)
			c.text(x+24, yy+rh/2+12, "tag", "", c.t("composite"))
		} else {
			c.text(x+24, yy+rh/2+4, "lab", "", c.tierName(tr.Amount), `font-weight="600"`)
		}
		for j := range cols {
			k := from + j
			v := 0
			if k < len(tr.Gains) {
				v = tr.Gains[k]
			}
			share := shareOf(v, tr.Count)
			cx := gx0 + cw*float64(j)
			if v == 0 {
				c.rect(cx+1.5, yy+1.5, cw-3, rh-3, colTrack, `rx="4"`)
				continue
			}
			cell := colDrawn
			if tr.Composite && k < 2 {
				cell = colBad
			}
			op := 0.12 + 0.88*math.Sqrt(share)
			c.rect(cx+1.5, yy+1.5, cw-3, rh-3, cell, `rx="4"`, `fill-opacity="`+strconv.FormatFloat(op, 'f', 3, 64)+`"`)
			if cw >= 30 {
				ink := colInk
				if op > 0.7 {
					ink = colCard // its white, on a dark cell
				}
				label := strconv.FormatFloat(100*share, 'f', 0, 64)
				if share < 0.01 {
					label = "<1"
				}
				c.text(cx+cw/2, yy+rh/2+4, "val", "middle", label, fill(ink))
			}
		}
		c.text(gx1+44, yy+rh/2+4, "lab", "middle", strconv.Itoa(len(tr.Combinations)))
	}
	c.text(x+24, gy0+rh*float64(len(rows))+22, "note", "", c.t("Cells: % of the tier's units. A composite tier never shows a single amount."))
}

// features draws the presentation features as shares of units.
func (c *report) features(x, y, w, h float64) {
	t := &c.r.Total
	c.card(x, y, w, h, c.t("Presentation features"), c.t("Share of units showing each element; the last two among losing units."))
	list := t.FeatureList()
	bx0, bx1 := x+226, x+w-88
	y0 := y + 84
	rh := math.Min(30, (y+h-30-y0)/float64(len(list)))
	for i, f := range list {
		yy := y0 + rh*float64(i)
		colour := colDrawn
		if f.OfWhat != "units" {
			colour = colNeutral
		}
		if i > 0 && list[i-1].OfWhat != f.OfWhat {
			c.line(x+24, yy-2, x+w-24, yy-2, colGrid)
		}
		c.text(x+24, yy+rh/2+4, "lab", "", c.t(f.Name))
		c.rect(bx0, yy+rh/2-7, bx1-bx0, 14, colTrack, `rx="7"`)
		if f.Units > 0 {
			c.rect(bx0, yy+rh/2-7, math.Max(4, (bx1-bx0)*f.Share()), 14, colour, `rx="7"`)
		}
		c.text(bx1+10, yy+rh/2+4, "val", "", c.smartPct(f.Share()))
	}
}

// randomness draws the randomness tests of the sale orders: for each test, the blocks that pass
// it, its smallest p-value and Tippett's, the uniformity of its p-values, each block's p-value on
// a logarithmic strip, and its verdict across the blocks.
func (c *report) randomness(x, y, w, h float64) {
	v := &c.r.Randomness
	if len(v.Tests) == 0 {
		c.card(x, y, w, h, c.t("Randomness of the sale orders"), c.t("No test could run."))
		return
	}
	first := &v.Tests[0]
	c.card(x, y, w, h, c.t("Randomness of the sale orders"),
		c.tf("Each block's tests at 99 %%; each test judged across the %d block(s) at 0.01 / (4 × %d), so that a fair emission fails at most 1 %% of the time.",
			first.Blocks, len(v.Tests)))
	verdict, colour := c.t("PASS"), colGood
	if !v.Pass {
		verdict, colour = c.t("FAIL"), colBad
	}
	bw := textWidth(verdict, 13) + 28
	c.rect(x+w-24-bw, y+16, bw, 26, colour, `rx="13"`)
	c.text(x+w-24-bw/2, y+34, "val", "middle", verdict, fill(colCard))

	// Columns: the test, blocks passing, smallest p, Tippett, uniformity, the strip, the verdict.
	cName, cPass, cMin, cTip, cUni := x+24, x+450, x+540, x+630, x+750
	s0, s1 := x+790, x+w-110
	cVerdict := x + w - 24
	top := y + 96
	c.text(cName, top, "axis", "", c.t("test"))
	c.text(cPass, top, "axis", "end", c.t("blocks passing"))
	c.text(cMin, top, "axis", "end", c.t("smallest p"))
	c.text(cTip, top, "axis", "end", c.t("Tippett"))
	c.text(cUni, top, "axis", "end", c.t("uniformity"))
	c.text(cVerdict, top, "axis", "end", c.t("verdict"))
	// The strip: log10 p from 10⁻⁶ (and below) to 1, the 0.01 of each block's test dashed.
	const decades = 6
	px := func(p float64) float64 {
		l := math.Max(-decades, math.Log10(math.Max(p, 1e-300)))
		return s0 + (s1-s0)*(l+decades)/decades
	}
	c.text((s0+s1)/2, top-18, "axis", "middle", c.t("p-value of each block (log scale)"))
	for d := -decades; d <= 0; d += 2 {
		label := "1"
		if d < 0 {
			label = "10" + superscript(d)
		}
		c.text(px(math.Pow(10, float64(d))), top, "axis", "middle", label)
	}
	rows := float64(len(v.Tests))
	rh := math.Min(24, (y+h-64-(top+10))/rows)
	y0 := top + 10
	for i := range v.Tests {
		s := &v.Tests[i]
		yy := y0 + rh*float64(i)
		mid := yy + rh/2
		if i%2 == 0 {
			c.rect(x+12, yy, w-24, rh, colTrack, `rx="4"`)
		}
		c.text(cName, mid+4, "lab", "", c.testName(s.Test))
		c.text(cPass, mid+4, "lab", "end", fmt.Sprintf("%d/%d", s.Blocks-s.Failed, s.Blocks), c.ink(s.Proportion))
		c.text(cMin, mid+4, "lab", "end", c.pvalue(s.MinP))
		c.text(cTip, mid+4, "lab", "end", c.pvalue(s.Tippett), c.ink(s.Extreme))
		uni := c.tf("from %d blocks", randomness.UniformityBlocks)
		if s.UniformityJudged() {
			uni = c.pvalue(s.Uniformity)
		}
		c.text(cUni, mid+4, "lab", "end", uni, c.ink(s.Uniform))
		c.line(s0, mid, s1, mid, colGrid)
		for _, b := range v.Blocks {
			for _, r := range b.Results {
				if r.Test.String() != s.Test.String() {
					continue
				}
				dot := colDrawn
				if !r.Pass() {
					dot = colBad
				}
				c.f(`<circle cx="%s" cy="%s" r="3.5" fill="%s" fill-opacity="0.7"/>`, n(px(r.P)), n(mid), dot)
			}
		}
		word, colour := c.t("pass"), colGood
		if !s.Pass {
			word, colour = c.t("FAIL"), colBad
		}
		c.text(cVerdict, mid+4, "val", "end", word, fill(colour))
	}
	c.line(px(randomness.Alpha), y0, px(randomness.Alpha), y0+rh*rows, colBad, `stroke-dasharray="4 3"`)
	c.text(x+24, y+h-38, "note", "", c.t("Blocks passing: p ≥ 0.01. Tippett: the chance that the smallest of the blocks' p-values is as small. Uniformity: NIST SP 800-22 §4.2.2."))
	if len(v.Blocks) > 0 && len(v.Blocks[0].Grouped) > 0 {
		c.text(x+24, y+h-20, "note", "", c.tf("Tiers of fewer than %d units (%s) are tested together with the next rarest.",
			randomness.MinPositions, c.tierNames(v.Blocks[0].Grouped)))
	}
}

// testName names a randomness test in the chart's language.
func (c *report) testName(t randomness.Test) string {
	switch t.Kind {
	case randomness.Segments:
		return c.t("wins by segment")
	case randomness.Runs:
		return c.t("runs of wins and losses")
	case randomness.Serial:
		return c.tf("serial correlation, lag %d", t.Lag)
	}
	return c.tf("positions of %s", c.tierNames(t.Prizes))
}

// tierNames names tiers by their prizes: "20 000 €, 1 000 €", "losing".
func (c *report) tierNames(prizes []int64) string {
	names := make([]string, len(prizes))
	for i, p := range prizes {
		names[i] = c.tierName(p)
	}
	return strings.Join(names, ", ")
}

// pvalue writes a probability: four decimals, or its order when smaller.
func (c *report) pvalue(p float64) string {
	if p >= 0.0001 || p == 0 {
		return c.num(strconv.FormatFloat(p, 'f', 4, 64))
	}
	return c.num(strconv.FormatFloat(p, 'e', 1, 64))
}

// ink colours a figure that a judgement rests on: the ink when it holds, red when it fails.
func (c *report) ink(ok bool) string {
	if ok {
		return fill(colInk)
	}
	return fill(colBad)
}

// superscript writes an exponent in superscript digits: "⁻⁶".
func superscript(e int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	sup := []rune(digits)
	s := ""
	if e < 0 {
		s, e = "⁻", -e
	}
	for _, d := range strconv.Itoa(e) {
		s += string(sup[d-'0'])
	}
	return s
}

// percentAxis draws a vertical percentage scale up to at least hi, with its grid lines and base
// line, over the plot area px0…px1 × py0…py1, and returns the y position of a value.
func (c *report) percentAxis(px0, px1, py0, py1, hi float64) func(float64) float64 {
	hi, step := niceScale(hi)
	ypos := func(v float64) float64 { return py1 - (py1-py0)*v/hi }
	for i := 0; float64(i)*step <= hi*(1+1e-9); i++ {
		yy := ypos(float64(i) * step)
		c.line(px0, yy, px1, yy, colGrid)
		c.text(px0-10, yy+4, "axis", "end", c.tickPct(float64(i)*step))
	}
	c.line(px0, py1, px1, py1, colMuted)
	return ypos
}
