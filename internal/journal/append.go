package journal

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// The entries a sale writes (its sale, a winner's prize, a wallet's deposit and withdrawal) are
// most of the journal, and json.Marshal's reflection was a third of the journal's CPU a play.
// Their kinds append their bytes directly, in the order and the escaping json.Marshal gives their
// objects (the struct types below in entry.go): TestAppendMatchesMarshal and FuzzAppend hold the
// two equal, and the known answers hold both to the spec.

// appender is an event that appends its pending entry's bytes itself, at a time in UTC.
type appender interface {
	appendPending(b []byte, at time.Time) []byte
}

// appendHead appends a pending entry's head (seq 0), up to its kind.
func appendHead(b []byte, at time.Time, kind string) []byte {
	b = append(b, `{"seq":0,"time":"`...)
	b = at.AppendFormat(b, TimeFormat)
	b = append(b, `","kind":"`...)
	b = append(b, kind...)
	return append(b, '"')
}

func appendInt(b []byte, name string, v int64) []byte {
	b = append(b, name...)
	return strconv.AppendInt(b, v, 10)
}

// appendString appends s as json.Marshal does. A string of printable ASCII that json.Marshal
// leaves alone (no quote, backslash or HTML character) is copied; any other goes through it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (e Sale) appendPending(b []byte, at time.Time) []byte {
	b = appendHead(b, at, e.Kind())
	b = appendInt(b, `,"game":`, e.Game)
	b = append(b, `,"account":"`+noRef+`"`...)
	b = appendInt(b, `,"stake":`, e.Stake)
	b = appendInt(b, `,"prize":`, e.Prize)
	b = append(b, `,"emission":`...)
	b = appendString(b, e.Emission)
	b = appendInt(b, `,"block":`, int64(e.Block))
	b = appendInt(b, `,"index":`, int64(e.Index))
	b = append(b, `,"unit":"`...)
	b = hex.AppendEncode(b, e.Unit[:])
	b = append(b, `","mode":`...)
	b = appendString(b, e.Mode)
	b = appendInt(b, `,"transfer":`, e.Transfer)
	return append(b, '}')
}

func (e Prize) appendPending(b []byte, at time.Time) []byte {
	b = appendHead(b, at, e.Kind())
	b = append(b, `,"account":"`+noRef+`"`...)
	b = appendInt(b, `,"game":`, e.Game)
	b = appendInt(b, `,"amount":`, e.Amount)
	b = appendInt(b, `,"transfer":`, e.Transfer)
	return append(b, '}')
}

func (e Payment) appendPending(b []byte, at time.Time) []byte {
	b = appendHead(b, at, e.Kind())
	b = append(b, `,"account":"`+noRef+`"`...)
	b = appendInt(b, `,"amount":`, e.Amount)
	b = appendInt(b, `,"transfer":`, e.Transfer)
	if e.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, e.Reason)
	}
	return append(b, '}')
}
