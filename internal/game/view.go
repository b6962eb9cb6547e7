package game

import (
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

// View is a game as the player API shows it (docs/spec/API.md): what the rules have revealed so far for
// the colour chosen, and nothing else.
type View struct {
	ID        int64       `json:"id"`
	Stake     int64       `json:"stake"`
	Mode      string      `json:"mode"`
	Status    string      `json:"status"`
	Prize     int64       `json:"prize"`
	Balance   int64       `json:"balance"`
	CreatedAt string      `json:"created_at"`
	Unit      *UnitRef    `json:"unit"` // null for a demo game: it is on no unit of an emission
	Color     *int        `json:"color"`
	Boards    []BoardView `json:"boards"`
	Events    []EventView `json:"events"`
	Demo      bool        `json:"demo,omitempty"` // a demo game's (docs/spec/API.md 1.2): play money
}

// UnitRef names the unit a game was sold.
type UnitRef struct {
	Emission string `json:"emission"`
	Block    int    `json:"block"`
	Index    int    `json:"index"`
}

// BoardView is a board as shown for the chosen colour: every star's colour, and the content of
// the stars revealed (null while hidden).
type BoardView struct {
	Colors [rules.Cells]int       `json:"colors"`
	Cells  [rules.Cells]*CellView `json:"cells"`
}

// CellView is a revealed star's content.
type CellView struct {
	Kind      string `json:"kind"`
	Amount    *int64 `json:"amount,omitempty"`
	Color     *int   `json:"color,omitempty"`
	Direction string `json:"direction,omitempty"`
}

// EventView is one star revealed, in order.
type EventView struct {
	Board int    `json:"board"`
	Cell  int    `json:"cell"`
	Cause string `json:"cause"`
	From  *int   `json:"from,omitempty"`
}

// view renders a stored game, replayed on its unit.
func view(g *lottery.Game, p *rules.Play) *View {
	v := &View{
		ID: g.ID, Stake: g.Stake, Mode: g.Mode, Status: g.Status, Prize: g.Prize, Balance: g.BalanceAfter,
		CreatedAt: g.CreatedAt.UTC().Format(time.RFC3339),
		Unit:      &UnitRef{Emission: g.Emission, Block: g.Block, Index: g.Unit},
		Boards:    []BoardView{},
		Events:    []EventView{},
	}
	if g.Color >= 0 {
		c := g.Color
		v.Color = &c
	}
	for n := 1; n <= p.Boards(); n++ {
		b, revealed := p.Board(n)
		var bv BoardView
		for i := range b {
			bv.Colors[i] = int(b[i].Color)
			if revealed.Has(i) {
				bv.Cells[i] = cellView(&b[i])
			}
		}
		v.Boards = append(v.Boards, bv)
	}
	for _, e := range p.Events() {
		ev := EventView{Board: e.Board, Cell: e.Cell, Cause: e.Cause.String()}
		if e.From >= 0 {
			from := e.From
			ev.From = &from
		}
		v.Events = append(v.Events, ev)
	}
	return v
}

func cellView(s *rules.Star) *CellView {
	c := &CellView{Kind: s.Kind.String()}
	switch s.Kind {
	case rules.Amount:
		a := s.Amount
		c.Amount = &a
	case rules.Supernova:
		t := int(s.Target)
		c.Color = &t
	case rules.ShootingStar:
		c.Direction = "falling"
		if s.Rising {
			c.Direction = "rising"
		}
	}
	return c
}
