package rules

import "fmt"

// Unit is the boards of one game unit: board 1 and, when the Extra stage happens, board 2.
// A stored unit is canonical (docs/spec/RULES.md §5): written as if colour 0 were selected.
type Unit struct {
	B1    Board
	HasB2 bool
	B2    Board
}

// UnitOutcome is what a unit reveals for a selected colour.
type UnitOutcome struct {
	B1, B2 Outcome
	Prize  int64 // gain(B1) + gain(B2), in cents
	Gains  int
}

// Evaluate reveals the unit for colour c. Board 2 counts only when board 1 reveals an Extra.
func (u *Unit) Evaluate(c Color) UnitOutcome {
	o := UnitOutcome{B1: Evaluate(&u.B1, c)}
	if o.B1.Extras > 0 && u.HasB2 {
		o.B2 = Evaluate(&u.B2, c)
	}
	o.Prize = o.B1.Gain + o.B2.Gain
	o.Gains = o.B1.Gains + o.B2.Gains
	return o
}

// Relabel returns the board as shown to a player who selected colour c: the colour labels 0 and
// c swapped everywhere, on stars and on supernovas (docs/spec/RULES.md §5).
func (b *Board) Relabel(c Color) Board {
	var out Board
	b.RelabelInto(&out, c)
	return out
}

// RelabelInto writes the board relabelled for colour c into dst, without allocating.
func (b *Board) RelabelInto(dst *Board, c Color) {
	perm := [NumColors]Color{0, 1, 2, 3, 4, 5}
	c %= NumColors
	perm[0], perm[c] = c, 0
	for i := range b {
		s := b[i]
		s.Color = perm[s.Color%NumColors]
		if s.Kind == Supernova {
			s.Target = perm[s.Target%NumColors]
		}
		dst[i] = s
	}
}

// Relabel returns the unit as shown for colour c.
func (u *Unit) Relabel(c Color) Unit {
	var out Unit
	u.RelabelInto(&out, c)
	return out
}

// RelabelInto writes the unit as shown for colour c into dst.
func (u *Unit) RelabelInto(dst *Unit, c Color) {
	u.B1.RelabelInto(&dst.B1, c)
	dst.HasB2 = u.HasB2
	if u.HasB2 {
		u.B2.RelabelInto(&dst.B2, c)
	}
}

// Check verifies that a canonical unit obeys every rule that does not depend on a prize table
// (docs/spec/RULES.md §3–§5):
//
//  1. both boards are well formed;
//  2. nothing is hidden outside what colour 0 reveals;
//  3. board 1 holds at most one Extra;
//  4. board 2 is present exactly when board 1 reveals an Extra, and holds no Extra.
//
// It returns the outcome for colour 0, so that callers need not evaluate twice.
func (u *Unit) Check() (UnitOutcome, error) {
	var o UnitOutcome
	var err error
	if o.B1, err = checkBoard(&u.B1); err != nil {
		return o, fmt.Errorf("board 1: %w", err)
	}
	if o.B1.Extras > 1 {
		return o, fmt.Errorf("board 1 holds %d Extra symbols, at most 1 is allowed", o.B1.Extras)
	}
	switch {
	case o.B1.Extras == 1 && !u.HasB2:
		return o, fmt.Errorf("board 1 reveals an Extra but board 2 is missing")
	case o.B1.Extras == 0 && u.HasB2:
		return o, fmt.Errorf("board 2 is present but board 1 reveals no Extra")
	}
	if u.HasB2 {
		if o.B2, err = checkBoard(&u.B2); err != nil {
			return o, fmt.Errorf("board 2: %w", err)
		}
		if o.B2.Extras > 0 {
			return o, fmt.Errorf("board 2 holds an Extra symbol, the Extra stage happens at most once")
		}
	}
	o.Prize = o.B1.Gain + o.B2.Gain
	o.Gains = o.B1.Gains + o.B2.Gains
	return o, nil
}

// checkBoard checks a canonical board's shape, evaluates it for colour 0, and checks docs/spec/RULES.md §5:
// a star that the rules never reveal hides nothing.
func checkBoard(b *Board) (Outcome, error) {
	cm, filled, err := b.scan()
	if err != nil {
		return Outcome{}, err
	}
	o := evaluate(b, &cm, 0)
	if hidden := filled &^ o.Revealed; hidden != 0 {
		i := trailingZeros(uint64(hidden))
		return o, fmt.Errorf("cell %d is never revealed but holds %s", i, b[i].Kind)
	}
	return o, nil
}
