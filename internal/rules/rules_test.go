package rules

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// cells builds a mask from cell indexes.
func cells(idx ...int) Mask {
	var m Mask
	for _, i := range idx {
		m |= 1 << uint(i)
	}
	return m
}

func TestGeometry(t *testing.T) {
	tests := []struct {
		name string
		got  Mask
		want Mask
	}{
		{"contact of the top-left corner", Contact(0), cells(1, 7, 8)},
		{"contact of the bottom-right corner", Contact(41), cells(33, 34, 40)},
		{"contact of row 2 column 3", Contact(17), cells(9, 10, 11, 16, 18, 23, 24, 25)},
		{"contact of a left edge cell", Contact(14), cells(7, 8, 15, 21, 22)},
		// Row 2 column 3: row+column = 5 rising (↗), row−column = −1 falling (↘).
		{"rising diagonal through row 2 column 3", Diagonal(17, true), cells(5, 11, 23, 29, 35)},
		{"falling diagonal through row 2 column 3", Diagonal(17, false), cells(1, 9, 25, 33, 41)},
		{"rising diagonal through a corner", Diagonal(0, true), 0},
		{"falling diagonal through the top-left corner", Diagonal(0, false), cells(8, 16, 24, 32, 40)},
		{"rising diagonal through the bottom-left corner", Diagonal(35, true), cells(29, 23, 17, 11, 5)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got.Cells(), tt.want.Cells())
		}
	}
}

// stripes is a board whose star at cell i has colour i mod 6: seven of each colour.
func stripes() Board {
	var b Board
	for i := range b {
		b[i].Color = Color(i % NumColors)
	}
	return b
}

func TestRevealKnownBoard(t *testing.T) {
	b := stripes()
	// Colour 0 is at cells 0, 6, 12, 18, 24, 30, 36.
	b[6] = Star{Color: 0, Kind: MilkyWay}                    // explodes 5, 12, 13 (contact of row 0 col 6: 5, 12, 13)
	b[13] = Star{Color: 1, Kind: Supernova, Target: 4}       // chained: all of colour 4 (4, 10, 16, 22, 28, 34, 40)
	b[40] = Star{Color: 4, Kind: ShootingStar, Rising: true} // chained again: row 5 col 5, r+c = 10: cells 34 (4,6)
	b[24] = Star{Color: 0, Kind: Amount, Amount: 400}
	b[22] = Star{Color: 4, Kind: Amount, Amount: 200}
	b[2] = Star{Color: 2, Kind: Amount, Amount: 99900} // never revealed
	want := cells(0, 6, 12, 18, 24, 30, 36) | cells(5, 13) | cells(4, 10, 16, 22, 28, 34, 40)
	if got := Reveal(&b, 0); got != want {
		t.Fatalf("R = %v, want %v", got.Cells(), want.Cells())
	}
	o := Evaluate(&b, 0)
	if o.Gain != 600 || o.Gains != 2 {
		t.Errorf("gain %d in %d gains, want 600 in 2", o.Gain, o.Gains)
	}
	if o.Symbols != [3]int{1, 1, 1} || o.Chained != 2 {
		t.Errorf("symbols %v chained %d, want [1 1 1] and 2", o.Symbols, o.Chained)
	}
	if o.Exploded != want.Len()-PerColor {
		t.Errorf("exploded %d, want %d", o.Exploded, want.Len()-PerColor)
	}
}

// randomBoard draws any board: seven stars of each colour, any content anywhere (not
// necessarily canonical), so that properties are tested beyond what the generator makes.
func randomBoard(rng *rand.Rand) Board {
	var b Board
	for i := range b {
		b[i].Color = Color(i / PerColor)
	}
	rng.Shuffle(Cells, func(i, j int) { b[i].Color, b[j].Color = b[j].Color, b[i].Color })
	for i := range b {
		switch x := rng.IntN(20); {
		case x < 8:
		case x < 12:
			b[i].Kind, b[i].Amount = Amount, int64(100*(1+rng.IntN(20)))
		case x < 14:
			b[i].Kind = MilkyWay
		case x < 16:
			b[i].Kind, b[i].Target = Supernova, Color(rng.IntN(NumColors))
		case x < 19:
			b[i].Kind, b[i].Rising = ShootingStar, rng.IntN(2) == 0
		default:
			b[i].Kind = Extra
		}
	}
	return b
}

// Property: R does not depend on the order of the clicks (4.1 « dans l'ordre souhaité »), and the
// events of a play reveal each cell of R once, each explosion coming from a revealed symbol.
func TestClickOrderDoesNotMatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		u := Unit{B1: randomBoard(rng)}
		c := Color(rng.IntN(NumColors))
		// Play shows the board relabelled for c; on the shown board, colour c reveals R.
		shown := u.B1.Relabel(c)
		want := Reveal(&shown, c)
		p := NewPlay(u)
		if err := p.ChooseColor(c); err != nil {
			t.Fatal(err)
		}
		order := shown.ColorMask(c).Cells()
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, cell := range order {
			_, got := p.Board(1)
			if got.Has(cell) {
				if _, err := p.Click(cell); !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("board %d: clicking revealed cell %d: %v, want ErrIllegalMove", n, cell, err)
				}
				continue
			}
			if _, err := p.Click(cell); err != nil {
				t.Fatalf("board %d: click %d: %v", n, cell, err)
			}
		}
		b, got := p.Board(1)
		if got != want {
			t.Fatalf("board %d colour %d: clicks revealed %v, R is %v", n, c, got.Cells(), want.Cells())
		}
		if p.Stage() != Finished {
			t.Fatalf("board %d: stage %v after every click", n, p.Stage())
		}
		checkEvents(t, b, p.Events(), want)
	}
}

func checkEvents(t *testing.T, b *Board, events []Event, want Mask) {
	t.Helper()
	var seen Mask
	cm := b.ColorMasks()
	for _, e := range events {
		if e.Board != 1 {
			continue
		}
		if seen.Has(e.Cell) {
			t.Fatalf("cell %d revealed twice", e.Cell)
		}
		if e.Cause == ByClick || e.Cause == ByAuto {
			if e.From != -1 {
				t.Fatalf("a %v has a source cell", e.Cause)
			}
		} else {
			if !seen.Has(e.From) || !explodes(b, &cm, e.From).Has(e.Cell) {
				t.Fatalf("cell %d exploded by %v from %d, which is not a revealed symbol exploding it", e.Cell, e.Cause, e.From)
			}
			if want := ByMilkyWay + Cause(b[e.From].Kind-MilkyWay); e.Cause != want {
				t.Fatalf("cell %d: cause %v, the symbol at %d is %v", e.Cell, e.Cause, e.From, b[e.From].Kind)
			}
		}
		seen |= 1 << uint(e.Cell)
	}
	if seen != want {
		t.Fatalf("events reveal %v, R is %v", seen.Cells(), want.Cells())
	}
}

// Property: relabelling the colours (docs/spec/RULES.md §5) changes neither the revealed cells nor the prize.
func TestRelabellingKeepsTheOutcome(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		u := Unit{B1: randomBoard(rng), HasB2: true, B2: randomBoard(rng)}
		want := u.Evaluate(0)
		every1, every2 := RevealEveryColor(&u.B1), RevealEveryColor(&u.B2)
		for c := range Color(NumColors) {
			shown := u.Relabel(c)
			got := shown.Evaluate(c)
			if got.B1.Revealed != want.B1.Revealed || got.B2.Revealed != want.B2.Revealed || got.Prize != want.Prize {
				t.Fatalf("colour %d reveals %v for %d, colour 0 %v for %d", c, got.B1.Revealed.Cells(), got.Prize, want.B1.Revealed.Cells(), want.Prize)
			}
			if every1[c] != want.B1.Revealed || every2[c] != Reveal(&u.B2, 0) {
				t.Fatalf("RevealEveryColor disagrees with Relabel for colour %d", c)
			}
			if back := shown.Relabel(c); back != u {
				t.Fatalf("relabelling twice for colour %d does not give the unit back", c)
			}
		}
	}
}

// Property: the manual play, the automatic play and Evaluate agree on what is won.
func TestPlayAgreesWithEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		u := Unit{B1: randomBoard(rng), HasB2: true, B2: randomBoard(rng)}
		c := Color(rng.IntN(NumColors))
		p, err := Auto(u, c)
		if err != nil {
			t.Fatal(err)
		}
		want := u.Evaluate(0)
		if p.Won() != want.Prize {
			t.Fatalf("auto play won %d, Evaluate says %d", p.Won(), want.Prize)
		}
		if wantBoards := 1 + btoi(want.B1.Extras > 0); p.Boards() != wantBoards {
			t.Fatalf("%d boards shown, want %d", p.Boards(), wantBoards)
		}
		for _, e := range p.Events() {
			if e.Board == 1 && e.Cause == ByClick || e.Board == 2 && e.Cause == ByClick {
				t.Fatal("an automatic play has a click")
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestExtraStage(t *testing.T) {
	u := Unit{B1: stripes(), HasB2: true, B2: stripes()}
	u.B1[0] = Star{Color: 0, Kind: Extra}
	u.B2[6] = Star{Color: 0, Kind: Amount, Amount: 1200}
	u.B2[7] = Star{Color: 1, Kind: Amount, Amount: 5000} // outside R on board 2
	p := NewPlay(u)
	if err := p.ChooseColor(3); err != nil {
		t.Fatal(err)
	}
	shown, _ := p.Board(1)
	mine := shown.ColorMask(3).Cells()
	for k, cell := range mine {
		evs, err := p.Click(cell)
		if err != nil {
			t.Fatal(err)
		}
		last := k == len(mine)-1
		if !last && (p.Stage() != Playing || p.Boards() != 1) {
			t.Fatalf("after %d clicks: stage %v with %d boards, want playing on board 1", k+1, p.Stage(), p.Boards())
		}
		if last {
			// The last click finishes board 1; board 2 then plays by itself.
			var auto int
			for _, e := range evs {
				if e.Board == 2 {
					if e.Cause != ByAuto {
						t.Fatalf("board 2 event %+v is not automatic", e)
					}
					auto++
				}
			}
			if auto != PerColor {
				t.Fatalf("board 2 revealed %d stars, want the %d of the colour", auto, PerColor)
			}
		}
	}
	if p.Stage() != Finished || p.Boards() != 2 || p.Won() != 1200 {
		t.Fatalf("stage %v boards %d won %d, want finished, 2, 1200", p.Stage(), p.Boards(), p.Won())
	}
}

func TestIllegalMoves(t *testing.T) {
	u := Unit{B1: stripes()}
	p := NewPlay(u)
	if _, err := p.Click(0); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("click before a colour: %v", err)
	}
	if _, err := p.Finish(); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("finish before a colour: %v", err)
	}
	if err := p.ChooseColor(6); !errors.Is(err, ErrInvalid) {
		t.Errorf("colour 6: %v", err)
	}
	if err := p.ChooseColor(2); err != nil {
		t.Fatal(err)
	}
	if err := p.ChooseColor(3); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("second colour: %v", err)
	}
	for _, cell := range []int{-1, 42, 1000} {
		if _, err := p.Click(cell); !errors.Is(err, ErrInvalid) {
			t.Errorf("cell %d: %v", cell, err)
		}
	}
	// Relabelled for colour 2, the stars of colour 2 are those of colour 0 in stripes: cells 0, 6…
	if _, err := p.Click(1); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("a star of another colour: %v", err)
	}
	if _, err := p.Click(6); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Click(6); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("a revealed star: %v", err)
	}
	before := slices.Clone(p.Events())
	if _, err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Click(0); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("click after the end: %v", err)
	}
	if _, err := p.Finish(); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("finish after the end: %v", err)
	}
	if !slices.Equal(p.Events()[:len(before)], before) {
		t.Error("finishing rewrote earlier events")
	}
}

func TestUnitCheck(t *testing.T) {
	ok := Unit{B1: stripes()}
	ok.B1[0] = Star{Color: 0, Kind: Amount, Amount: 200}
	if _, err := ok.Check(); err != nil {
		t.Fatalf("valid unit: %v", err)
	}
	tests := []struct {
		name   string
		change func(u *Unit)
	}{
		{"content outside R", func(u *Unit) { u.B1[1].Kind, u.B1[1].Amount = Amount, 100 }},
		{"eight stars of a colour", func(u *Unit) { u.B1[1].Color = 0 }},
		{"colour 6", func(u *Unit) { u.B1[1].Color = 6 }},
		{"zero amount", func(u *Unit) { u.B1[6].Kind = Amount }},
		{"supernova of colour 7", func(u *Unit) { u.B1[6].Kind, u.B1[6].Target = Supernova, 7 }},
		{"extra without board 2", func(u *Unit) { u.B1[6].Kind = Extra }},
		{"board 2 without extra", func(u *Unit) { u.HasB2, u.B2 = true, stripes() }},
		{"two extras", func(u *Unit) {
			u.B1[6].Kind, u.B1[12].Kind = Extra, Extra
			u.HasB2, u.B2 = true, stripes()
		}},
		{"extra on board 2", func(u *Unit) {
			u.B1[6].Kind = Extra
			u.HasB2, u.B2 = true, stripes()
			u.B2[0].Kind = Extra
		}},
		{"content outside R on board 2", func(u *Unit) {
			u.B1[6].Kind = Extra
			u.HasB2, u.B2 = true, stripes()
			u.B2[1].Kind = MilkyWay
		}},
	}
	for _, tt := range tests {
		u := ok
		tt.change(&u)
		if _, err := u.Check(); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func BenchmarkEvaluate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	boards := make([]Board, 1024)
	for i := range boards {
		boards[i] = randomBoard(rng)
	}
	var sink int64
	for i := 0; b.Loop(); i++ {
		sink += Evaluate(&boards[i%len(boards)], 0).Gain
	}
	_ = sink
}
