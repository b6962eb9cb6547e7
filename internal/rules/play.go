package rules

import (
	"errors"
	"fmt"
)

// Errors of play. ErrInvalid is input outside the game's vocabulary (a colour or cell that does
// not exist); ErrIllegalMove is a well-formed move that the rules do not allow at this step.
var (
	ErrInvalid     = errors.New("invalid move")
	ErrIllegalMove = errors.New("illegal move")
)

// Cause says why a star was revealed.
type Cause uint8

// The causes of a reveal: the player's click, the automatic play (« Auto », the rest of a finished
// game, board 2), or an explosion by a symbol.
const (
	ByClick Cause = iota
	ByAuto
	ByMilkyWay
	BySupernova
	ByShootingStar
)

var causeNames = [...]string{"click", "auto", "milky_way", "supernova", "shooting_star"}

func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return fmt.Sprintf("Cause(%d)", uint8(c))
}

// Event is one star revealed, in reveal order. Board is 1 or 2; From is the cell whose symbol
// exploded the star, or -1 for a click or the automatic play.
type Event struct {
	Board int
	Cell  int
	Cause Cause
	From  int
}

// Stage is where a play stands.
type Stage uint8

// The stages of a play, as the API names them.
const (
	ChooseColor Stage = iota
	Playing
	Finished
)

func (s Stage) String() string {
	return [...]string{"choose_color", "playing", "finished"}[s]
}

// Play is the manual play of one unit (4.3–4.6):
//
//  1. choose a colour;
//  2. click the stars of that colour, in any order, each click revealing its cascade;
//  3. once board 1 is finished, board 2 plays by itself when an Extra was revealed.
//
// It holds the boards as shown for the chosen colour.
type Play struct {
	canonical Unit
	stage     Stage
	color     Color
	shown     [2]Board
	masks     [2][NumColors]Mask
	revealed  [2]Mask
	boards    int // boards begun: 1, or 2 once the Extra stage has begun
	events    []Event
}

// NewPlay starts the play of a canonical unit, waiting for a colour.
func NewPlay(u Unit) *Play {
	return &Play{canonical: u}
}

// Stage is the play's current stage.
func (p *Play) Stage() Stage { return p.stage }

// Color is the selected colour; meaningful once chosen.
func (p *Play) Color() Color { return p.color }

// Events lists every reveal so far, in order.
func (p *Play) Events() []Event { return p.events }

// Boards is the number of boards shown so far: 0 before a colour is chosen, then 1 or 2.
func (p *Play) Boards() int { return p.boards }

// Board returns board n (1 or 2) as shown for the selected colour, and the cells revealed on it.
func (p *Play) Board(n int) (*Board, Mask) { return &p.shown[n-1], p.revealed[n-1] }

// Won is the sum of the amounts revealed so far, in cents.
func (p *Play) Won() int64 {
	var sum int64
	for n := range p.boards {
		for x := uint64(p.revealed[n]); x != 0; x &= x - 1 {
			if s := &p.shown[n][trailingZeros(x)]; s.Kind == Amount {
				sum += s.Amount
			}
		}
	}
	return sum
}

// ChooseColor selects the colour (4.3) and shows board 1 relabelled for it.
func (p *Play) ChooseColor(c Color) error {
	if !c.Valid() {
		return fmt.Errorf("%w: colour %d is not one of the six colours (0 to 5)", ErrInvalid, c)
	}
	if p.stage != ChooseColor {
		return fmt.Errorf("%w: the colour is already chosen", ErrIllegalMove)
	}
	p.color = c
	p.shown[0] = p.canonical.B1.Relabel(c)
	p.masks[0] = p.shown[0].ColorMasks()
	p.boards = 1
	p.stage = Playing
	return nil
}

// Click reveals a star of the selected colour on board 1 and its cascade (4.4–4.5). It returns the
// events it added, which include board 2's automatic play when this click finishes board 1.
func (p *Play) Click(cell int) ([]Event, error) {
	if cell < 0 || cell >= Cells {
		return nil, fmt.Errorf("%w: cell %d is not on the board (0 to %d)", ErrInvalid, cell, Cells-1)
	}
	switch {
	case p.stage == ChooseColor:
		return nil, fmt.Errorf("%w: choose a colour first", ErrIllegalMove)
	case p.stage == Finished:
		return nil, fmt.Errorf("%w: the game is finished", ErrIllegalMove)
	case p.shown[0][cell].Color != p.color:
		return nil, fmt.Errorf("%w: cell %d is %s, not the selected colour %s", ErrIllegalMove, cell, p.shown[0][cell].Color, p.color)
	case p.revealed[0].Has(cell):
		return nil, fmt.Errorf("%w: cell %d is already revealed", ErrIllegalMove, cell)
	}
	start := len(p.events)
	p.cascade(0, cell, ByClick)
	p.afterBoard1()
	return p.events[start:], nil
}

// Finish plays every remaining step as « Auto » does: the remaining stars of the selected colour
// in cell order, then board 2 when it comes. The colour must be chosen first.
func (p *Play) Finish() ([]Event, error) {
	switch p.stage {
	case ChooseColor:
		return nil, fmt.Errorf("%w: choose a colour first", ErrIllegalMove)
	case Finished:
		return nil, fmt.Errorf("%w: the game is finished", ErrIllegalMove)
	}
	start := len(p.events)
	p.autoBoard(0)
	p.afterBoard1()
	return p.events[start:], nil
}

// Auto plays a whole unit for colour c at once, as the « Auto » button does (4.1).
func Auto(u Unit, c Color) (*Play, error) {
	p := NewPlay(u)
	if err := p.ChooseColor(c); err != nil {
		return nil, err
	}
	if _, err := p.Finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// afterBoard1 moves on once every star of the selected colour on board 1 is revealed: board 2
// appears and plays by itself when an Extra was revealed (4.6.1), and the play is finished.
func (p *Play) afterBoard1() {
	if p.masks[0][p.color]&^p.revealed[0] != 0 {
		return
	}
	if p.canonical.HasB2 && p.revealedExtra() {
		p.shown[1] = p.canonical.B2.Relabel(p.color)
		p.masks[1] = p.shown[1].ColorMasks()
		p.boards = 2
		p.autoBoard(1)
	}
	p.stage = Finished
}

func (p *Play) revealedExtra() bool {
	for x := uint64(p.revealed[0]); x != 0; x &= x - 1 {
		if p.shown[0][trailingZeros(x)].Kind == Extra {
			return true
		}
	}
	return false
}

// autoBoard reveals, in cell order, each unrevealed star of the selected colour with its cascade.
func (p *Play) autoBoard(n int) {
	for x := uint64(p.masks[n][p.color]); x != 0; x &= x - 1 {
		if cell := trailingZeros(x); !p.revealed[n].Has(cell) {
			p.cascade(n, cell, ByAuto)
		}
	}
}

// cascade reveals one star and then, breadth first, every star its symbols explode (4.5.5).
// Stars exploded together are revealed in cell order.
func (p *Play) cascade(n, cell int, cause Cause) {
	b, cm := &p.shown[n], &p.masks[n]
	var queue [Cells]int
	head, tail := 0, 0
	p.revealed[n] |= 1 << uint(cell)
	p.events = append(p.events, Event{Board: n + 1, Cell: cell, Cause: cause, From: -1})
	queue[tail] = cell
	tail++
	for head < tail {
		from := queue[head]
		head++
		fresh := explodes(b, cm, from) &^ p.revealed[n]
		if fresh == 0 {
			continue
		}
		by := ByMilkyWay + Cause(b[from].Kind-MilkyWay)
		p.revealed[n] |= fresh
		for x := uint64(fresh); x != 0; x &= x - 1 {
			i := trailingZeros(x)
			p.events = append(p.events, Event{Board: n + 1, Cell: i, Cause: by, From: from})
			queue[tail] = i
			tail++
		}
	}
}
