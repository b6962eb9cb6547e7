package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"golang.org/x/mod/sumdb/note"
)

// The comparison of the journal with the database's rows (ledger check) is the store's
// (sqlstore.DB.CompareJournal): it rebuilds each entry from its rows with Encode and compares the
// bytes. What it reads of an entry, how it says where two entries differ, and its report are
// here, beside the entries they are about.

// Named is what names the rows an entry records: its seq and kind, its game, its transfer. It
// is read leniently (ReadNamed), only to find the rows: the entry is then compared byte for byte
// with what Encode makes of them, which proves it an entry of its kind.
type Named struct {
	Seq      int64  `json:"seq"`
	Kind     string `json:"kind"`
	Game     int64  `json:"game"`
	Transfer int64  `json:"transfer"`
}

// ReadNamed reads what names an entry's rows.
func ReadNamed(line []byte) (Named, error) {
	var n Named
	err := jsonv2.Unmarshal(line, &n)
	return n, err
}

// Parsed is an entry read strictly (Parse): its head, and the fields of its kind that are
// compared with a player's rows rather than rebuilt from them.
type Parsed struct {
	Seq  int64
	Time time.Time
	Kind string
	// Account is the account reference (AccountKey.Ref); "" for the kinds without one.
	Account  string
	Game     int64 // a sale's or a prize's
	Transfer int64 // a sale's (its stake), a prize's, a deposit's or a withdrawal's
	// A limits entry's fields.
	Limit     string // "deposit" or "stake"
	Old       *int64
	New       int64
	Effective time.Time
	// By is who closed an account, or changed a limit.
	By string
	// Until is the end of an exclusion.
	Until time.Time
	// An emission entry's: the emission, what happened to it ("created"…), and who did it.
	Emission, Event, Operator string
}

// Parse reads an entry as Verify reads a line of an export: exactly the bytes Encode writes for
// an entry of a known kind. When the line is not one, its Seq is still the seq it says, if any.
func Parse(line []byte) (Parsed, error) {
	e, seq, err := parseEntry(line)
	if err != nil {
		return Parsed{Seq: int64(seq)}, err
	}
	h := e.(headed).headOf()
	// parseEntry checked the time's format.
	at, _ := time.Parse(TimeFormat, h.Time)
	p := Parsed{Seq: int64(h.Seq), Time: at, Kind: h.Kind}
	switch e := e.(type) {
	case *saleEntry:
		p.Account, p.Game, p.Transfer = e.Account, e.Game, e.Transfer
	case *prizeEntry:
		p.Account, p.Game, p.Transfer = e.Account, e.Game, e.Transfer
	case *paymentEntry:
		p.Account, p.Transfer = e.Account, e.Transfer
	case *limitsEntry:
		p.Account, p.Limit, p.Old, p.New, p.By = e.Account, e.Limit, e.Old, e.New, e.By
		if p.Effective, err = time.Parse(TimeFormat, e.Effective); err != nil {
			return Parsed{Seq: p.Seq}, fmt.Errorf("the effective time %q is not RFC 3339 UTC to the millisecond", e.Effective)
		}
	case *exclusionEntry:
		p.Account = e.Account
		if p.Until, err = time.Parse(TimeFormat, e.Until); err != nil {
			return Parsed{Seq: p.Seq}, fmt.Errorf("the end of the exclusion %q is not RFC 3339 UTC to the millisecond", e.Until)
		}
	case *closureEntry:
		p.Account, p.By = e.Account, e.By
	case *emissionEntry:
		p.Emission, p.Event, p.Operator = e.Emission, e.Event, e.Operator
	}
	return p, nil
}

// Field is a field in which an entry differs from the entry rebuilt from its rows: its name and
// both values as a person reads them (a string without its quotes; "none" for a field that one
// has and the other has not).
type Field struct {
	Name       string
	Entry, Row string
}

// Diff lists the fields in which entry differs from want, the bytes Encode makes of its rows: in
// want's order, then the fields only entry has. An entry that is not a JSON object is an error.
func Diff(entry, want []byte) ([]Field, error) {
	got, err := fields(entry)
	if err != nil {
		return nil, err
	}
	w, err := fields(want)
	if err != nil {
		return nil, err
	}
	index := make(map[string]string, len(got))
	for _, f := range got {
		index[f.name] = f.value
	}
	var out []Field
	for _, f := range w {
		v, ok := index[f.name]
		delete(index, f.name)
		if !ok {
			v = "none"
		}
		if v != f.value {
			out = append(out, Field{Name: f.name, Entry: v, Row: f.value})
		}
	}
	for _, f := range got {
		if _, extra := index[f.name]; extra {
			out = append(out, Field{Name: f.name, Entry: f.value, Row: "none"})
		}
	}
	return out, nil
}

type field struct{ name, value string }

// fields reads the members of a JSON object in order, each value as a person reads it.
func fields(b []byte) ([]field, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %.80q", b)
	}
	var out []field
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		v := string(raw)
		if s, err := strconv.Unquote(v); err == nil && len(raw) > 0 && raw[0] == '"' {
			v = s
		} else if v == "null" {
			v = "none"
		}
		out = append(out, field{name, v})
	}
	return out, nil
}

// CompareOptions is what a comparison of the journal with the database is made with.
type CompareOptions struct {
	// Verifier checks the latest checkpoint's signature: the journal's key file's
	// (Key.Verifier), or the verifier key an auditor was given. Nil: the key the journal says it
	// is signed with (State.Verifier), which proves the entries are those a checkpoint signed,
	// not that the key is the operator's.
	Verifier note.Verifier
	// AccountKey rebuilds the entries' account references. Nil: the references are not
	// compared (every other field is), nor is the map of the restrictions' accounts checked.
	AccountKey *AccountKey
	// Now is when the limits are compared: a raise that is due holds at Now in the journal as in
	// the rows.
	Now time.Time
	// Since, when set, is the mark of the last comparison: only the entries from its size on
	// are read, with the rows they name and those above its watermark.
	Since *Mark
	// Games and Transfers are the watermark of the mark this comparison makes (Comparison.Mark).
	Games, Transfers int64
}

// Comparison is what a comparison of the journal with the database found.
type Comparison struct {
	// Entries is how many entries were read.
	Entries int64
	// Games and Transfers are how many rows were compared with their entries.
	Games, Transfers int64
	// Accounts is how many players' accounts had their restrictions compared with the entries
	// of their limits, exclusions and closures.
	Accounts int64
	// Checkpoint is the size of the latest checkpoint, verified or not; 0: none was kept.
	Checkpoint int64
	// Queued is how many entries were queued, not yet in the journal: the rows they record,
	// and the restrictions of their accounts, are compared once they are appended.
	Queued int64
	// Unhashed is how many of the latest checkpoint's entries the tree's tiles do not cover
	// yet (the tree is being rebuilt, after migration 0028): the tiles' root was not compared
	// with the checkpoint's, the entries' was.
	Unhashed int64
	// Unkeyed is how many sales kept as their leaf hash were not compared with their rows: the
	// leaf hashes the entry's account reference, which needs the account key.
	Unkeyed int64
	// Problems are the first MaxProblems differences found.
	Problems []Difference
	// Dropped is how many more were found.
	Dropped int64
	// Mark is the mark of what it proved, when it found nothing wrong.
	Mark *Mark
}

// OK says whether the comparison found no difference.
func (c *Comparison) OK() bool { return len(c.Problems) == 0 }

// Add keeps a difference, or counts it beyond MaxProblems.
func (c *Comparison) Add(d Difference) {
	if len(c.Problems) >= MaxProblems {
		c.Dropped++
		return
	}
	c.Problems = append(c.Problems, d)
}

// Difference is one thing in which the journal and the database differ, naming the entry.
type Difference struct {
	// Seq is the entry's seq; -1 for a row that no entry records, or for a checkpoint.
	Seq int64
	// Entry is what the entry records, "sale of game 977"; "" when Seq is -1.
	Entry string
	// Msg says what differs: what the rows say, and what the entry says.
	Msg string
}

// String is the difference as ledger check prints it: "entry 1042 (sale of game 977): the
// game's prize is 5000, the entry says 200".
func (d Difference) String() string {
	if d.Seq < 0 {
		return d.Msg
	}
	return fmt.Sprintf("entry %d (%s): %s", d.Seq, d.Entry, d.Msg)
}
