package loadtest

import (
	"bytes"
	"encoding/json"
)

var gameKeys = [...]string{"id", "stake", "mode", "status", "prize", "balance", "color"}

// decodeGame reads the top-level fields of a game the tool checks into g. Most of an answer is
// its boards and events, which an « Auto » game does not need: encoding/json would scan them
// twice (validation, then decoding), and that is the largest part of the tool's CPU per play.
// So the common case is read here in one pass that skips nested values, and anything this
// reader is not sure of (an escape in a needed string, a number that is not a plain integer,
// malformed input) is left to encoding/json, which decides.
func decodeGame(b []byte, g *gameAnswer) error {
	*g = gameAnswer{}
	if fastGame(b, g) {
		return nil
	}
	*g = gameAnswer{}
	return json.Unmarshal(b, g)
}

// fastGame is decodeGame's one pass; it reports false when encoding/json must decide.
func fastGame(b []byte, g *gameAnswer) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		// A key.
		if i >= len(b) || b[i] != '"' {
			return false
		}
		ks := i + 1
		ke, esc := stringEnd(b, i)
		if ke < 0 || esc {
			return false
		}
		key := b[ks:ke]
		i = skipSpace(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		// Its value.
		vs := i
		if i = skipValue(b, i); i < 0 {
			return false
		}
		v := b[vs:i]
		switch string(key) {
		case "id":
			if v[0] == '"' {
				s, ok := plainString(v)
				if !ok {
					return false
				}
				g.ID = gameID(s)
			} else if _, ok := plainInt(v); ok {
				g.ID = gameID(v)
			} else if string(v) != "null" {
				return false
			} else {
				g.ID = ""
			}
		case "stake":
			n, ok := plainInt(v)
			if !ok {
				return false
			}
			g.Stake = n
		case "mode", "status":
			s, ok := plainString(v)
			if !ok {
				return false
			}
			if key[0] == 'm' {
				g.Mode = s
			} else {
				g.Status = s
			}
		case "prize", "balance", "color":
			var p *int64
			if string(v) != "null" {
				n, ok := plainInt(v)
				if !ok {
					return false
				}
				p = &n
			}
			switch key[0] {
			case 'p':
				g.Prize = p
			case 'b':
				g.Balance = p
			default:
				g.Color = nil
				if p != nil {
					c := int(*p)
					g.Color = &c
				}
			}
		default:
			// encoding/json matches keys without regard to case: let it decide those.
			for _, k := range gameKeys {
				if len(k) == len(key) && bytes.EqualFold(key, []byte(k)) {
					return false
				}
			}
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string opening at b[i], and whether the
// string holds an escape; -1 if it does not close.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j, esc
		case c == '\\':
			esc = true
			j++
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// skipValue returns the index just after the value starting at b[i], or -1. Nested objects
// and arrays are skipped by counting brackets outside strings; scalars run to the next
// delimiter (encoding/json checks them when the value matters).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, _ := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// plainInt reads an integer written as JSON writes integers: -?(0|[1-9][0-9]*), 18 digits at most.
func plainInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 || (v[0] == '0' && len(v) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// plainString reads a JSON string without escapes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	e, esc := stringEnd(v, 0)
	if e != len(v)-1 || esc {
		return "", false
	}
	switch s := v[1:e]; string(s) {
	case "finished":
		return "finished", true
	case "auto":
		return "auto", true
	case "manual":
		return "manual", true
	case "playing":
		return "playing", true
	case "choose_color":
		return "choose_color", true
	default:
		return string(s), true
	}
}
