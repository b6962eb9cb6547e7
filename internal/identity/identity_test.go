package identity

import (
	"strings"
	"testing"
)

func TestUsername(t *testing.T) {
	for in, want := range map[string]string{
		"alice":           "alice",
		"Élodie":          "Élodie",
		"E\u0301lodie":    "Élodie", // e and a combining acute: the composed form
		"Zoë.Müller-Łódź": "Zoë.Müller-Łódź",
		"Наташа":          "Наташа",
		"李小龙":             "李小龙",
		"x_9":             "x_9",
	} {
		got, err := Username(in)
		if err != nil || got != want {
			t.Errorf("Username(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ab", "_alice", ".x9", "a b c", "al/ice", "alice!", strings.Repeat("é", 33), "\xff\xfeabc", "ab\u0301"} {
		if got, err := Username(bad); err == nil {
			t.Errorf("Username(%q) accepted as %q", bad, got)
		}
	}
}

func TestUsernameKey(t *testing.T) {
	same := [][]string{
		{"Élodie", "élodie", "ÉLODIE", "E\u0301LODIE"},
		{"Straße", "STRASSE", "strasse"},
		{"Alice", "alice", "ALICE"},
	}
	for _, group := range same {
		for _, s := range group[1:] {
			if UsernameKey(s) != UsernameKey(group[0]) {
				t.Errorf("%q and %q differ: %q, %q", s, group[0], UsernameKey(s), UsernameKey(group[0]))
			}
		}
	}
	if UsernameKey("élodie") == UsernameKey("elodie") {
		t.Error("an accent is part of the name: élodie and elodie are two accounts")
	}
}

func FuzzUsername(f *testing.F) {
	for _, s := range []string{"alice", "Élodie", "E\u0301lodie", "\xff", "李小龙"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Username(s)
		if err != nil {
			return
		}
		if again, err := Username(u); err != nil || again != u {
			t.Fatalf("%q normalized to %q, which normalizes to %q, %v", s, u, again, err)
		}
		if UsernameKey(u) != UsernameKey(s) {
			t.Fatalf("the key of %q changed once normalized", s)
		}
	})
}
