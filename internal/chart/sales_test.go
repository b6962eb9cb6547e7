package chart

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// hours is a window of 48 hourly periods as the back office makes them: some with no sale, one
// returning more than the picture's 200 %, the cumulative return from the first sale on.
func hours() *Sales {
	s := &Sales{
		Target: 0.7, Name: "Return to players and units sold per hour", ReturnTitle: "Return to players per hour",
		UnitsTitle: "Units sold per hour", Each: "each hour", Cumulative: "cumulative", Table: "table 70%",
		Most: func(units int64) string { return fmt.Sprintf("most %d", units) },
	}
	var stakes, prizes int64
	for i := range 48 {
		p := SalesPeriod{Label: fmt.Sprintf("%02d Dec %02dh", 1+(10+i)/24, (10+i)%24), RTP: math.NaN(), Cum: math.NaN()}
		if i >= 3 && i%7 != 5 {
			p.Units = int64(40 + 13*(i%9))
			stake, prize := 100*p.Units, 100*p.Units*int64(20+(37*i)%120)/100
			if i == 30 {
				prize = 3 * stake
			}
			stakes, prizes = stakes+stake, prizes+prize
			p.RTP = float64(prize) / float64(stake)
			p.ReturnTip = fmt.Sprintf("%s: %.1f%% return", p.Label, 100*p.RTP)
			p.UnitsTip = fmt.Sprintf("%s: %d units", p.Label, p.Units)
		}
		if stakes > 0 {
			p.Cum = float64(prizes) / float64(stakes)
		}
		s.Periods = append(s.Periods, p)
	}
	return s
}

func drawSales(t *testing.T, s *Sales) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSales(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The sales picture is the back office's as it drew it itself, in the one palette.
func TestSalesGolden(t *testing.T) {
	golden(t, "sales-48-hours.svg", drawSales(t, hours()))
}

// A bar of units for each period that sold, a bar of return for each that staked, the return
// above the scale marked as clipped, every text escaped, the last label kept inside.
func TestSalesPicture(t *testing.T) {
	s := hours()
	s.Periods[47].Label = `<b>&"end"`
	s.Periods[47].UnitsTip = `<i>&`
	svg := string(drawSales(t, s))
	sold := 0
	for _, p := range s.Periods {
		if p.Units > 0 {
			sold++
		}
	}
	if bars := strings.Count(svg, `rx="2"><title>`); bars != 2*sold {
		t.Errorf("%d bars, want %d of return and %d of units", bars, sold, sold)
	}
	if n := strings.Count(svg, "<path "); n != 1 {
		t.Errorf("%d periods marked as clipped, want the one at 300 %%", n)
	}
	if strings.Contains(svg, "<b>") || strings.Contains(svg, "<i>") || !strings.Contains(svg, `&lt;b&gt;&amp;&#34;end&#34;`) {
		t.Error("the texts are not escaped")
	}
	if !strings.Contains(svg, `x="958.0" y="380" text-anchor="end" class="m">&lt;b&gt;`) {
		t.Error("the last label does not end at the picture's edge")
	}
	checkXML(t, "sales", []byte(svg))
}
