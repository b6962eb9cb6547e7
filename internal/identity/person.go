package identity

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Person is who holds an account, as French law asks an operator to know them (décret 2010-518,
// art. 2): last name, first names and birth date. It is what the age check, self-exclusions and
// the operator's list of excluded persons (the national register of gaming bans) compare.
type Person struct {
	LastName   string    // as typed, composed (NFC), spaces trimmed
	FirstNames string    // as typed, composed (NFC), spaces trimmed
	BirthDate  time.Time // midnight UTC of the birth date
}

// DateLayout is how a birth date is written: YYYY-MM-DD (docs/spec/API.md).
const DateLayout = time.DateOnly

// Adulthood is the age below which an account is refused.
const Adulthood = 18

// maxNameLen bounds a name, in characters: the civil registry's longest fit easily.
const maxNameLen = 100

// Errors of ParsePerson, each said to the person registering.
var (
	ErrName      = errors.New("a last name and first names are needed: letters (accents welcome), spaces, hyphens and apostrophes, at most 100 characters each")
	ErrScript    = errors.New("names are written in the Latin alphabet, as on French identity papers (accents welcome)")
	ErrBirthDate = errors.New("the birth date is a real date written YYYY-MM-DD, in the past, within the last 130 years")
)

// ParsePerson checks an identity as given at registration, on the server's date today. A name
// written with letters of another script than Latin (Cyrillic, Greek …) is ErrScript, returned
// with the person otherwise checked: who the name reads as may still be compared (a Cyrillic а
// in "Durаnd" reads as the excluded Durand).
func ParsePerson(lastName, firstNames, birthDate string, today time.Time) (Person, error) {
	last, lastErr := cleanName(lastName)
	first, firstErr := cleanName(firstNames)
	if lastErr == ErrName || firstErr == ErrName {
		return Person{}, ErrName
	}
	birth, err := time.Parse(DateLayout, birthDate)
	if err != nil || birth.Format(DateLayout) != birthDate {
		return Person{}, ErrBirthDate
	}
	day := civil(today)
	if birth.After(day) || birth.Before(day.AddDate(-130, 0, 0)) {
		return Person{}, ErrBirthDate
	}
	p := Person{LastName: last, FirstNames: first, BirthDate: birth}
	if lastErr != nil || firstErr != nil {
		return p, ErrScript
	}
	return p, nil
}

// cleanName is a name in its composed form, its spaces trimmed and runs of spaces made one, if it
// is one. A name is letters with marks, spaces, hyphens, apostrophes and periods, that read as
// letters (fold keeps some: "ǃ" is a Latin letter that reads as "!"). Letters of another script
// than Latin make it ErrScript.
func cleanName(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrName
	}
	s = strings.Join(strings.Fields(norm.NFC.String(s)), " ")
	if s == "" || utf8.RuneCountInString(s) > maxNameLen || fold(s) == "" {
		return "", ErrName
	}
	latin := true
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Latin, r), unicode.Is(unicode.Mn, r), nameSeparator(r):
		case unicode.IsLetter(r):
			latin = false
		default:
			return "", ErrName
		}
	}
	if !latin {
		return s, ErrScript
	}
	return s, nil
}

// nameSeparator tells the characters that part the words of a name: spaces, hyphens, apostrophes
// (typed, typographic, or the modifier letter U+02BC) and periods.
func nameSeparator(r rune) bool {
	switch r {
	case ' ', '-', '\u2010', '\u2011', '\'', '\u2019', '\u02BC', '.':
		return true
	}
	return false
}

// civil is the date of t (in UTC) at midnight.
func civil(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// AgeOn is a person's age in whole years on the date of t. One born on 29 February turns a year
// older on 1 March in the years without it.
func (p Person) AgeOn(t time.Time) int {
	day := civil(t)
	age := day.Year() - p.BirthDate.Year()
	// This year's birthday: AddDate normalises 29 February to 1 March when there is none.
	if day.Before(p.BirthDate.AddDate(age, 0, 0)) {
		age--
	}
	return age
}

// Adult says whether the person is of age on the date of t.
func (p Person) Adult(t time.Time) bool { return p.AgeOn(t) >= Adulthood }

// Key is an identity as a reader sees it: the last name folded (fold.go), the first names
// folded one by one, and the birth date. Two persons of one Key are one person, however their
// names are written ("Élodie-Marie O'Brien" and "ELODIE MARIE OBRIEN", "Durаnd" with a Cyrillic
// а and "Durand"); the register of excluded persons keeps each Key once. Persons of different
// Keys may still be one (SamePerson).
func (p Person) Key() string {
	return fold(p.LastName) + "|" + strings.Join(givenNames(p.FirstNames), " ") + "|" + p.BirthDate.Format(DateLayout)
}

// LookupKey is what the persons SamePerson may take for p share: the last name folded and the
// birth date. Stores index it, and compare the first names of the few persons it finds.
func (p Person) LookupKey() string {
	return fold(p.LastName) + "|" + p.BirthDate.Format(DateLayout)
}

// SamePerson says whether a and b may be one person: the same last name and birth date as a
// reader sees them, and first names that match (givenNamesMatch).
func SamePerson(a, b Person) bool {
	return a.LookupKey() == b.LookupKey() && givenNamesMatch(givenNames(a.FirstNames), givenNames(b.FirstNames))
}

// givenNames are the first names one by one, each folded (fold.go): the words between spaces,
// hyphens, apostrophes and periods, those that fold to nothing dropped.
func givenNames(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, nameSeparator) {
		if f := fold(w); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// givenNamesMatch says whether two persons of one last name and birth date may be one by their
// first names, a and b (givenNames). They match by either of two rules:
//
//  1. One's begin with all of the other's, ending where a name ends: "Bob Marie", "B ob Marie"
//     and "Bob-Marie" are "Bob"; "Jeanne" is not "Jean".
//  2. A name of one, whole and of two letters or more, is also one of the other's, whole or split
//     by spaces: "Marie Bob" is "Bob". First names are declared in another order, or one is left
//     out.
//
// The second rule refuses twins who share a first name (Jean Pierre and Jean Paul Durand, born
// the same day): one of them cannot sign up while the other is excluded. It is kept because a
// false refusal sends a person to the operator's support, while a gambler excluded by law or by
// their own choice let in by writing their first names in another order is the harm these
// comparisons exist to prevent. An initial (one letter) alone matches nothing by it.
func givenNamesMatch(a, b []string) bool {
	return beginsWith(a, b) || beginsWith(b, a) || sharesName(a, b) || sharesName(b, a)
}

// beginsWith says whether the letters of names b are the first of names a, ending where one of
// a's ends.
func beginsWith(a, b []string) bool {
	want := strings.Join(b, "")
	got := ""
	for _, name := range a {
		got += name
		if len(got) >= len(want) {
			return got == want
		}
	}
	return false
}

// sharesName says whether a name of b, of two letters or more, is also one or more consecutive
// names of a, put together.
func sharesName(a, b []string) bool {
	for _, name := range b {
		if utf8.RuneCountInString(name) < 2 {
			continue
		}
		for i := range a {
			run := ""
			for j := i; j < len(a) && len(run) < len(name); j++ {
				if run += a[j]; run == name {
					return true
				}
			}
		}
	}
	return false
}

// String is the person as a log or the back office shows them.
func (p Person) String() string {
	return fmt.Sprintf("%s %s, born %s", p.FirstNames, p.LastName, p.BirthDate.Format(DateLayout))
}

// NameKey is a name as identities compare it (fold.go): the start of a Key, for looking a last
// name up in a list ordered by Key.
func NameKey(s string) string { return fold(s) }
