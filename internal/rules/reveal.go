package rules

// ColorMasks gives, for each colour, the set of cells of that colour (for a board that passes
// Check; a colour out of range would be counted modulo 6).
func (b *Board) ColorMasks() [NumColors]Mask {
	var m [NumColors]Mask
	for i := range b {
		m[b[i].Color%NumColors] |= 1 << uint(i)
	}
	return m
}

// explodes is the set of cells that the content of cell i makes explode, given the board's
// colour masks (4.5.1–4.5.3). Cells already revealed are the caller's to mask out.
func explodes(b *Board, cm *[NumColors]Mask, i int) Mask { return b[i].Blast(i, cm) }

// Blast is the set of cells that this star's content makes explode when it stands at cell i on a
// board with colour masks cm (4.5.1–4.5.3): empty for anything but an explosion symbol.
func (s *Star) Blast(i int, cm *[NumColors]Mask) Mask {
	switch s.Kind {
	case MilkyWay:
		return contactMask[i]
	case Supernova:
		if s.Target.Valid() {
			return cm[s.Target]
		}
	case ShootingStar:
		if s.Rising {
			return risingMask[i]
		}
		return fallingMask[i]
	}
	return 0
}

// Reveal is R(B, c) of docs/spec/RULES.md §4: the smallest set of cells holding every star of colour c and,
// for each of its cells, the cells that cell's content explodes. It does not depend on any order.
func Reveal(b *Board, c Color) Mask {
	cm := b.ColorMasks()
	return closure(b, &cm, cm[c%NumColors])
}

// closure grows a set of revealed cells until no revealed symbol explodes anything new.
func closure(b *Board, cm *[NumColors]Mask, r Mask) Mask {
	for frontier := r; frontier != 0; {
		var next Mask
		for x := uint64(frontier); x != 0; x &= x - 1 {
			next |= explodes(b, cm, trailingZeros(x))
		}
		frontier = next &^ r
		r |= frontier
	}
	return r
}

// Outcome is what a board reveals for a colour, with the figures that reports and checks need.
type Outcome struct {
	Revealed Mask
	Gain     int64 // sum of the amounts revealed, in cents
	Gains    int   // number of amounts revealed
	Extras   int   // Extra symbols revealed
	Symbols  [3]int
	Chained  int // explosion symbols revealed by an explosion rather than by the colour: chains
	Exploded int // cells revealed by an explosion rather than by the colour
}

// Symbol indexes into Outcome.Symbols.
const (
	SymMilkyWay = iota
	SymSupernova
	SymShootingStar
)

// Evaluate computes R(B, c) and what it reveals.
func Evaluate(b *Board, c Color) Outcome {
	cm := b.ColorMasks()
	return evaluate(b, &cm, c)
}

func evaluate(b *Board, cm *[NumColors]Mask, c Color) Outcome {
	own := cm[c%NumColors]
	r := closure(b, cm, own)
	o := Outcome{Revealed: r, Exploded: popcount(uint64(r &^ own))}
	for x := uint64(r); x != 0; x &= x - 1 {
		i := trailingZeros(x)
		switch s := &b[i]; s.Kind {
		case Amount:
			o.Gain += s.Amount
			o.Gains++
		case Extra:
			o.Extras++
		case MilkyWay, Supernova, ShootingStar:
			o.Symbols[s.Kind-MilkyWay]++
			if !own.Has(i) {
				o.Chained++
			}
		}
	}
	return o
}

// RevealEveryColor gives, for each colour c, R(B', c) where B' is b relabelled for c (docs/spec/RULES.md §5),
// computed from b's colour masks without building B'. A verifier uses it to check that the stars
// revealed are the same cells, so the prize the same, whatever colour the player chose.
func RevealEveryColor(b *Board) [NumColors]Mask {
	cm := b.ColorMasks()
	// The explosion symbols, found once: a board holds few, and only they grow R.
	var at [Cells]Mask     // the symbol's own cell
	var blast [Cells]Mask  // what a milky way or shooting star explodes, whatever the colours
	var target [Cells]int8 // a supernova's colour, or -1
	n := 0
	for i := range b {
		switch s := &b[i]; s.Kind {
		case MilkyWay, ShootingStar:
			at[n], blast[n], target[n] = 1<<uint(i), s.Blast(i, &cm), -1
			n++
		case Supernova:
			at[n], target[n] = 1<<uint(i), int8(s.Target%NumColors)
			n++
		}
	}
	var out [NumColors]Mask
	for c := range Color(NumColors) {
		perm := [NumColors]Color{0, 1, 2, 3, 4, 5}
		perm[0], perm[c] = c, 0
		var shown [NumColors]Mask // the colour masks of B'
		for x := range shown {
			shown[x] = cm[perm[x]]
		}
		r := shown[c]
		for grew := true; grew; {
			grew = false
			for k := range n {
				if r&at[k] == 0 {
					continue
				}
				add := blast[k]
				if target[k] >= 0 {
					// On B' this supernova's colour is perm[Target], whose stars are shown[perm[Target]].
					add = shown[perm[target[k]]]
				}
				if add&^r != 0 {
					r |= add
					grew = true
				}
			}
		}
		out[c] = r
	}
	return out
}
