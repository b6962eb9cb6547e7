package game

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the game as json.Marshal writes it, byte for byte (TestAppendJSON), without
// reflection: the answer to a sale is written at every play, and encoding/json took a tenth of
// the server's time per play to write it.
func (v *View) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, v.ID, 10)
	b = append(b, `,"stake":`...)
	b = strconv.AppendInt(b, v.Stake, 10)
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, v.Mode)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, v.Status)
	b = append(b, `,"prize":`...)
	b = strconv.AppendInt(b, v.Prize, 10)
	b = append(b, `,"balance":`...)
	b = strconv.AppendInt(b, v.Balance, 10)
	b = append(b, `,"created_at":`...)
	b = appendJSONString(b, v.CreatedAt)
	if v.Unit == nil {
		b = append(b, `,"unit":null`...)
	} else {
		b = append(b, `,"unit":{"emission":`...)
		b = appendJSONString(b, v.Unit.Emission)
		b = append(b, `,"block":`...)
		b = strconv.AppendInt(b, int64(v.Unit.Block), 10)
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(v.Unit.Index), 10)
		b = append(b, '}')
	}
	b = append(b, `,"color":`...)
	b = appendIntPtr(b, v.Color)
	b = append(b, `,"boards":`...)
	if v.Boards == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range v.Boards {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.Boards[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"events":`...)
	if v.Events == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range v.Events {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"board":`...)
			b = strconv.AppendInt(b, int64(e.Board), 10)
			b = append(b, `,"cell":`...)
			b = strconv.AppendInt(b, int64(e.Cell), 10)
			b = append(b, `,"cause":`...)
			b = appendJSONString(b, e.Cause)
			if e.From != nil {
				b = append(b, `,"from":`...)
				b = strconv.AppendInt(b, int64(*e.From), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if v.Demo {
		b = append(b, `,"demo":true`...)
	}
	return append(b, '}')
}

func (bv *BoardView) appendJSON(b []byte) []byte {
	b = append(b, `{"colors":[`...)
	for i, c := range bv.Colors {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(c), 10)
	}
	b = append(b, `],"cells":[`...)
	for i, c := range bv.Cells {
		if i > 0 {
			b = append(b, ',')
		}
		if c == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, `{"kind":`...)
		b = appendJSONString(b, c.Kind)
		if c.Amount != nil {
			b = append(b, `,"amount":`...)
			b = strconv.AppendInt(b, *c.Amount, 10)
		}
		if c.Color != nil {
			b = append(b, `,"color":`...)
			b = strconv.AppendInt(b, int64(*c.Color), 10)
		}
		if c.Direction != "" {
			b = append(b, `,"direction":`...)
			b = appendJSONString(b, c.Direction)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendIntPtr(b []byte, p *int) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*p), 10)
}

// appendJSONString appends s quoted as encoding/json does: HTML's <, > and & escaped, control
// characters as \n, \r, \t, \b, \f or \u00XX, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
