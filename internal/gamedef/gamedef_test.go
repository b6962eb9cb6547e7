package gamedef

import (
	"os"
	"strings"
	"testing"
)

// The regulation's tables (Art. 3), written out here a second time by hand: a known-answer test
// that the shipped definition says exactly what the regulation says.
func TestDefaultIsTheRegulation(t *testing.T) {
	def, err := Lookup(Default)
	if err != nil {
		t.Fatal(err)
	}
	if def.BlockUnits != 1_000_000 {
		t.Fatalf("blocks of %d units, the regulation says 1 000 000", def.BlockUnits)
	}
	type row struct {
		euros     int64
		count     int
		composite bool
	}
	base := []row{{20000, 1, true}, {1000, 1, false}, {100, 10, false}, {12, 24100, true}, {4, 28000, false}, {2, 85000, false}, {1, 106800, false}, {0, 756088, false}}
	if len(def.Tables) != 3 {
		t.Fatalf("%d tables, want 3 (1, 2 and 3 EUR)", len(def.Tables))
	}
	for s := int64(1); s <= 3; s++ {
		table, err := def.Table(100 * s)
		if err != nil {
			t.Fatal(err)
		}
		if len(table.Tiers) != len(base) {
			t.Fatalf("%d EUR: %d tiers, want %d", s, len(table.Tiers), len(base))
		}
		for i, r := range base {
			want := Tier{Amount: r.euros * 100 * s, Count: r.count, Composite: r.composite}
			if table.Tiers[i] != want {
				t.Errorf("%d EUR tier %d: %+v, want %+v", s, i, table.Tiers[i], want)
			}
		}
		if got, want := table.Payout(), 700_000*100*s; got != want {
			t.Errorf("%d EUR: payout %d cents, want %d (70 %%)", s, got, want)
		}
		if got := table.Winners(); got != 243_912 {
			t.Errorf("%d EUR: %d winning units, want 243 912", s, got)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good, err := os.ReadFile("definitions/starcolor-fdj-2013.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(good); err != nil {
		t.Fatalf("shipped definition: %v", err)
	}
	tests := []struct{ name, old, new, want string }{
		{"unknown field", `"max_gains": 8`, `"max_gains": 8, "maxgains": 3`, "unknown field"},
		{"wrong format", `"starcolor-game/1"`, `"starcolor-game/2"`, "format"},
		{"counts not adding up", `{"amount": 0, "count": 756088}`, `{"amount": 0, "count": 756087}`, "add up"},
		{"composite amount shown", `[100, 200, 300, 400, 500, 600, 1000,`, `[100, 200, 300, 400, 500, 600, 1000, 1200,`, "composite"},
		{"amounts out of order", `[100, 200, 300,`, `[200, 100, 300,`, "increasing"},
		{"no losing tier", `{"amount": 0, "count": 756088}`, `{"amount": 50, "count": 756088}`, "losing"},
		{"duplicate price", `"price": 300`, `"price": 200`, "two tables"},
		{"rate above 100 %", `"extra_per_10000": 600`, `"extra_per_10000": 10001`, "extra_per_10000"},
		{"bad gains weights", `"gains_weights": [0, 100, 45, 20, 8, 4, 2, 1, 1]`, `"gains_weights": [0, 100]`, "gains_weights"},
		{"negative weight", `"milky_way": 40`, `"milky_way": -1`, "negative"},
		{"missing kind", `"milky_way": 40, `, ``, "kind_weights"},
		{"not JSON", `{`, `[`, "game definition"},
	}
	for _, tt := range tests {
		bad := strings.Replace(string(good), tt.old, tt.new, 1)
		if bad == string(good) {
			t.Fatalf("%s: the test's replacement does not apply", tt.name)
		}
		_, err := Parse([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
}

func TestUnknownPrice(t *testing.T) {
	def, _ := Lookup(Default)
	if _, err := def.Table(500); err == nil || !strings.Contains(err.Error(), "1 €, 2 €, 3 €") {
		t.Errorf("price 5 EUR: %v", err)
	}
	if _, err := Lookup("nope/1"); err == nil {
		t.Error("unknown version accepted")
	}
}

func TestFormatEUR(t *testing.T) {
	for cents, want := range map[int64]string{0: "0 €", 100: "1 €", 150: "1,50 €", 2000000: "20\u202f000 €", 6000000: "60\u202f000 €", -205: "-2,05 €", 100000000: "1\u202f000\u202f000 €"} {
		if got := FormatEUR(cents); got != want {
			t.Errorf("FormatEUR(%d) = %q, want %q", cents, got, want)
		}
	}
}
