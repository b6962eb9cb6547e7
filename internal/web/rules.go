package web

import (
	"fmt"
	"strconv"
	"strings"

	"starcolor/internal/gamedef"
)

// PrizeTable is the prize table of one stake as the rules page shows it.
type PrizeTable struct {
	Price   int64
	Euros   string // the stake, "1"
	Rows    []PrizeRow
	Winners int    // winning units per block
	Winning string // Winners with its thousands grouped
	Block   string // Units with its thousands grouped
	Odds    string // of any win, "1 in N"
	Payout  int64  // cents per block
	Total   string // Payout in euros, "700 000": the regulation's "total" of a block's prizes
	Top     string // the highest prize in euros, "20 000"
	// TopAmount is the highest prize in cents: the page's result card tells the top prize of a
	// stake's table from other big wins.
	TopAmount int64
	Return    string // the share of the stakes returned to players, "70"
	Units     int
}

// PrizeRow is one tier.
type PrizeRow struct {
	Amount    int64
	Euros     string // "20 000"
	Count     int
	Counts    string // Count with its thousands grouped
	Odds      string // "1 000 000" for 1 in 1,000,000
	Total     string // the tier's prizes in a block in euros, Count × Amount: the regulation's TOTAL column
	Composite bool
}

// Rules computes the rules page's tables from a definition: each tier's odds (1 in N, N the
// block's units over the tier's count) and the share of the stakes returned to players.
func Rules(def *gamedef.Definition) []PrizeTable {
	var out []PrizeTable
	for _, t := range def.Tables {
		pt := PrizeTable{Price: t.Price, Euros: euros(t.Price), Winners: t.Winners(), Payout: t.Payout(), Units: def.BlockUnits,
			Winning: group(int64(t.Winners())), Block: group(int64(def.BlockUnits))}
		var top int64
		for _, tier := range t.Tiers {
			if tier.Amount == 0 {
				continue
			}
			pt.Rows = append(pt.Rows, PrizeRow{Amount: tier.Amount, Euros: euros(tier.Amount), Count: tier.Count, Counts: group(int64(tier.Count)),
				Odds: oneIn(def.BlockUnits, tier.Count), Total: euros(tier.Amount * int64(tier.Count)), Composite: tier.Composite})
			top = max(top, tier.Amount)
		}
		pt.Top, pt.TopAmount, pt.Total = euros(top), top, euros(pt.Payout)
		pt.Odds = oneIn(def.BlockUnits, pt.Winners)
		// Per mille, rounded: 70 % exactly for the regulation's tables.
		pm := (pt.Payout*1000 + int64(def.BlockUnits)*t.Price/2) / (int64(def.BlockUnits) * t.Price)
		pt.Return = strconv.FormatInt(pm/10, 10)
		if pm%10 != 0 {
			pt.Return += "," + strconv.FormatInt(pm%10, 10)
		}
		out = append(out, pt)
	}
	return out
}

// oneIn is N in "1 in N", to one decimal below 100 and whole above, with French separators
// (the page's digits are the same in both languages; only the words around them change).
func oneIn(units, count int) string {
	if count <= 0 {
		return "—"
	}
	tenths := (int64(units)*10 + int64(count)/2) / int64(count)
	if tenths < 1000 {
		s := group(tenths / 10)
		if tenths%10 != 0 {
			s += "," + strconv.FormatInt(tenths%10, 10)
		}
		return s
	}
	return group((int64(units) + int64(count)/2) / int64(count))
}

// euros writes cents as whole euros when they are whole, with a thin space between thousands.
func euros(cents int64) string {
	s := group(cents / 100)
	if cents%100 != 0 {
		s += fmt.Sprintf(",%02d", cents%100)
	}
	return s
}

func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	return b.String()
}
