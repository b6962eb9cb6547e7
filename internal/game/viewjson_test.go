package game

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// AppendJSON writes what json.Marshal writes, for games of every shape: hidden and revealed
// cells of every kind, no colour yet, events with and without a source, one or two boards.
func TestAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ptr := func(n int) *int { return &n }
	strs := []string{"auto", "manual", "finished", "", `quote " and \ back`, "<b>&</b>", "tab\tnew\nline\r\x01\x1f", "é ★ \u2028\u2029", "bad \xff utf8"}
	for n := range 2000 {
		v := &View{ID: rng.Int64(), Stake: rng.Int64N(400) - 50, Mode: strs[rng.IntN(len(strs))], Status: strs[rng.IntN(len(strs))],
			Prize: rng.Int64(), Balance: -rng.Int64(), CreatedAt: "2026-11-30T01:02:03Z",
			Unit: &UnitRef{Emission: strs[rng.IntN(len(strs))], Block: rng.IntN(9), Index: rng.IntN(1_000_000)}}
		if n%7 == 0 { // a demo game's: on no unit of an emission
			v.Unit, v.Demo = nil, true
		}
		if rng.IntN(3) > 0 {
			v.Color = ptr(rng.IntN(6))
		}
		if n%50 != 0 { // the zero View has nil slices: "null", as json.Marshal writes them
			v.Boards, v.Events = []BoardView{}, []EventView{}
		}
		for range rng.IntN(3) {
			var bv BoardView
			for i := range bv.Colors {
				bv.Colors[i] = rng.IntN(6)
				switch rng.IntN(5) {
				case 1:
					amount := rng.Int64N(1_000_000)
					bv.Cells[i] = &CellView{Kind: "amount", Amount: &amount}
				case 2:
					bv.Cells[i] = &CellView{Kind: "supernova", Color: ptr(rng.IntN(6))}
				case 3:
					bv.Cells[i] = &CellView{Kind: "shooting_star", Direction: "rising"}
				case 4:
					bv.Cells[i] = &CellView{Kind: strs[rng.IntN(len(strs))]}
				}
			}
			v.Boards = append(v.Boards, bv)
		}
		for range rng.IntN(20) {
			e := EventView{Board: 1 + rng.IntN(2), Cell: rng.IntN(42), Cause: strs[rng.IntN(len(strs))]}
			if rng.IntN(2) == 0 {
				e.From = ptr(rng.IntN(42))
			}
			v.Events = append(v.Events, e)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("AppendJSON:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}

// Every string comes out as encoding/json quotes it.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `"\`, "<>&", "\x00\x1f\x7f", "\u2028", "\xff\xfe", "é★"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: %s, json.Marshal: %s", s, got, want)
		}
	})
}

func BenchmarkViewJSON(b *testing.B) {
	v := &View{ID: 123456, Stake: 100, Mode: "auto", Status: "finished", Prize: 500, Balance: 99900, CreatedAt: "2026-11-30T01:02:03Z",
		Unit: &UnitRef{Emission: "20261130-003442-1eur", Block: 0, Index: 4242}, Boards: make([]BoardView, 2), Events: make([]EventView, 30)}
	for i := range v.Boards[0].Cells {
		a := int64(100)
		v.Boards[0].Cells[i] = &CellView{Kind: "amount", Amount: &a}
	}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(v)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			v.AppendJSON(make([]byte, 0, 4096))
		}
	})
}
