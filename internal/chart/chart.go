// Package chart draws Star Color's pictures as self-contained SVG documents: the report of an
// emission (what its units hold against the prize table), for the command line and the back
// office, and the back office's sales over a window. They share one palette, so that a colour
// means the same thing in every picture, and one way of writing SVG. The figures come from their
// owners (emission.Report, the back office's sales); this package only lays them out.
package chart

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// The palette, by what each colour shows. The report's colours, which the sales picture took up
// when both came here.
const (
	colInk      = "#1d2433" // text
	colMuted    = "#5b6478" // secondary text, the axes' base lines
	colGrid     = "#e6e8f0" // grid lines
	colCard     = "#ffffff" // a card's ground
	colCardLine = "#e1e4ee" // a card's border
	colPage     = "#f4f5fa" // the ground around the cards
	colTable    = "#c5cbdb" // what the prize table calls for
	colDrawn    = "#5b3fd1" // the main series: units drawn, the return to players
	colHit      = "#139e88" // the second series: the hit rate, the cumulative return
	colTarget   = "#d99a15" // the prize table's return, dashed
	colBad      = "#d23f3f" // a mismatch
	colGood     = "#1e9e5a" // a match
	colNeutral  = "#9aa3b5" // what is counted but not judged: losing units, units sold
	colTrack    = "#eef0f6" // the empty part of a bar
	colTag      = "#fdf1d6" // the ground of a tag ("composite")
	colTagInk   = "#8a5a00" // a tag's text

	fontStack = `system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'Liberation Sans', 'DejaVu Sans', sans-serif`
)

// Words are the language a picture is drawn in: T translates each of its texts (written in
// English, and given to T as they are, format verbs included), and Comma writes decimals with a
// comma. The zero value draws in English.
type Words struct {
	T     func(string) string
	Comma bool
}

// orEnglish is the words with T set: the texts as they are when none is given.
func (w Words) orEnglish() Words {
	if w.T == nil {
		w.T = func(s string) string { return s }
	}
	return w
}

// canvas is an SVG document being written, one element a line.
type canvas struct {
	b strings.Builder
}

func (c *canvas) f(format string, args ...any) {
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
