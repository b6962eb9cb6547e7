package chart

import (
	"bytes"
	"math"
	"regexp"
	"sort"
	"testing"

	"starcolor/internal/emission/emissiontest"
)

// palette is every colour a picture may use.
var palette = map[string]bool{
	colInk: true, colMuted: true, colGrid: true, colCard: true, colCardLine: true, colPage: true, colTable: true,
	colDrawn: true, colHit: true, colTarget: true, colBad: true, colGood: true, colNeutral: true, colTrack: true,
	colTag: true, colTagInk: true,
}

var colour = regexp.MustCompile(`#[0-9a-fA-F]{3,8}\b`)

// offPalette lists the colours of a picture that are not the palette's.
func offPalette(svg []byte) []string {
	seen := map[string]bool{}
	for _, c := range colour.FindAll(svg, -1) {
		if !palette[string(c)] {
			seen[string(c)] = true
		}
	}
	var out []string
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// The report and the sales draw with one palette: a colour means the same in both (the sales
// picture had a purple, a teal and a grey of its own).
func TestOnePalette(t *testing.T) {
	e, pages := mini(t, 2, 1)
	rep := emissiontest.Report(t, e, pages)
	var report, sales bytes.Buffer
	if err := WriteReport(&report, rep, Words{}); err != nil {
		t.Fatal(err)
	}
	s := &Sales{Target: 0.7, Most: func(int64) string { return "" }}
	for i := range 24 {
		p := SalesPeriod{RTP: math.NaN(), Cum: math.NaN()}
		if i > 2 {
			p.RTP, p.Cum, p.Units = 0.5+float64(i)/10, 0.7, int64(i)
		}
		s.Periods = append(s.Periods, p)
	}
	if err := WriteSales(&sales, s); err != nil {
		t.Fatal(err)
	}
	for name, svg := range map[string][]byte{"report": report.Bytes(), "sales": sales.Bytes()} {
		if len(colour.FindAll(svg, -1)) < 5 {
			t.Fatalf("%s: too few colours found: the search has gone wrong", name)
		}
		if off := offPalette(svg); len(off) > 0 {
			t.Errorf("the %s picture draws in %v, not in the palette", name, off)
		}
	}
}
