package identity

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var registerDay = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func TestParseRegister(t *testing.T) {
	// A French office export: a byte-order mark, ';', a header, DD/MM/YYYY, an empty line, and
	// the same person twice, written otherwise.
	file := "\ufeffNom;Prénoms;Date de naissance\r\nLefèvre;Hélène;14/07/1985\r\n\r\nO'Brien;Jean-Marc;1970-01-02\r\nLEFEVRE;helene;1985-07-14\r\n"
	ps, err := ParseRegister(strings.NewReader(file), registerDay)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].LastName != "Lefèvre" || ps[0].BirthDate.Format(DateLayout) != "1985-07-14" || ps[1].FirstNames != "Jean-Marc" {
		t.Fatalf("%+v", ps)
	}
	// Commas, no header.
	ps, err = ParseRegister(strings.NewReader("Martin,Jeanne Marie,1990-01-01\n"), registerDay)
	if err != nil || len(ps) != 1 || ps[0].FirstNames != "Jeanne Marie" {
		t.Fatalf("%+v %v", ps, err)
	}
	for name, bad := range map[string]string{
		"empty":                   "",
		"a header only":           "nom,prénoms,naissance\n",
		"two fields":              "Martin,1990-01-01\n",
		"a future birth":          "Martin,Jeanne,2030-01-01\n",
		"an impossible day":       "Martin,Jeanne,1990-02-30\n",
		"no name":                 "Martin,,1990-01-01\n",
		"one bad line of several": "Martin,Jeanne,1990-01-01\nDurand,Paul,31/02/1980\n",
		"a broken quote":          "\"Martin,Jeanne,1990-01-01\n",
	} {
		if ps, err := ParseRegister(strings.NewReader(bad), registerDay); !errors.Is(err, ErrRegister) {
			t.Errorf("%s: %+v %v", name, ps, err)
		}
	}
	if _, err := ParseRegister(strings.NewReader("Martin,Jeanne,1990-01-01\nDurand,Paul,31/02/1980\n"), registerDay); !strings.Contains(err.Error(), "line 2") {
		t.Errorf("the bad line not named: %v", err)
	}
}

// Whatever the file, ParseRegister returns persons whose identities parse again, or an error;
// never both, never a panic.
func FuzzParseRegister(f *testing.F) {
	f.Add("Lefèvre;Hélène;14/07/1985\n")
	f.Add("nom,prénoms,naissance\nMartin,Jeanne,1990-01-01\n")
	f.Add("\"a,b\",c,2000-01-01")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseRegister(strings.NewReader(s), registerDay)
		if err != nil && ps != nil {
			t.Fatal("persons and an error")
		}
		for _, p := range ps {
			if _, err := ParsePerson(p.LastName, p.FirstNames, p.BirthDate.Format(DateLayout), registerDay); err != nil {
				t.Fatalf("%+v does not parse again: %v", p, err)
			}
		}
	})
}

// A refused file says why as data, for a caller that words it in another language, and its
// text stays the one the logs have always read.
func TestRegisterErrorAsData(t *testing.T) {
	for _, c := range []struct {
		file    string
		problem RegisterProblem
		lines   []LineError
		text    string
	}{
		{"", RegisterEmpty, nil, "not a list of excluded persons: the file lists no one"},
		{"\"Martin,Jeanne,1990-01-01\n", RegisterNotCSV, nil, "not a list of excluded persons: parse error on line 1, column 27: extraneous or missing \" in quoted-field"},
		{"Martin,Jeanne,1990-01-01\nMartin,1990-01-01\nDurand,Paul,31/02/1980\nMartin,,1990-01-01\nЖуков,Ivan,1990-01-01\nMartin,Jeanne,2030-01-01\n", RegisterBadLines,
			[]LineError{{Line: 2, Err: ErrFields, Fields: 2}, {Line: 3, Err: ErrDateLayout, Date: "31/02/1980"}, {Line: 4, Err: ErrName}, {Line: 5, Err: ErrScript}, {Line: 6, Err: ErrBirthDate}},
			`not a list of excluded persons (nothing was imported): line 2: 2 fields, not 3 (last name, first names, birth date); line 3: the birth date "31/02/1980" is neither YYYY-MM-DD nor DD/MM/YYYY; line 4: ` + ErrName.Error() + "; line 5: " + ErrScript.Error() + "; line 6: " + ErrBirthDate.Error()},
	} {
		_, err := ParseRegister(strings.NewReader(c.file), registerDay)
		var re *RegisterError
		if !errors.As(err, &re) || !errors.Is(err, ErrRegister) {
			t.Fatalf("%q: %v, want a *RegisterError", c.file, err)
		}
		if re.Problem != c.problem || err.Error() != c.text {
			t.Errorf("%q: %s %q, want %s %q", c.file, re.Problem, err, c.problem, c.text)
		}
		if len(re.Lines) != len(c.lines) {
			t.Fatalf("%q: lines %+v, want %+v", c.file, re.Lines, c.lines)
		}
		for i, l := range c.lines {
			if got := re.Lines[i]; got.Line != l.Line || got.Err != l.Err || got.Fields != l.Fields || got.Date != l.Date {
				t.Errorf("%q: line %+v, want %+v", c.file, got, l)
			}
		}
	}
	big := strings.Repeat("Martin,Jeanne,1990-01-01\n", (64<<20)/25+1)
	var re *RegisterError
	if _, err := ParseRegister(strings.NewReader(big), registerDay); !errors.As(err, &re) || re.Problem != RegisterTooLarge || re.LimitMiB != 64 ||
		err.Error() != "not a list of excluded persons: the file is larger than 64 MiB" {
		t.Errorf("a file of 64 MiB and more: %v", err)
	}
}
