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
		"ｄｅｍｏ":            "demo", // RFC 8265: full-width letters are the ordinary ones
		"Ｄｅｍｏ":            "Demo", // and keep their case
	} {
		got, err := Username(in)
		if err != nil || got != want {
			t.Errorf("Username(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ab", "_alice", ".x9", "a b c", "al/ice", "alice!", strings.Repeat("é", 33), "\xff\xfeabc", "ab\u0301",
		"x²yz", // PRECIS refuses other numbers (No), which the pattern alone took
		"ａｂ",   // two letters once widths are folded
	} {
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
		{"demo", "ｄｅｍｏ", "ＤＥＭＯ"},
	}
	for _, group := range same {
		for _, s := range group[1:] {
			if UsernameKey(s) != UsernameKey(group[0]) {
				t.Errorf("%q and %q differ: %q, %q", s, group[0], UsernameKey(s), UsernameKey(group[0]))
			}
		}
	}
	if UsernameKey("élodie") == UsernameKey("elodie") {
		t.Error("an accent is part of the name: élodie and elodie log into two accounts")
	}
	if UsernameKey("dеmo") == UsernameKey("demo") {
		t.Error("a Cyrillic е is another letter at login (only a new name is refused for looking alike)")
	}
	// Names kept from before RFC 8265 that it refuses keep the key they had.
	if got := UsernameKey("X²yz"); got != "x²yz" {
		t.Errorf("the key of a name PRECIS refuses: %q", got)
	}
}

// A new username may not read like one taken (docs/spec/API.md 1.2: a confusable one is 409).
func TestUsernameSkeleton(t *testing.T) {
	for _, alike := range []string{"demo", "DEMO", "ｄｅｍｏ", "dеmo" /* Cyrillic е */, "de.mo", "de_mo", "démo", "ᴅemo"} {
		if UsernameSkeleton(alike) != UsernameSkeleton("demo") {
			t.Errorf("%q does not read as demo: %q, %q", alike, UsernameSkeleton(alike), UsernameSkeleton("demo"))
		}
	}
	for _, other := range []string{"demos", "deno", "memo", "omed", "demo2"} {
		if UsernameSkeleton(other) == UsernameSkeleton("demo") {
			t.Errorf("%q taken for demo", other)
		}
	}
}

func TestPickUsername(t *testing.T) {
	both := []string{"demo", "ｄｅｍｏ"} // two accounts made before RFC 8265, one key after it
	for typed, want := range map[string]int{"demo": 0, "Demo": 0, "DEMO": 0, "ｄｅｍｏ": 1, "ＤＥＭＯ": 1, "ｄemo": 0} {
		if got := PickUsername(typed, both); got != want {
			t.Errorf("%q picks %q, want %q", typed, both[got], both[want])
		}
	}
	if PickUsername("ＡＬＩＣＥ", []string{"Alice"}) != 0 {
		t.Error("the only account")
	}
}

func FuzzUsername(f *testing.F) {
	for _, s := range []string{"alice", "Élodie", "E\u0301lodie", "\xff", "李小龙", "ｄｅｍｏ", "dеmo", "x²yz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		skel := UsernameSkeleton(s)
		if fold(skel) != skel {
			t.Fatalf("the skeleton of %q, %q, folds again to %q", s, skel, fold(skel))
		}
		PickUsername(s, []string{s, "demo"})
		u, err := Username(s)
		if err != nil {
			return
		}
		if again, err := Username(u); err != nil || again != u {
			t.Fatalf("%q normalized to %q, which normalizes to %q, %v", s, u, again, err)
		}
		if UsernameKey(u) != UsernameKey(s) || UsernameSkeleton(u) != skel {
			t.Fatalf("the key of %q changed once normalized", s)
		}
		if skel == "" {
			t.Fatalf("%q is a username that reads as nothing", u)
		}
	})
}
