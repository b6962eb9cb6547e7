package identity

import (
	"testing"
	"time"
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
	for _, c := range []struct{ last, first, birth string }{
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
	} {
		if a.Key() != same.Key() {
			t.Errorf("%q and %q differ", a.Key(), same.Key())
		}
	}
	for _, other := range []Person{
		{LastName: "O'Brien", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-03")},
		{LastName: "O'Brian", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-02")},
		{LastName: "O'Brien", FirstNames: "Élodie", BirthDate: day("1990-01-02")},
		{LastName: "OBrien", FirstNames: "Élodie-Marie", BirthDate: day("1990-01-02")}, // another spelling
	} {
		if a.Key() == other.Key() {
			t.Errorf("%v and %v are taken as one", a, other)
		}
	}
	if got, want := (Person{LastName: "Łódź-Müller", FirstNames: "Zoë", BirthDate: day("2000-01-01")}).Key(), "łodz muller|zoe|2000-01-01"; got != want {
		t.Errorf("key %q, want %q", got, want)
	}
}

func FuzzParsePerson(f *testing.F) {
	f.Add("O'Brien", "Élodie", "1990-01-02")
	f.Add("", "", "2026-02-29")
	today := day("2026-11-30")
	f.Fuzz(func(t *testing.T, last, first, birth string) {
		p, err := ParsePerson(last, first, birth, today)
		if err != nil {
			return
		}
		if p.BirthDate.After(today) || p.LastName == "" || p.FirstNames == "" {
			t.Fatalf("taken: %+v", p)
		}
		// The key is stable: a person parsed from its own fields has the same key.
		q, err := ParsePerson(p.LastName, p.FirstNames, p.BirthDate.Format(DateLayout), today)
		if err != nil || q.Key() != p.Key() {
			t.Fatalf("%+v parsed again: %+v %v", p, q, err)
		}
	})
}
