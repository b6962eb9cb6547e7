package identity

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
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

// DateLayout is how a birth date is written: YYYY-MM-DD (API.md).
const DateLayout = time.DateOnly

// Adulthood is the age below which an account is refused.
const Adulthood = 18

// maxNameLen bounds a name, in characters: the civil registry's longest fit easily.
const maxNameLen = 100

// Errors of ParsePerson, each said to the person registering.
var (
	ErrName      = errors.New("a last name and first names are needed: letters (accents welcome), spaces, hyphens and apostrophes, at most 100 characters each")
	ErrBirthDate = errors.New("the birth date is a real date written YYYY-MM-DD, in the past, within the last 130 years")
)

// ParsePerson checks an identity as given at registration, on the server's date today.
func ParsePerson(lastName, firstNames, birthDate string, today time.Time) (Person, error) {
	last, okLast := cleanName(lastName)
	first, okFirst := cleanName(firstNames)
	if !okLast || !okFirst {
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
	return Person{LastName: last, FirstNames: first, BirthDate: birth}, nil
}

// cleanName is a name in its composed form with its spaces trimmed and runs of spaces made one,
// if it is one: letters of any alphabet, with marks, spaces, hyphens, apostrophes and periods.
func cleanName(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	s = strings.Join(strings.Fields(norm.NFC.String(s)), " ")
	if s == "" || utf8.RuneCountInString(s) > maxNameLen {
		return "", false
	}
	letters := 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.Is(unicode.Mn, r), r == ' ', r == '-', r == '\'', r == '’', r == '.':
		default:
			return "", false
		}
	}
	return s, letters > 0
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

// Key is what identities are compared by, here and in the register of excluded persons: the
// names without case or accents (Unicode's compatibility decomposition, marks dropped, case
// folded), hyphens, apostrophes and periods taken as spaces, spaces made single; and the date.
// "Élodie-Marie O'Brien" and "ELODIE MARIE O BRIEN" are one person.
func (p Person) Key() string {
	return nameKey(p.LastName) + "|" + nameKey(p.FirstNames) + "|" + p.BirthDate.Format(DateLayout)
}

var stripMarks = transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

func nameKey(s string) string {
	plain, _, err := transform.String(stripMarks, s)
	if err != nil {
		plain = s
	}
	plain = strings.Map(func(r rune) rune {
		switch r {
		case '-', '\'', '’', '.':
			return ' '
		}
		return r
	}, cases.Fold().String(plain))
	return strings.Join(strings.Fields(plain), " ")
}

// String is the person as a log or the back office shows them.
func (p Person) String() string {
	return fmt.Sprintf("%s %s, born %s", p.FirstNames, p.LastName, p.BirthDate.Format(DateLayout))
}

// NameKey is a name as identities compare it: without case, accents or punctuation (the start of
// a Key, for looking a last name up in a list ordered by Key).
func NameKey(s string) string { return nameKey(s) }
