package identity

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Durand":         "durand",
		"Durаnd":         "durand", // a Cyrillic а
		"Durandʼ":        "durand",
		"D urand":        "durand",
		"DÛRAND":         "durand",
		"Boʙ":            "bob", // a small capital
		"ᴅᴜʀᴀɴᴅ":         "durand",
		"B-ob":           "bob",
		"ﬁlle":           "fille",  // a compatibility ligature
		"ｄｕｒａｎｄ":         "durand", // full width
		"Straße":         "strasse",
		"Le Bris-Müller": "lebrisrnuller", // "m" and "rn" read alike: both sides are folded
		"Łódź":           "lodz",
		"%":              "oo", // two rounds: "º/₀" is "o0", then "oo"
		"!?.-' ":         "",
	} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
	if len(smallCapitals()) < 20 || smallCapitals()['ʙ'] != 'b' || smallCapitals()['ᴀ'] != 'a' {
		t.Errorf("the Latin small capitals from Unicode's names: %d, %q", len(smallCapitals()), smallCapitals()['ʙ'])
	}
	if _, ok := smallCapitals()['\u1D03']; ok { // U+1D03 LATIN LETTER SMALL CAPITAL BARRED B reads otherwise
		t.Error("a barred small capital taken as its letter")
	}
	if !strings.HasPrefix(KeyScheme(), "2 ") {
		t.Errorf("KeyScheme %q", KeyScheme())
	}
}

// Whatever the string, folding it does not panic, and a folded string folds to itself (the
// rounds of fold reach a fixed point).
func FuzzFold(f *testing.F) {
	for _, s := range []string{"Durаnd", "Boʙ", "%", "ᛖ", "‱", "ǃ", "\xff", "ｄｅｍｏ", "Ϛ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := fold(s)
		if again := fold(k); again != k {
			t.Fatalf("fold(%q) = %q, which folds to %q", s, k, again)
		}
		for _, r := range k {
			if r == ' ' || r == '-' || r == '\'' {
				t.Fatalf("fold(%q) = %q keeps punctuation", s, k)
			}
		}
	})
}
