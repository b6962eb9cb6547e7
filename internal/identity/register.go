package identity

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The operator's list of excluded persons (the national register of gaming bans) comes as a CSV
// file: one person a line, last name, first names and birth date. Files exported by French office
// software use ';' and write dates DD/MM/YYYY; both are read, as is a header line and a UTF-8
// byte-order mark. A file with any line that is not a person is refused whole, saying which
// lines: an import never half-happens on a file that may be the wrong one.

// maxRegisterSize bounds the file: the register holds tens of thousands of persons, at most
// about 100 bytes each.
const maxRegisterSize = 64 << 20

// maxBadLines is how many bad lines an error lists.
const maxBadLines = 5

// ErrRegister is a register file that cannot be read as one. Every such error is a
// *RegisterError, which says why as data.
var ErrRegister = errors.New("not a list of excluded persons")

// The reasons a line of the register is not a person, beside ErrName, ErrScript and
// ErrBirthDate.
var (
	ErrFields     = errors.New("not 3 fields")
	ErrDateLayout = errors.New("a birth date neither YYYY-MM-DD nor DD/MM/YYYY")
)

// A RegisterProblem is why a register file was refused.
type RegisterProblem string

// The register's problems.
const (
	RegisterTooLarge RegisterProblem = "too_large" // over maxRegisterSize
	RegisterNotCSV   RegisterProblem = "not_csv"   // the CSV reader's error, in Err
	RegisterBadLines RegisterProblem = "bad_lines" // lines that are not persons, in Lines
	RegisterEmpty    RegisterProblem = "empty"     // no one listed
)

// RegisterError is a refused register file, as data, for a caller that words it in a language
// of its own (the back office in French); its text is for the logs. It is ErrRegister.
type RegisterError struct {
	Problem  RegisterProblem
	LimitMiB int         // RegisterTooLarge: the bound
	Err      error       // RegisterNotCSV: the CSV reader's error (a *csv.ParseError)
	Lines    []LineError // RegisterBadLines: the first bad lines, at most maxBadLines
}

// LineError is a line of the register that is not a person.
type LineError struct {
	Line   int
	Err    error  // ErrFields, ErrDateLayout, ErrName, ErrScript or ErrBirthDate
	Fields int    // ErrFields: how many it has
	Date   string // ErrDateLayout: the date as written
}

func (e LineError) Error() string {
	switch e.Err {
	case ErrFields:
		return fmt.Sprintf("line %d: %d fields, not 3 (last name, first names, birth date)", e.Line, e.Fields)
	case ErrDateLayout:
		return fmt.Sprintf("line %d: the birth date %q is neither YYYY-MM-DD nor DD/MM/YYYY", e.Line, e.Date)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e LineError) Unwrap() error { return e.Err }

func (e *RegisterError) Error() string {
	switch e.Problem {
	case RegisterTooLarge:
		return fmt.Sprintf("%v: the file is larger than %d MiB", ErrRegister, e.LimitMiB)
	case RegisterNotCSV:
		return fmt.Sprintf("%v: %v", ErrRegister, e.Err)
	case RegisterBadLines:
		bad := make([]string, len(e.Lines))
		for i, l := range e.Lines {
			bad[i] = l.Error()
		}
		return fmt.Sprintf("%v (nothing was imported): %s", ErrRegister, strings.Join(bad, "; "))
	}
	return fmt.Sprintf("%v: the file lists no one", ErrRegister)
}

// Unwrap makes the error ErrRegister, and the CSV reader's error it may hold.
func (e *RegisterError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrRegister, e.Err}
	}
	return []error{ErrRegister}
}

// ParseRegister reads a list of excluded persons, on the date today (a birth date after it is
// not a person's). Persons listed twice (by Key: the same names as a reader sees them, "Lefèvre"
// and "LEFEVRE") are kept once. Lines that only may be one person ("Bob" and "Bob Marie", whom
// SamePerson matches) are both kept: a sign-up may match one and not the other, and dropping one
// would let it in.
func ParseRegister(r io.Reader, today time.Time) ([]Person, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRegisterSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRegisterSize {
		return nil, &RegisterError{Problem: RegisterTooLarge, LimitMiB: maxRegisterSize >> 20}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = separator(data)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var out []Person
	seen := map[string]bool{}
	var bad []LineError
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &RegisterError{Problem: RegisterNotCSV, Err: err}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // an empty line
		}
		if line == 1 && isHeader(rec) {
			continue
		}
		p, err := registerLine(rec, today)
		if err != nil {
			if len(bad) < maxBadLines {
				le := LineError{Line: line, Err: err}
				if errors.As(err, &le) { // a LineError of its own, with its fields or date
					le.Line = line
				}
				bad = append(bad, le)
			}
			continue
		}
		if k := p.Key(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	if len(bad) > 0 {
		return nil, &RegisterError{Problem: RegisterBadLines, Lines: bad}
	}
	if len(out) == 0 {
		return nil, &RegisterError{Problem: RegisterEmpty}
	}
	return out, nil
}

// separator is ';' if the first line has one and no comma, else ','.
func separator(data []byte) rune {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if bytes.IndexByte(first, ';') >= 0 && bytes.IndexByte(first, ',') < 0 {
		return ';'
	}
	return ','
}

// isHeader tells a first line that names the columns rather than a person: its third field is
// not a date.
func isHeader(rec []string) bool {
	if len(rec) != 3 {
		return false
	}
	_, err := registerDate(strings.TrimSpace(rec[2]))
	return err != nil
}

func registerLine(rec []string, today time.Time) (Person, error) {
	if len(rec) != 3 {
		return Person{}, LineError{Err: ErrFields, Fields: len(rec)}
	}
	birth, err := registerDate(strings.TrimSpace(rec[2]))
	if err != nil {
		return Person{}, err
	}
	return ParsePerson(rec[0], rec[1], birth, today)
}

// BirthDate reads a date written YYYY-MM-DD or DD/MM/YYYY, as YYYY-MM-DD: the back office's
// search takes a birth date the way the register writes it.
func BirthDate(s string) (string, error) { return registerDate(s) }

// registerDate is a birth date written YYYY-MM-DD or DD/MM/YYYY, as YYYY-MM-DD.
func registerDate(s string) (string, error) {
	for _, layout := range []string{DateLayout, "02/01/2006"} {
		if d, err := time.Parse(layout, s); err == nil && d.Format(layout) == s {
			return d.Format(DateLayout), nil
		}
	}
	return "", LineError{Err: ErrDateLayout, Date: s}
}
