// Package journal is the public, append-only record of every event that moves money or changes
// what a player may do (docs/spec/API.md 1.2, « The journal »).
//
// An entry is one line of JSON: its seq (0-based index), its time, its kind and the event's
// fields, in a fixed order, so that the same event at the same seq is always the same bytes.
// The entries are the leaves of an RFC 6962 Merkle tree (golang.org/x/mod/sumdb/tlog), whose
// heads are signed as C2SP checkpoints.
//
// The store writes each entry inside the transaction that makes its change, pending (Pending)
// until its seq is known, then sealed at it (Seal): the change and its entry are written
// together or not at all. Log then builds the tree over the entries and signs its checkpoints
// with the journal's Key (key.go, tree.go); Verify re-checks an exported journal on its own, as
// anyone who kept checkpoints can.
package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// The kinds of entry.
const (
	KindSale           = "sale"
	KindPrize          = "prize"
	KindDeposit        = "deposit"
	KindWithdrawal     = "withdrawal"
	KindLimits         = "limits"
	KindExclusion      = "exclusion"
	KindClosure        = "closure"
	KindRegisterImport = "register_import"
	KindEmission       = "emission"
	KindOperator       = "operator"
)

// TimeFormat is an entry's time: RFC 3339 in UTC, to the millisecond, at a fixed width.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Event is what an entry records, before it has a seq. Each kind of event is a struct of this
// package; the store builds them from the rows it writes.
type Event interface {
	// Kind is the entry's kind.
	Kind() string
	// Account is the internal id of the player's account the event is about (0: none). It is
	// never written: the entry holds its keyed reference instead (AccountKey.Ref).
	Account() int64
	// fields is the entry's JSON object: head first, then the event's fields.
	fields(h head) any
}

// head is the part of every entry that comes first, in this order.
type head struct {
	Seq  uint64 `json:"seq"`
	Time string `json:"time"`
	Kind string `json:"kind"`
}

// Sale is a game sold: its unit, what it cost and what it pays.
type Sale struct {
	Game      int64
	AccountID int64
	Stake     int64
	Prize     int64
	Emission  string
	Block     int
	Index     int      // the unit's index in its block
	Unit      [32]byte // the leaf hash of the unit's audit line (docs/spec/RULES.md §8)
	Mode      string
	Transfer  int64 // the stake's transfer
}

// Prize is a game's prize credited to its player.
type Prize struct {
	AccountID int64
	Game      int64
	Amount    int64
	Transfer  int64
}

// Payment is a deposit or a withdrawal. Reason says why the server paid a whole balance out
// (lottery.PaidAtExclusion…), "" for a withdrawal the player asked for and for a deposit.
type Payment struct {
	Withdrawal bool
	AccountID  int64
	Amount     int64
	Transfer   int64
	Reason     string
}

// Limits is one change of one of a player's weekly limits.
type Limits struct {
	AccountID int64
	Limit     string // "deposit" or "stake"
	Old       *int64 // nil: none was set
	New       int64
	Effective time.Time
	By        string // "player", or the operator's name
}

// Exclusion is a player's self-exclusion: until when, and the balance paid out.
type Exclusion struct {
	AccountID int64
	Until     time.Time
	Paid      int64
}

// Closure is a player's account closed, and the balance paid out.
type Closure struct {
	AccountID int64
	Paid      int64
	By        string // "player", "register", or the operator's name
}

// RegisterImport is an import of the list of excluded persons and what it did.
type RegisterImport struct {
	Import   int64
	Operator string // the operator's name, or "command line"
	Listed   int
	Added    int
	Gone     int
	Closed   int
}

// Emission is an emission created, or a change of its status.
type Emission struct {
	ID         string
	Event      string // "created", or the status it takes
	Price      int64
	Definition string
	Roots      []string  // the blocks' roots in hex, when created
	OnSaleAt   time.Time // when it opens, when scheduled
	Operator   string    // the operator's name, or "command line", or "server"
}

// Operator is an action of an operator in the back office (lottery.OperatorAction). The journal
// is public: its detail is PublicDetail's, and a player the action is about is named by the
// account reference alone, as in every other entry.
type Operator struct {
	Operator  string
	Action    string
	Detail    string
	AccountID int64 // the player's account the action is about, 0: none
}

// AccountKey is the operator's secret that makes the entries' account references: whoever holds
// it (the operator, a regulator given it) can tell which entries are one player's; nobody else
// can link two of them.
type AccountKey [32]byte

// Ref is the account reference of an entry: HMAC-SHA256 under the key of the account's id and
// the entry's seq, 128 bits in hex.
func (k *AccountKey) Ref(account int64, seq uint64) string {
	var ref [len(noRef)]byte
	k.putRef(ref[:], account, seq)
	return string(ref[:])
}

// putRef writes Ref's text into dst, which is as long.
func (k *AccountKey) putRef(dst []byte, account int64, seq uint64) {
	m, _ := refMACs.Get().(*refMAC)
	if m == nil || m.key != *k {
		m = &refMAC{key: *k, h: hmac.New(sha256.New, k[:])}
	} else {
		m.h.Reset()
	}
	binary.BigEndian.PutUint64(m.in[:8], uint64(account))
	binary.BigEndian.PutUint64(m.in[8:], seq)
	m.h.Write(m.in[:])
	hex.Encode(dst, m.h.Sum(m.sum[:0])[:len(noRef)/2])
	refMACs.Put(m)
}

// refMAC is an HMAC under one key, kept for the next Ref: its Reset restores the keyed state
// where New would hash the key again (a sealing sequencer makes one a sale).
type refMAC struct {
	key AccountKey
	h   hash.Hash
	in  [16]byte
	sum [sha256.Size]byte
}

var refMACs sync.Pool

// Encode makes the bytes of the entry that records ev at seq and at.
func Encode(seq uint64, at time.Time, ev Event, key *AccountKey) []byte {
	// The pending bytes are this call's own: sealed where they are made, not copied (a check
	// rebuilds a sale's entry for each game it compares).
	b, err := seal(Pending(at, ev), seq, ev.Account(), key)
	if err != nil {
		panic("journal: " + err.Error()) // Pending's bytes always seal
	}
	return b
}

// Pending makes the bytes of the entry that records ev at at, before it has a seq: seq 0, and
// in place of the account reference, if it has one, as many zeros. A write queues them with its
// change; the sequencer seals them (Seal) once it gives them their seq.
func Pending(at time.Time, ev Event) []byte {
	if a, ok := ev.(appender); ok && ev.Account() != 0 {
		return a.appendPending(make([]byte, 0, 340), at.UTC()) // room for a seq's digits
	}
	return marshalPending(ev, at)
}

// marshalPending is Pending through json.Marshal, for the kinds that do not append their own
// bytes (append.go), and for the test that holds those equal to it.
func marshalPending(ev Event, at time.Time) []byte {
	v := ev.fields(head{Seq: 0, Time: at.UTC().Format(TimeFormat), Kind: ev.Kind()})
	if ev.Account() != 0 {
		setAccount(v, noRef)
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Every field is a number, a string or a list of strings: it cannot fail.
		panic("journal: " + err.Error())
	}
	return b
}

// noRef holds an account reference's place in a pending entry: as long as one (Ref).
const noRef = "00000000000000000000000000000000"

// The parts of a pending entry that Seal replaces.
var (
	pendingHead = []byte(`{"seq":0,`)
	pendingRef  = []byte(`"account":"` + noRef + `"`)
)

// Seal makes the entry of a pending entry (Pending) at seq, of account (0: none): its seq set,
// and its account reference. Nothing else of its bytes changes. The seq is the entry's first
// field; the reference is the first "account" field, which comes before any string an event's
// fields hold (their numbers, at most, precede it).
func Seal(pending []byte, seq uint64, account int64, key *AccountKey) ([]byte, error) {
	// The pending bytes are the caller's (a write's queued entry): sealed in a copy.
	return seal(append(make([]byte, 0, len(pending)+20), pending...), seq, account, key)
}

// seal is Seal in b's own bytes: the seq's digits in place of its 0, the bytes after moved
// along, and the reference written over the zeros that hold its place.
func seal(b []byte, seq uint64, account int64, key *AccountKey) ([]byte, error) {
	if !bytes.HasPrefix(b, pendingHead) {
		return nil, errors.New("a pending entry begins with seq 0")
	}
	ref := 0
	if account != 0 {
		if ref = bytes.Index(b, pendingRef); ref < 0 {
			return nil, errors.New("a pending entry of an account holds the place of its reference")
		}
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], seq, 10)
	zero := len(pendingHead) - 2 // the 0 of {"seq":0,
	b = slices.Insert(b, zero+1, d[1:]...)
	copy(b[zero:], d)
	if account != 0 {
		ref += len(d) - 1 + len(`"account":"`)
		key.putRef(b[ref:ref+len(noRef)], account, seq)
	}
	return b, nil
}

// Leaf is an entry's leaf hash in the tree: SHA-256(0x00 ‖ the entry's bytes).
func Leaf(entry []byte) tlog.Hash { return tlog.RecordHash(entry) }

// accounted is an entry's object with an account reference.
type accounted interface{ setAccount(string) }

func setAccount(v any, ref string) {
	if a, ok := v.(accounted); ok {
		a.setAccount(ref)
	}
}

type account struct {
	Account string `json:"account"`
}

func (a *account) setAccount(ref string) { a.Account = ref }

func (e Sale) Kind() string      { return KindSale }
func (e Sale) Account() int64    { return e.AccountID }
func (e Prize) Kind() string     { return KindPrize }
func (e Prize) Account() int64   { return e.AccountID }
func (e Limits) Kind() string    { return KindLimits }
func (e Limits) Account() int64  { return e.AccountID }
func (e Exclusion) Kind() string { return KindExclusion }
func (e Exclusion) Account() int64 {
	return e.AccountID
}
func (e Closure) Kind() string          { return KindClosure }
func (e Closure) Account() int64        { return e.AccountID }
func (e RegisterImport) Kind() string   { return KindRegisterImport }
func (e RegisterImport) Account() int64 { return 0 }
func (e Emission) Kind() string         { return KindEmission }
func (e Emission) Account() int64       { return 0 }
func (e Operator) Kind() string         { return KindOperator }
func (e Operator) Account() int64       { return e.AccountID }
func (e Payment) Account() int64        { return e.AccountID }

func (e Payment) Kind() string {
	if e.Withdrawal {
		return KindWithdrawal
	}
	return KindDeposit
}

func (e Sale) fields(h head) any {
	return &saleEntry{head: h, Game: e.Game, Stake: e.Stake, Prize: e.Prize, Emission: e.Emission, Block: e.Block,
		Index: e.Index, Unit: hex.EncodeToString(e.Unit[:]), Mode: e.Mode, Transfer: e.Transfer}
}

func (e Prize) fields(h head) any {
	return &prizeEntry{head: h, Game: e.Game, Amount: e.Amount, Transfer: e.Transfer}
}

func (e Payment) fields(h head) any {
	return &paymentEntry{head: h, Amount: e.Amount, Transfer: e.Transfer, Reason: e.Reason}
}

func (e Limits) fields(h head) any {
	return &limitsEntry{head: h, Limit: e.Limit, Old: e.Old, New: e.New, Effective: e.Effective.UTC().Format(TimeFormat), By: e.By}
}

func (e Exclusion) fields(h head) any {
	return &exclusionEntry{head: h, Until: e.Until.UTC().Format(TimeFormat), Paid: e.Paid}
}

func (e Closure) fields(h head) any {
	return &closureEntry{head: h, Paid: e.Paid, By: e.By}
}

func (e RegisterImport) fields(h head) any {
	return &registerImportEntry{head: h, Import: e.Import, Operator: e.Operator, Listed: e.Listed, Added: e.Added, Gone: e.Gone, Closed: e.Closed}
}

func (e Emission) fields(h head) any {
	roots := e.Roots
	if roots == nil {
		roots = []string{}
	}
	x := &emissionEntry{head: h, Emission: e.ID, Event: e.Event, Price: e.Price, Definition: e.Definition, Roots: roots, Operator: e.Operator}
	if !e.OnSaleAt.IsZero() {
		x.OnSaleAt = e.OnSaleAt.UTC().Format(time.RFC3339Nano)
	}
	return x
}

func (e Operator) fields(h head) any {
	return &operatorEntry{head: h, Operator: e.Operator, Action: e.Action, Detail: e.Detail}
}

// The entries' objects, one type a kind: Encode marshals them, Verify reads lines back into them.

type saleEntry struct {
	head
	Game int64 `json:"game"`
	account
	Stake    int64  `json:"stake"`
	Prize    int64  `json:"prize"`
	Emission string `json:"emission"`
	Block    int    `json:"block"`
	Index    int    `json:"index"`
	Unit     string `json:"unit"`
	Mode     string `json:"mode"`
	Transfer int64  `json:"transfer"`
}

type prizeEntry struct {
	head
	account
	Game     int64 `json:"game"`
	Amount   int64 `json:"amount"`
	Transfer int64 `json:"transfer"`
}

type paymentEntry struct {
	head
	account
	Amount   int64  `json:"amount"`
	Transfer int64  `json:"transfer"`
	Reason   string `json:"reason,omitempty"`
}

type limitsEntry struct {
	head
	account
	Limit     string `json:"limit"`
	Old       *int64 `json:"old"`
	New       int64  `json:"new"`
	Effective string `json:"effective"`
	By        string `json:"by"`
}

type exclusionEntry struct {
	head
	account
	Until string `json:"until"`
	Paid  int64  `json:"paid"`
}

type closureEntry struct {
	head
	account
	Paid int64  `json:"paid"`
	By   string `json:"by"`
}

type registerImportEntry struct {
	head
	Import   int64  `json:"import"`
	Operator string `json:"operator"`
	Listed   int    `json:"listed"`
	Added    int    `json:"added"`
	Gone     int    `json:"gone"`
	Closed   int    `json:"closed"`
}

type emissionEntry struct {
	head
	Emission   string   `json:"emission"`
	Event      string   `json:"event"`
	Price      int64    `json:"price"`
	Definition string   `json:"definition"`
	Roots      []string `json:"roots"`
	OnSaleAt   string   `json:"on_sale_at,omitempty"`
	Operator   string   `json:"operator"`
}

type operatorEntry struct {
	head
	Operator string `json:"operator"`
	Action   string `json:"action"`
	Detail   string `json:"detail"`
	// Account is the reference of the player the action is about; absent before there was one,
	// and for an action about no player.
	Account string `json:"account,omitempty"`
}

func (e *operatorEntry) setAccount(ref string) { e.Account = ref }
