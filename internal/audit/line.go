// Package audit is the external contract of docs/spec/RULES.md §8: the audit line of a unit, the RFC 6962
// commitment over a block's lines, and the verifier that re-checks an export on its own. Its
// encoders write exactly the bytes that are hashed; its parsers accept exactly those bytes and
// nothing else, because the commitment is over the bytes, not over what they mean.
package audit

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"starcolor/internal/rules"
)

// SaltSize is the size of a unit's salt in bytes (32 hex digits in the line).
const SaltSize = 16

// Record is one unit as the audit line tells it.
type Record struct {
	Index int
	Prize int64
	Salt  [SaltSize]byte
	Unit  rules.Unit
}

// AppendLine appends the unit's audit line, without its newline:
// {"i":…,"prize":…,"salt":"…","b1":"…"[,"b2":"…"]}.
func AppendLine(dst []byte, r *Record) []byte {
	dst = append(dst, `{"i":`...)
	dst = strconv.AppendInt(dst, int64(r.Index), 10)
	dst = append(dst, `,"prize":`...)
	dst = strconv.AppendInt(dst, r.Prize, 10)
	dst = append(dst, `,"salt":"`...)
	dst = hex.AppendEncode(dst, r.Salt[:])
	dst = append(dst, `","b1":"`...)
	dst = AppendBoard(dst, &r.Unit.B1)
	if r.Unit.HasB2 {
		dst = append(dst, `","b2":"`...)
		dst = AppendBoard(dst, &r.Unit.B2)
	}
	return append(dst, `"}`...)
}

// AppendBoard appends a board's 42 tokens separated by single spaces (docs/spec/RULES.md §8).
func AppendBoard(dst []byte, b *rules.Board) []byte {
	// Most stars are empty: their token is the colour digit alone, written without a call.
	dst = slices.Grow(dst, 2*rules.Cells+16)
	for i := range b {
		s := &b[i]
		if i > 0 {
			dst = append(dst, ' ', '0'+byte(s.Color))
		} else {
			dst = append(dst, '0'+byte(s.Color))
		}
		if s.Kind != rules.Empty {
			dst = appendContent(dst, s)
		}
	}
	return dst
}

// AppendToken appends one star's token: its colour digit, then its content.
func AppendToken(dst []byte, s *rules.Star) []byte {
	return appendContent(append(dst, '0'+byte(s.Color)), s)
}

func appendContent(dst []byte, s *rules.Star) []byte {
	switch s.Kind {
	case rules.Amount:
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, s.Amount, 10)
	case rules.MilkyWay:
		dst = append(dst, 'M')
	case rules.Supernova:
		dst = append(dst, 'N', '0'+byte(s.Target))
	case rules.ShootingStar:
		if s.Rising {
			dst = append(dst, 'R')
		} else {
			dst = append(dst, 'F')
		}
	case rules.Extra:
		dst = append(dst, 'X')
	}
	return dst
}

// ErrSyntax marks a line or board that is not in the exact audit format.
var ErrSyntax = errors.New("not in the audit format")

// lineParser reads one line left to right, failing at the first byte out of place.
type lineParser struct {
	s   []byte
	pos int
}

func (p *lineParser) fail(format string, args ...any) error {
	return fmt.Errorf("%w: byte %d: %s", ErrSyntax, p.pos+1, fmt.Sprintf(format, args...))
}

func (p *lineParser) literal(lit string) error {
	if len(p.s)-p.pos < len(lit) || string(p.s[p.pos:p.pos+len(lit)]) != lit {
		return p.fail("want %s", lit)
	}
	p.pos += len(lit)
	return nil
}

// number reads a non-negative decimal integer written without a sign or leading zeros.
func (p *lineParser) number(what string) (int64, error) {
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	digits := p.s[start:p.pos]
	switch {
	case len(digits) == 0:
		p.pos = start
		return 0, p.fail("want the %s, a number", what)
	case len(digits) > 1 && digits[0] == '0':
		p.pos = start
		return 0, p.fail("the %s has a leading zero", what)
	case len(digits) > 15:
		p.pos = start
		return 0, p.fail("the %s is too large", what)
	}
	var n int64
	for _, d := range digits {
		n = n*10 + int64(d-'0')
	}
	return n, nil
}

// ParseLine reads an audit line (without its newline), accepting only the exact bytes that
// AppendLine writes for some unit. It checks the syntax, not the rules.
func ParseLine(line []byte) (Record, error) {
	var r Record
	p := lineParser{s: line}
	if err := p.literal(`{"i":`); err != nil {
		return r, err
	}
	i, err := p.number("index")
	if err != nil {
		return r, err
	}
	r.Index = int(i)
	if err := p.literal(`,"prize":`); err != nil {
		return r, err
	}
	if r.Prize, err = p.number("prize"); err != nil {
		return r, err
	}
	if err := p.literal(`,"salt":"`); err != nil {
		return r, err
	}
	if len(line)-p.pos < 2*SaltSize {
		return r, p.fail("want a salt of %d hex digits", 2*SaltSize)
	}
	for k, c := range line[p.pos : p.pos+2*SaltSize] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			p.pos += k
			return r, p.fail("the salt holds %q, not a lower-case hex digit", c)
		}
	}
	hex.Decode(r.Salt[:], line[p.pos:p.pos+2*SaltSize])
	p.pos += 2 * SaltSize
	if err := p.literal(`","b1":"`); err != nil {
		return r, err
	}
	if err := p.board(&r.Unit.B1, "b1"); err != nil {
		return r, err
	}
	if p.pos < len(line) && string(line[p.pos:min(len(line), p.pos+8)]) == `","b2":"` {
		p.pos += 8
		r.Unit.HasB2 = true
		if err := p.board(&r.Unit.B2, "b2"); err != nil {
			return r, err
		}
	}
	if err := p.literal(`"}`); err != nil {
		return r, err
	}
	if p.pos != len(line) {
		return r, p.fail("unexpected bytes after the end of the object")
	}
	return r, nil
}

// board reads 42 tokens up to the closing quote.
func (p *lineParser) board(b *rules.Board, name string) error {
	for cell := range rules.Cells {
		if cell > 0 {
			if p.pos >= len(p.s) || p.s[p.pos] != ' ' {
				return p.fail("%s: want a space before cell %d (a board has %d stars)", name, cell, rules.Cells)
			}
			p.pos++
		}
		// Most stars are empty: a colour digit followed by a space or the closing quote.
		if p.pos+1 < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '5' && (p.s[p.pos+1] == ' ' || p.s[p.pos+1] == '"') {
			b[cell] = rules.Star{Color: rules.Color(p.s[p.pos] - '0')}
			p.pos++
			continue
		}
		if err := p.token(&b[cell], name, cell); err != nil {
			return err
		}
	}
	return nil
}

func (p *lineParser) token(s *rules.Star, name string, cell int) error {
	if p.pos >= len(p.s) || p.s[p.pos] < '0' || p.s[p.pos] > '5' {
		return p.fail("%s cell %d: want a colour digit 0 to 5", name, cell)
	}
	*s = rules.Star{Color: rules.Color(p.s[p.pos] - '0')}
	p.pos++
	if p.pos >= len(p.s) {
		return nil
	}
	switch p.s[p.pos] {
	case ' ', '"':
		return nil
	case '$':
		p.pos++
		a, err := p.number("amount")
		if err != nil {
			return fmt.Errorf("%s cell %d: %w", name, cell, err)
		}
		if a == 0 {
			p.pos--
			return p.fail("%s cell %d: an amount of 0", name, cell)
		}
		s.Kind, s.Amount = rules.Amount, a
		return nil
	case 'M':
		s.Kind = rules.MilkyWay
	case 'N':
		p.pos++
		if p.pos >= len(p.s) || p.s[p.pos] < '0' || p.s[p.pos] > '5' {
			return p.fail("%s cell %d: want the supernova's colour digit 0 to 5", name, cell)
		}
		s.Kind, s.Target = rules.Supernova, rules.Color(p.s[p.pos]-'0')
	case 'R':
		s.Kind, s.Rising = rules.ShootingStar, true
	case 'F':
		s.Kind = rules.ShootingStar
	case 'X':
		s.Kind = rules.Extra
	default:
		return p.fail("%s cell %d: unknown content %q", name, cell, p.s[p.pos])
	}
	p.pos++
	return nil
}

// ParseBoard reads a board written as 42 tokens (the value of "b1" or "b2").
func ParseBoard(s string) (rules.Board, error) {
	var b rules.Board
	p := lineParser{s: []byte(s)}
	if err := p.board(&b, "board"); err != nil {
		return b, err
	}
	if p.pos != len(p.s) {
		return b, p.fail("unexpected bytes after the 42nd star")
	}
	return b, nil
}
