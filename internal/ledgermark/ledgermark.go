// Package ledgermark is what `ledger check` proved, for the next check to start from
// (lottery.Watermark): kept in the database (Store.LedgerMark), authenticated with a key derived
// from the journal's, so that whoever can rewrite the database cannot write a mark that hides it.
package ledgermark

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// Mark is what a check proved, part by part, at a watermark.
type Mark struct {
	Watermark lottery.Watermark
	Books     *lottery.BooksMark
	Units     *lottery.UnitsMark
	Journal   *journal.Mark
}

// header is the first line of a mark; the second is the MAC of the rest, in hex.
const header = "starcolor ledger mark 1\n"

// macInfo names the MAC's key, derived from the journal's account key (HKDF-SHA256).
const macInfo = "starcolor ledger mark"

// ErrNone is a database whose checks recorded no mark yet.
var ErrNone = errors.New("no check recorded a mark yet: run a full `starcolor ledger check` first")

// Encode is m's bytes as the database keeps them (Store.KeepLedgerMark): the header, the MAC of
// the body in hex, and the body.
func Encode(key *journal.AccountKey, m *Mark) ([]byte, error) {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(m); err != nil {
		return nil, err
	}
	mac, err := sum(key, body.Bytes())
	if err != nil {
		return nil, err
	}
	out := fmt.Appendf(nil, "%s%x\n", header, mac)
	return append(out, body.Bytes()...), nil
}

// Parse reads a mark's bytes.
func Parse(b []byte, key *journal.AccountKey) (*Mark, error) {
	rest, ok := bytes.CutPrefix(b, []byte(header))
	if !ok {
		return nil, errors.New("not a mark of ledger check")
	}
	macHex, body, ok := bytes.Cut(rest, []byte("\n"))
	got, err := hex.DecodeString(string(macHex))
	if !ok || err != nil || len(got) != sha256.Size {
		return nil, errors.New("the mark's MAC is not 32 bytes in hex")
	}
	want, err := sum(key, body)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal(got, want) {
		return nil, errors.New("the mark's MAC is not the journal key's: it was written with another key, or changed")
	}
	var m Mark
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&m); err != nil {
		return nil, fmt.Errorf("the mark: %w", err)
	}
	if m.Books == nil || m.Units == nil || m.Journal == nil {
		return nil, errors.New("the mark lacks a part")
	}
	return &m, nil
}

// sum is the MAC of a mark's body.
func sum(key *journal.AccountKey, body []byte) ([]byte, error) {
	k, err := hkdf.Key(sha256.New, key[:], nil, macInfo, sha256.Size)
	if err != nil {
		return nil, err
	}
	h := hmac.New(sha256.New, k)
	h.Write(body)
	return h.Sum(nil), nil
}
