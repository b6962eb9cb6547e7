// Package rules is the game of « Star Color » as code: the board, its contents, what a board
// reveals for a selected colour (docs/spec/RULES.md §3–§5) and the manual play of a unit. It is pure: no I/O,
// no clock and no randomness of its own, so every other part (the generator, the verifier, the
// server, the pages) can trust it to give the same answer for the same board.
package rules

import "fmt"

// Board geometry (docs/spec/RULES.md §3): 6 rows × 7 columns, cell index = row×7 + column.
const (
	Rows  = 6
	Cols  = 7
	Cells = Rows * Cols
	// NumColors is the number of star colours, each present exactly PerColor times on a board.
	NumColors = 6
	PerColor  = Cells / NumColors
)

// Color is a star colour index, 0 to 5, in the regulation's order (4.2).
type Color uint8

// ColorNames are the regulation's names of the colours, by index.
var ColorNames = [NumColors]string{"violet", "bleu", "vert", "jaune", "orange", "rose"}

func (c Color) String() string {
	if int(c) < NumColors {
		return ColorNames[c]
	}
	return fmt.Sprintf("Color(%d)", uint8(c))
}

// Valid reports whether c is one of the six colours.
func (c Color) Valid() bool { return c < NumColors }

// Kind is what a star hides.
type Kind uint8

// The contents of a star (docs/spec/RULES.md §3).
const (
	Empty Kind = iota
	Amount
	MilkyWay
	Supernova
	ShootingStar
	Extra
)

var kindNames = [...]string{"empty", "amount", "milky_way", "supernova", "shooting_star", "extra"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// IsExplosion reports whether the content is an « Explosion Bonus » symbol (4.5).
func (k Kind) IsExplosion() bool { return k == MilkyWay || k == Supernova || k == ShootingStar }

// Star is one cell of a board: its colour and the content it hides. Amount is in euro cents
// (Kind Amount); Target is the colour a supernova explodes; Rising tells a shooting star's
// direction (↗ when true, ↘ when false). The fields are flat so that a star packs in 16 bytes.
type Star struct {
	Color  Color
	Kind   Kind
	Rising bool
	Target Color
	Amount int64
}

// SetContent sets what the star hides, keeping its colour.
func (s *Star) SetContent(kind Kind, rising bool, target Color, amount int64) {
	s.Kind, s.Rising, s.Target, s.Amount = kind, rising, target, amount
}

// Board is 42 stars in cell order.
type Board [Cells]Star

// Mask is a set of cells, bit i standing for cell i.
type Mask uint64

// Has reports whether cell i is in the set.
func (m Mask) Has(i int) bool { return m&(1<<uint(i)) != 0 }

// Len is the number of cells in the set.
func (m Mask) Len() int { return popcount(uint64(m)) }

// Cells lists the cells of the set in increasing order.
func (m Mask) Cells() []int {
	out := make([]int, 0, m.Len())
	for x := uint64(m); x != 0; x &= x - 1 {
		out = append(out, trailingZeros(x))
	}
	return out
}

// ColorMask is the set of cells of colour c.
func (b *Board) ColorMask(c Color) Mask {
	var m Mask
	for i := range b {
		if b[i].Color == c {
			m |= 1 << uint(i)
		}
	}
	return m
}

// Check verifies the board's shape: exactly seven stars of each colour, and every content
// well formed (a known kind, a valid supernova colour, a positive amount).
func (b *Board) Check() error {
	_, _, err := b.scan()
	return err
}

// scan checks the board's shape as Check does and, in the same pass, returns its colour masks
// and the set of stars that hide something, which evaluation and the canonical-form check need.
func (b *Board) scan() (cm [NumColors]Mask, filled Mask, err error) {
	for i := range b {
		s := &b[i]
		if !s.Color.Valid() {
			return cm, filled, fmt.Errorf("cell %d: colour %d is not one of the six colours", i, s.Color)
		}
		cm[s.Color] |= 1 << uint(i)
		switch s.Kind {
		case Empty:
			continue
		case MilkyWay, ShootingStar, Extra:
		case Amount:
			if s.Amount <= 0 {
				return cm, filled, fmt.Errorf("cell %d: amount %d is not positive", i, s.Amount)
			}
		case Supernova:
			if !s.Target.Valid() {
				return cm, filled, fmt.Errorf("cell %d: supernova colour %d is not one of the six colours", i, s.Target)
			}
		default:
			return cm, filled, fmt.Errorf("cell %d: unknown content kind %d", i, s.Kind)
		}
		filled |= 1 << uint(i)
	}
	for c, m := range cm {
		if n := m.Len(); n != PerColor {
			return cm, filled, fmt.Errorf("colour %s has %d stars, want %d", Color(c), n, PerColor)
		}
	}
	return cm, filled, nil
}

// Row and Col give a cell's position.
func Row(cell int) int { return cell / Cols }
func Col(cell int) int { return cell % Cols }
