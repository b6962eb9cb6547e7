// Package ledgermark keeps what `ledger check` proved, for `ledger check --since-last` to start
// from (lottery.Watermark): a file beside the database, authenticated with a key derived from the
// journal's, so that whoever can rewrite the database cannot write a mark that hides it.
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
	"os"
	"path/filepath"

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

// header is the first line of a mark's file; the second is the MAC of the rest, in hex.
const header = "starcolor ledger mark 1\n"

// macInfo names the MAC's key, derived from the journal's account key (HKDF-SHA256).
const macInfo = "starcolor ledger mark"

// ErrNone is a mark's file that is not there: no check recorded one yet.
var ErrNone = errors.New("no check recorded a mark yet: run a full `starcolor ledger check` first")

// Path is the mark's file of a database: beside a SQLite file; for PostgreSQL, beside the
// journal's key file (starcolor-ledger.mark), since the check that writes it needs the key.
func Path(db, keyFile string, postgres bool) string {
	if postgres {
		return filepath.Join(filepath.Dir(keyFile), "starcolor-ledger.mark")
	}
	return db + ".ledger-mark"
}

// Save writes m to path, whole or not at all (a temporary file renamed over it).
func Save(path string, key *journal.AccountKey, m *Mark) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(m); err != nil {
		return err
	}
	mac, err := sum(key, body.Bytes())
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = fmt.Fprintf(tmp, "%s%x\n", header, mac)
	if err == nil {
		_, err = tmp.Write(body.Bytes())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads the mark at path, refusing one whose MAC is not the key's.
func Load(path string, key *journal.AccountKey) (*Mark, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNone
	}
	if err != nil {
		return nil, err
	}
	return Parse(b, key)
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
