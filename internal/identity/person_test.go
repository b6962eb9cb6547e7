package identity

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

func day(s string) time.Time {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParsePerson(t *testing.T) {
	today := day("2026-11-30").Add(15 * time.Hour)
	p, err := ParsePerson("  O'Brien ", "Élodie   Marie", "1990-02-28", today)
	if err != nil || p.LastName != "O'Brien" || p.FirstNames != "Élodie Marie" || !p.BirthDate.Equal(day("1990-02-28")) {
		t.Fatalf("%+v %v", p, err)
	}
	// Names in the Latin script, with accents, apostrophes and hyphens, as French ones are.
	for _, c := range []struct{ last, first string }{
		{"Noël", "Éloïse"}, {"D'Artagnan", "Charles"}, {"Le Bris-Müller", "Anne-Sophie"}, {"Durandʼ", "Boʙ"}, {"N’Diaye", "Aïssatou"},
	} {
		if p, err := ParsePerson(c.last, c.first, "1990-01-01", today); err != nil || p.LastName != c.last || p.FirstNames != c.first {
			t.Errorf("%q %q: %+v %v", c.first, c.last, p, err)
		}
	}
	// Letters of another script: ErrScript, with the person as written, to be compared still.
	for _, c := range []struct{ last, first string }{{"Дюран", "Боб"}, {"Durаnd", "Bob"}, {"Durand", "Βob"}, {"Ντυράν", "Bob"}} {
		if p, err := ParsePerson(c.last, c.first, "1990-01-01", today); !errors.Is(err, ErrScript) || p.LastName != c.last || p.FirstNames != c.first {
			t.Errorf("%q %q: %+v %v, want ErrScript", c.first, c.last, p, err)
		}
	}
	for _, c := range []struct{ last, first, birth string }{
		{"ǃ", "Marie", "1990-01-01"}, // a Latin letter that reads as "!": no name at all
		{"Dupont", "Marie·Anne", "1990-01-01"},
		{"", "Marie", "1990-01-01"},
		{"Dupont", "   ", "1990-01-01"},
		{"Dupont", "Marie2", "1990-01-01"},
		{"Dupont", "<script>", "1990-01-01"},
		{"---", "Marie", "1990-01-01"},
		{"Dupont", "Marie", "1990-02-30"},
		{"Dupont", "Marie", "1990-2-3"},
		{"Dupont", "Marie", "30/01/1990"},
		{"Dupont", "Marie", "2026-12-01"}, // tomorrow
		{"Dupont", "Marie", "1890-01-01"},
		{"Dupont", "Marie", ""},
		{"Dupont\xff", "Marie", "1990-01-01"},
	} {
		if _, err := ParsePerson(c.last, c.first, c.birth, today); err == nil {
			t.Errorf("%q %q %q was taken", c.last, c.first, c.birth)
		}
	}
}

func TestAdult(t *testing.T) {
	for _, c := range []struct {
		birth, on string
		age       int
	}{
		{"2008-11-30", "2026-11-30", 18}, // the 18th birthday itself
		{"2008-12-01", "2026-11-30", 17}, // the day before it
		{"2008-02-29", "2026-02-28", 17}, // born on 29 February: not yet
		{"2008-02-29", "2026-03-01", 18}, // 1 March in a year without 29 February
		{"2008-02-29", "2028-02-29", 20},
		{"1990-06-15", "2026-06-14", 35},
		{"1990-06-15", "2026-06-15", 36},
	} {
		p := Person{LastName: "X", FirstNames: "Y", BirthDate: day(c.birth)}
		on := day(c.on).Add(23*time.Hour + 59*time.Minute)
		if got := p.AgeOn(on); got != c.age {
			t.Errorf("born %s, on %s: %d years old, want %d", c.birth, c.on, got, c.age)
		}
		if p.Adult(on) != (c.age >= 18) {
			t.Errorf("born %s, on %s: adult %v", c.birth, c.on, p.Adult(on))
		}
	}
}

func TestPersonKey(t *testing.T) {
	a := Person{LastName: "O'Brien", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-02")}
	for _, same := range []Person{
		{LastName: "o brien", FirstNames: "ÉLODIE  MARIE", BirthDate: day("1990-01-02")},
		{LastName: "O’Brien", FirstNames: "E\u0301lodie-Marie", BirthDate: day("1990-01-02")},
		{LastName: "OBrien", FirstNames: "Élodie Marie", BirthDate: day("1990-01-02")},  // punctuation folded
		{LastName: "OʼBrıen", FirstNames: "Éʟodie Marie", BirthDate: day("1990-01-02")}, // U+02BC, a dotless ı, a small capital ʟ
	} {
		if a.Key() != same.Key() {
			t.Errorf("%q and %q differ", a.Key(), same.Key())
		}
	}
	for _, other := range []Person{
		{LastName: "O'Brien", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-03")},
		{LastName: "O'Brian", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-02")},
		{LastName: "O'Brien", FirstNames: "Élodie", BirthDate: day("1990-01-02")}, // the same person may be (SamePerson), not the same Key
	} {
		if a.Key() == other.Key() {
			t.Errorf("%v and %v are taken as one", a, other)
		}
	}
	if got, want := (Person{LastName: "Łódź-Müller", FirstNames: "Zoë", BirthDate: day("2000-01-01")}).Key(), "lodzrnuller|zoe|2000-01-01"; got != want {
		t.Errorf("key %q, want %q", got, want)
	}
}

// The attack of issue 19: after Bob Durand excluded himself, accounts opened under names that
// read as his. Each is the same person; other persons are not.
func TestSamePerson(t *testing.T) {
	bob := Person{LastName: "Durand", FirstNames: "Bob", BirthDate: day("1990-01-01")}
	for _, alike := range []struct{ last, first string }{
		{"Durаnd", "Bob"},  // a Cyrillic а (U+0430)
		{"Durand", "Bоb"},  // a Cyrillic о (U+043E)
		{"Durandʼ", "Bob"}, // the modifier letter apostrophe (U+02BC)
		{"Durand", "Boʙ"},  // LATIN LETTER SMALL CAPITAL B (U+0299)
		{"Durand", "B-ob"}, // a hyphen inside
		{"D urand", "Bob"}, // a space inside
		{"Durand", "Bob Marie"},
		{"DURAND", "bob"},
		{"Dûrand", "Bòb"},
		{"Durand", "Marie Bob"}, // another order
	} {
		p := Person{LastName: alike.last, FirstNames: alike.first, BirthDate: bob.BirthDate}
		if !SamePerson(p, bob) || !SamePerson(bob, p) {
			t.Errorf("%q %q is not taken for Bob Durand", alike.first, alike.last)
		}
		if p.LookupKey() != bob.LookupKey() {
			t.Errorf("%q %q is looked up under %q, Bob Durand under %q", alike.first, alike.last, p.LookupKey(), bob.LookupKey())
		}
	}
	for _, other := range []Person{
		{LastName: "Durand", FirstNames: "Bob", BirthDate: day("1990-01-02")},
		{LastName: "Durant", FirstNames: "Bob", BirthDate: bob.BirthDate},
		{LastName: "Durand", FirstNames: "Bobby", BirthDate: bob.BirthDate},
		{LastName: "Durand", FirstNames: "Robert", BirthDate: bob.BirthDate},
	} {
		if SamePerson(other, bob) || SamePerson(bob, other) {
			t.Errorf("%v taken for Bob Durand", other)
		}
	}
}

// First names match, in both directions, when one's begin with all of the other's at a name's
// end, or when they share a whole name of two letters or more.
func TestGivenNamesMatch(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		match bool
	}{
		{"Bob", "Bob", true},
		{"Bob", "Bob Marie", true},
		{"Bob", "B ob Marie", true},
		{"Bob", "Bob-Marie", true},
		{"Bob Marie", "Bob", true},
		{"B ob", "Bob Marie", true},
		{"Jean Ne", "Jeanne Marie", true}, // the same letters up to a name's end
		{"Jean", "Jeanne", false},
		{"Jeanne", "Jean", false},
		{"Marie", "Anne", false},
		{"Marie Bob", "Bob", true},                 // another order
		{"Jean Pierre", "Jean Paul", true},         // twins who share a name: refused, on purpose
		{"Anne Marie Claire", "Claire", true},      // a name left out
		{"Mar ie Bob", "Marie", true},              // a shared name split by a space
		{"J Pierre", "J Paul", false},              // an initial alone is no shared name
		{"J", "J Paul", true},                      // but all of the other's first names
		{"Éloïse", "ELOISE", true},                 // case and accents
		{"Noël", "Noel", true},                     // a diaeresis
		{"D'Artagnan", "D’Artagnan Charles", true}, // apostrophes
		{"Le Bris-Müller", "Le Bris Muller", true}, // hyphens and spaces
		{"Zoé", "Zoë Marie", true},                 // accents, whichever
		{"Louis", "Louise", false},
	} {
		a, b := givenNames(c.a), givenNames(c.b)
		if got := givenNamesMatch(a, b); got != c.match {
			t.Errorf("%q and %q: match %v, want %v", c.a, c.b, got, c.match)
		}
		if got := givenNamesMatch(b, a); got != c.match {
			t.Errorf("%q and %q: match %v, want %v", c.b, c.a, got, c.match)
		}
	}
}

// A person compares the same whatever case, normal form (NFC, NFD, NFKC, NFKD), spaces and
// punctuation their names are written in: the keys do not change, and the person is SamePerson.
func TestKeysInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	names := []string{"Durand", "Bob", "Éloïse", "Noël", "D'Artagnan", "Le Bris-Müller", "Łódź", "Ærø", "Ǆemal", "ﬁfi", "Øyvind", "Hélène Marie"}
	forms := []func(string) string{norm.NFC.String, norm.NFD.String, norm.NFKC.String, norm.NFKD.String, strings.ToUpper, strings.ToLower}
	seps := []string{" ", "-", "'", "’", "ʼ", ".", "  "}
	vary := func(s string) string {
		s = forms[rng.IntN(len(forms))](s)
		rs := []rune(s)
		var b strings.Builder
		for i, r := range rs {
			// A separator between two letters (never before a combining mark, which would then
			// mark the separator and not the letter).
			if i > 0 && rng.IntN(4) == 0 && !unicode.Is(unicode.Mn, r) {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	for range 2000 {
		last, first := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		p := Person{LastName: last, FirstNames: first, BirthDate: day("1990-01-01")}
		q := Person{LastName: vary(last), FirstNames: vary(first), BirthDate: p.BirthDate}
		if NameKey(q.LastName) != NameKey(p.LastName) || q.LookupKey() != p.LookupKey() {
			t.Fatalf("%q keyed %q, %q keyed %q", p.LastName, NameKey(p.LastName), q.LastName, NameKey(q.LastName))
		}
		if !SamePerson(p, q) || !SamePerson(q, p) {
			t.Fatalf("%v and %v are two persons", p, q)
		}
	}
}

func FuzzParsePerson(f *testing.F) {
	f.Add("O'Brien", "Élodie", "1990-01-02")
	f.Add("", "", "2026-02-29")
	f.Add("Durаnd", "Boʙ", "1990-01-01")
	f.Add("ǃ", "ǃǃ", "1990-01-01")
	today := day("2026-11-30")
	f.Fuzz(func(t *testing.T, last, first, birth string) {
		p, err := ParsePerson(last, first, birth, today)
		if err != nil && err != ErrScript {
			return
		}
		if p.BirthDate.After(today) || p.LastName == "" || p.FirstNames == "" {
			t.Fatalf("taken: %+v", p)
		}
		// Every name taken reads as something: a key to compare.
		if NameKey(p.LastName) == "" || len(givenNames(p.FirstNames)) == 0 {
			t.Fatalf("%+v has an empty key %q", p, p.Key())
		}
		if !SamePerson(p, p) {
			t.Fatalf("%+v is not itself", p)
		}
		// The key is stable: a person parsed from its own fields has the same key.
		q, qerr := ParsePerson(p.LastName, p.FirstNames, p.BirthDate.Format(DateLayout), today)
		if qerr != err || q.Key() != p.Key() {
			t.Fatalf("%+v parsed again: %+v %v", p, q, qerr)
		}
	})
}
