// Package scenario is the generator of game units. From a unit's predetermined prize and a stream
// of randomness, it builds the boards that reveal exactly that prize under every rule of
// docs/spec/RULES.md §2–§6. They have the variety §6 asks for: every symbol kind, chains, Extra
// stages, explosions on losing units, several combinations of amounts for the same total. Every
// unit it returns has been evaluated and checked against the table; a unit that fails is never
// returned.
package scenario

import (
	"fmt"
	"math/bits"

	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

// Generator makes units for one prize table.
type Generator struct {
	table *gamedef.Table
	pres  gamedef.Presentation
	plans map[int64]*plan
	kinds []int // cumulative kind weights, in gamedef.SymbolKinds order
	syms  []int // cumulative symbols-per-board weights
}

// plan is how a prize may be split into gains: the possible numbers of gains with their
// cumulative weights, and the decompositions for each.
type plan struct {
	ks  []int
	cum []int
	byK [][][]int64
}

// New prepares a generator for a table of a definition.
func New(def *gamedef.Definition, table *gamedef.Table) (*Generator, error) {
	g := &Generator{table: table, pres: def.Presentation, plans: map[int64]*plan{}}
	for _, k := range gamedef.SymbolKinds {
		g.kinds = appendCum(g.kinds, def.Presentation.KindWeights[k])
	}
	for _, w := range def.Presentation.SymbolsWeights {
		g.syms = appendCum(g.syms, w)
	}
	for _, tier := range table.Tiers {
		if tier.Amount == 0 {
			continue
		}
		p := &plan{byK: decompositions(tier.Amount, table.Amounts, def.MaxGains)}
		for k := 1; k < len(p.byK); k++ {
			if len(p.byK[k]) == 0 || (tier.Composite && k < 2) || def.Presentation.GainsWeights[k] == 0 {
				continue
			}
			p.ks = append(p.ks, k)
			p.cum = appendCum(p.cum, def.Presentation.GainsWeights[k])
		}
		if len(p.ks) == 0 {
			return nil, fmt.Errorf("tier %s cannot be shown with the table's amounts in at most %d gains",
				gamedef.FormatEUR(tier.Amount), def.MaxGains)
		}
		g.plans[tier.Amount] = p
	}
	return g, nil
}

func appendCum(cum []int, w int) []int {
	last := 0
	if len(cum) > 0 {
		last = cum[len(cum)-1]
	}
	return append(cum, last+w)
}

// pick draws an index from cumulative weights.
func pick(rng *Stream, cum []int) int {
	x := rng.IntN(cum[len(cum)-1])
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}

func chance(rng *Stream, per10000 int) bool { return rng.IntN(10000) < per10000 }

// maxAttempts bounds the redraws of a unit whose random layout cannot hold its gains; with the
// shipped definitions a redraw is rare, and running out means a definition that cannot work.
const maxAttempts = 1000

// Unit builds into u a canonical unit (colour 0 selected) that reveals exactly prize, a tier of
// the table. The unit is written in place because a block builds a million of them.
func (g *Generator) Unit(u *rules.Unit, prize int64, rng *Stream) error {
	var gains []int64
	if prize != 0 {
		p, ok := g.plans[prize]
		if !ok {
			return fmt.Errorf("prize %s is not a tier of the table", gamedef.FormatEUR(prize))
		}
		k := p.ks[pick(rng, p.cum)]
		choices := p.byK[k]
		gains = choices[rng.IntN(len(choices))]
	}
	var lastErr error
	for range maxAttempts {
		err := g.build(u, gains, rng)
		if err == nil {
			_, err = g.table.CheckUnit(u, prize)
		}
		if err == nil {
			return nil
		}
		lastErr = err
	}
	return fmt.Errorf("no valid unit for prize %s after %d attempts: %w", gamedef.FormatEUR(prize), maxAttempts, lastErr)
}

func (g *Generator) build(u *rules.Unit, gains []int64, rng *Stream) error {
	u.HasB2 = false
	extra := chance(rng, g.pres.ExtraPer10000)
	var buf1, buf2 [16]int64
	on1, on2 := buf1[:0], buf2[:0]
	for _, a := range gains {
		if extra && chance(rng, g.pres.Board2GainPer10000) {
			on2 = append(on2, a)
		} else {
			on1 = append(on1, a)
		}
	}
	if err := g.board(&u.B1, on1, extra, rng); err != nil {
		return err
	}
	if extra {
		u.HasB2 = true
		return g.board(&u.B2, on2, false, rng)
	}
	u.B2 = rules.Board{}
	return nil
}

// board lays out one board for colour 0:
//
//  1. a random arrangement of the colours;
//  2. explosion symbols, placed only on stars already revealed, so that every symbol is revealed
//     and each one widens what the board reveals;
//  3. the Extra and the amounts, on revealed stars that hold nothing yet.
//
// Stars outside the revealed set stay empty (docs/spec/RULES.md §5).
func (g *Generator) board(b *rules.Board, gains []int64, extra bool, rng *Stream) error {
	colors := [rules.Cells]rules.Color{}
	for i := range colors {
		colors[i] = rules.Color(i / rules.PerColor)
	}
	Shuffle(rng, colors[:])
	*b = rules.Board{}
	for i := range b {
		b[i].Color = colors[i]
	}
	cm := b.ColorMasks()
	own := cm[0]
	revealed := own
	free := own // revealed cells that hold nothing yet
	need := len(gains)
	if extra {
		need++
	}
	want := pick(rng, g.syms)
	placed := 0
	for tries := 0; placed < want || free.Len() < need; tries++ {
		if tries == 64 || free == 0 {
			break
		}
		host := g.host(free, own, rng)
		if g.symbol(&b[host], &cm, host, revealed, rng) == 0 {
			continue
		}
		blast := b[host].Blast(host, &cm) &^ revealed
		free &^= 1 << uint(host)
		revealed |= blast
		free |= blast
		placed++
	}
	if free.Len() < need {
		return fmt.Errorf("a board revealing %d cells cannot hold %d gains and an Extra", revealed.Len(), len(gains))
	}
	if extra {
		x := nth(free, rng.IntN(free.Len()))
		b[x].Kind = rules.Extra
		free &^= 1 << uint(x)
	}
	for _, a := range gains {
		x := nth(free, rng.IntN(free.Len()))
		b[x].Kind, b[x].Amount = rules.Amount, a
		free &^= 1 << uint(x)
	}
	return nil
}

// host picks the star that receives the next symbol: one revealed by an earlier explosion (making
// a chain) at the definition's chain rate when there is one, otherwise a star of the colour.
func (g *Generator) host(free, own rules.Mask, rng *Stream) int {
	from := free & own
	if chained := free &^ own; chained != 0 && (from == 0 || chance(rng, g.pres.ChainPer10000)) {
		from = chained
	}
	return nth(from, rng.IntN(from.Len()))
}

// symbol draws an explosion symbol into star s at cell host and returns the cells it newly
// reveals; when that set is empty the star is left empty and the draw is to be redone.
func (g *Generator) symbol(s *rules.Star, cm *[rules.NumColors]rules.Mask, host int, revealed rules.Mask, rng *Stream) rules.Mask {
	switch pick(rng, g.kinds) {
	case rules.SymMilkyWay:
		s.SetContent(rules.MilkyWay, false, 0, 0)
	case rules.SymSupernova:
		var targets [rules.NumColors]rules.Color
		n := 0
		for c := rules.Color(1); c < rules.NumColors; c++ {
			if cm[c]&^revealed != 0 {
				targets[n] = c
				n++
			}
		}
		if n == 0 {
			return 0
		}
		s.SetContent(rules.Supernova, false, targets[rng.IntN(n)], 0)
	default:
		s.SetContent(rules.ShootingStar, rng.IntN(2) == 0, 0, 0)
	}
	blast := s.Blast(host, cm) &^ revealed
	if blast == 0 {
		s.SetContent(rules.Empty, false, 0, 0)
	}
	return blast
}

// nth is the k-th cell (from 0) of a set, in cell order.
func nth(m rules.Mask, k int) int {
	x := uint64(m)
	for ; k > 0; k-- {
		x &= x - 1
	}
	return bits.TrailingZeros64(x)
}
