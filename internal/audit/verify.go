package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

// Defect is the first thing wrong with an export: where (a unit, or the file as a whole when Unit
// is -1) and what.
type Defect struct {
	Unit int
	Line int
	Msg  string
}

func (d *Defect) Error() string {
	if d.Unit < 0 {
		if d.Line > 0 {
			return fmt.Sprintf("line %d: %s", d.Line, d.Msg)
		}
		return d.Msg
	}
	return fmt.Sprintf("unit %d (line %d): %s", d.Unit, d.Line, d.Msg)
}

func fileDefect(line int, format string, args ...any) *Defect {
	return &Defect{Unit: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func unitDefect(i int, format string, args ...any) *Defect {
	return &Defect{Unit: i, Line: i + 2, Msg: fmt.Sprintf(format, args...)}
}

// Summary is what a verified export holds.
type Summary struct {
	Header  Header
	Price   int64 // cents
	Units   int
	Winners int
	Payout  int64 // cents
	Extra   int   // units with an Extra stage
	Counts  []int // units per tier, in header order
}

// Verify re-checks a whole export on its own, against the rules and the game definition the
// header names:
//
//  1. every unit, evaluated: its prize, composite tiers, amounts allowed, nothing outside what the
//     rules reveal, the Extra rules, the same outcome whatever the colour;
//  2. the exact tier counts and the payout;
//  3. the block root.
//
// It returns the first defect in file order, as a *Defect.
func Verify(r io.Reader) (*Summary, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, err := br.Peek(2)
	if len(magic) == 0 {
		if err == nil || err == io.EOF {
			return nil, fileDefect(0, "empty file: not a %s export", Format)
		}
		return nil, fileDefect(0, "reading: %v", err)
	}
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fileDefect(0, "gzip: %v", err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	head, err := readLine(br)
	if err != nil && !(err == io.EOF && len(head) > 0) {
		return nil, fileDefect(1, "no header line: %v", err)
	}
	v, err := newVerifier(head)
	if err != nil {
		return nil, err
	}
	if err := v.run(br); err != nil {
		return nil, err
	}
	return v.summary()
}

// readLine returns the next line without its newline; io.EOF with a final unterminated line.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return nil, fmt.Errorf("a line is longer than %d bytes", br.Size())
	case err == io.EOF:
		return line, io.EOF
	case err != nil:
		return nil, err
	}
	return line[:len(line)-1], nil
}

type verifier struct {
	h         Header
	price     int64
	tiers     []Tier
	amounts   []int64 // allowed under a star; sorted
	composite map[int64]bool
	root      Hash

	leaves     []Hash
	batchRoots []Hash
	tierOf     []uint8
	extra      []bool

	mu    sync.Mutex
	first *Defect
	stop  atomic.Int64 // no unit at or after this index needs checking: a defect came before
}

// newVerifier reads the header and checks it against the game definition it names.
func newVerifier(line []byte) (*verifier, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fileDefect(1, "the header is not a JSON object (%v): not a %s export", err, Format)
	}
	if h.Format != Format {
		return nil, fileDefect(1, "format %q: not a %s export", h.Format, Format)
	}
	v := &verifier{h: h, composite: map[int64]bool{}}
	var err error
	if v.price, err = Cents(h.Price); err != nil || v.price <= 0 {
		return nil, fileDefect(1, "header: price %q is not a positive amount of euros", h.Price)
	}
	if h.PriceCents != 0 && h.PriceCents != v.price {
		return nil, fileDefect(1, "header: price %s € but price_cents %d", h.Price, h.PriceCents)
	}
	if h.CreatedAt != "" {
		if _, err := time.Parse(time.RFC3339, h.CreatedAt); err != nil {
			return nil, fileDefect(1, "header: created_at %q is not an RFC 3339 time", h.CreatedAt)
		}
	}
	if h.Emission == "" || h.Block < 0 || h.Units <= 0 {
		return nil, fileDefect(1, "header: emission %q, block %d, units %d: want an id, a block from 0 and a positive number of units", h.Emission, h.Block, h.Units)
	}
	if raw, err := hex.DecodeString(h.Root); err != nil || len(raw) != len(v.root) || hex.EncodeToString(raw) != h.Root {
		return nil, fileDefect(1, "header: root %q is not 64 lower-case hex digits", h.Root)
	} else {
		copy(v.root[:], raw)
	}
	version := h.Definition
	if version == "" {
		version = gamedef.Default
	}
	def, err := gamedef.Lookup(version)
	if err != nil {
		return nil, fileDefect(1, "header: %v", err)
	}
	table, err := def.Table(v.price)
	if err != nil {
		return nil, fileDefect(1, "header: %v", err)
	}
	if h.Units != def.BlockUnits {
		return nil, fileDefect(1, "header: %d units, a block of %s has %d", h.Units, version, def.BlockUnits)
	}
	want := make([]Tier, len(table.Tiers))
	for i, t := range table.Tiers {
		want[i] = Tier{Amount: t.Amount, Count: t.Count, Composite: t.Composite}
	}
	if !slices.Equal(h.Tiers, want) {
		return nil, fileDefect(1, "header: the tiers %v are not the table of %s at %s %v", h.Tiers, version, gamedef.FormatEUR(v.price), want)
	}
	if h.Amounts != nil && !slices.Equal(h.Amounts, table.Amounts) {
		return nil, fileDefect(1, "header: the amounts %v are not those of %s at %s %v", h.Amounts, version, gamedef.FormatEUR(v.price), table.Amounts)
	}
	v.tiers, v.amounts = h.Tiers, table.Amounts
	for _, t := range v.tiers {
		if t.Composite {
			v.composite[t.Amount] = true
		}
	}
	v.leaves = make([]Hash, h.Units)
	v.batchRoots = make([]Hash, (h.Units+batchLines-1)/batchLines)
	v.tierOf = make([]uint8, h.Units)
	v.extra = make([]bool, h.Units)
	v.stop.Store(int64(h.Units))
	return v, nil
}

// report keeps the defect of the lowest unit.
func (v *verifier) report(d *Defect) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.first == nil || d.Unit < v.first.Unit {
		v.first = d
		v.stop.Store(int64(d.Unit))
	}
}

type batch struct {
	start int
	data  []byte
	ends  []int
}

// batchLines is how many lines a worker checks at a time: a power of two, see run.
const batchLines = 2048

// run reads the unit lines and checks them on every core, in batches.
func (v *verifier) run(br *bufio.Reader) error {
	batches := make(chan *batch, 4)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range batches {
				if int64(b.start) >= v.stop.Load() {
					continue
				}
				prev, ok := 0, true
				for k, end := range b.ends {
					i := b.start + k
					if d := v.check(i, b.data[prev:end]); d != nil {
						v.report(d)
						ok = false
						break
					}
					prev = end
				}
				// A batch is an aligned power-of-two run of leaves, a node of the block's tree
				// (or the last, partial one): its root is computed here, on every core.
				if ok {
					v.batchRoots[b.start/batchLines] = Root(v.leaves[b.start : b.start+len(b.ends)])
				}
			}
		})
	}
	readErr := v.read(br, batches)
	close(batches)
	wg.Wait()
	if v.first != nil && (readErr == nil || v.first.Unit < readErr.Unit || readErr.Unit < 0) {
		return v.first
	}
	if readErr != nil {
		return readErr
	}
	return nil
}

// read splits the unit lines into batches; it reports a file that ends early or goes on too long.
func (v *verifier) read(br *bufio.Reader, out chan<- *batch) *Defect {
	i := 0
	for i < v.h.Units {
		if int64(i) >= v.stop.Load() {
			return nil
		}
		b := &batch{start: i, data: make([]byte, 0, batchLines*256)}
		for len(b.ends) < batchLines && i < v.h.Units {
			line, err := readLine(br)
			if err != nil && err != io.EOF {
				out <- b
				return unitDefect(i, "%v", err)
			}
			if err == io.EOF && len(line) == 0 {
				out <- b
				return fileDefect(0, "truncated: the header announces %d units but the file ends after %d", v.h.Units, i)
			}
			b.data = append(b.data, line...)
			b.ends = append(b.ends, len(b.data))
			i++
		}
		out <- b
	}
	rest, err := br.ReadByte()
	if err == nil {
		return fileDefect(v.h.Units+2, "the file goes on after the %d units the header announces (byte %q)", v.h.Units, rest)
	}
	if err != io.EOF {
		return fileDefect(v.h.Units+2, "%v", err)
	}
	return nil
}

// check verifies one unit line and records its leaf, tier and Extra stage.
func (v *verifier) check(i int, line []byte) *Defect {
	rec, err := ParseLine(line)
	if err != nil {
		return unitDefect(i, "%v", err)
	}
	if rec.Index != i {
		return unitDefect(i, "index %d, expected %d: lines must be in sale order", rec.Index, i)
	}
	u := &rec.Unit
	o, err := u.Check()
	if err != nil {
		return unitDefect(i, "%v", err)
	}
	if o.Prize != rec.Prize {
		return unitDefect(i, "prize %s but the boards reveal %s", gamedef.FormatEUR(rec.Prize), gamedef.FormatEUR(o.Prize))
	}
	tier := slices.IndexFunc(v.tiers, func(t Tier) bool { return t.Amount == rec.Prize })
	if tier < 0 {
		return unitDefect(i, "prize %s is not a tier of the table", gamedef.FormatEUR(rec.Prize))
	}
	if v.tiers[tier].Composite && o.Gains < 2 {
		return unitDefect(i, "prize %s is composite only but the unit reveals %d gain", gamedef.FormatEUR(rec.Prize), o.Gains)
	}
	if d := v.checkAmounts(i, u); d != nil {
		return d
	}
	// The stars revealed, hence the prize, must be the same whatever colour is selected: on the
	// boards relabelled for colour c (docs/spec/RULES.md §5), colour c reveals the same cells.
	r1 := rules.RevealEveryColor(&u.B1)
	var r2 [rules.NumColors]rules.Mask
	if u.HasB2 {
		r2 = rules.RevealEveryColor(&u.B2)
	}
	for c := range rules.Color(rules.NumColors) {
		if r1[c] != o.B1.Revealed || r2[c] != o.B2.Revealed {
			return unitDefect(i, "selecting %s does not reveal the same stars as selecting %s: the outcome must not depend on the colour", c, rules.Color(0))
		}
	}
	v.leaves[i] = LeafHash(line)
	v.tierOf[i] = uint8(tier)
	v.extra[i] = u.HasB2
	return nil
}

func (v *verifier) checkAmounts(i int, u *rules.Unit) *Defect {
	boards := []*rules.Board{&u.B1, &u.B2}
	if !u.HasB2 {
		boards = boards[:1]
	}
	for n, b := range boards {
		for cell := range b {
			a := b[cell].Amount
			if b[cell].Kind != rules.Amount {
				continue
			}
			if v.composite[a] {
				return unitDefect(i, "board %d cell %d shows %s, a composite tier that only several gains may reach", n+1, cell, gamedef.FormatEUR(a))
			}
			if _, ok := slices.BinarySearch(v.amounts, a); !ok {
				return unitDefect(i, "board %d cell %d shows %s, not an amount of the table", n+1, cell, gamedef.FormatEUR(a))
			}
		}
	}
	return nil
}

// summary checks the block as a whole: the exact tier counts, the payout and the root.
func (v *verifier) summary() (*Summary, error) {
	s := &Summary{Header: v.h, Price: v.price, Units: v.h.Units, Counts: make([]int, len(v.tiers))}
	for i := range v.h.Units {
		t := v.tiers[v.tierOf[i]]
		s.Counts[v.tierOf[i]]++
		s.Payout += t.Amount
		if t.Amount > 0 {
			s.Winners++
		}
		if v.extra[i] {
			s.Extra++
		}
	}
	var want int64
	for k, t := range v.tiers {
		if s.Counts[k] != t.Count {
			return nil, fileDefect(0, "tier %s: %d units, the table has %d", gamedef.FormatEUR(t.Amount), s.Counts[k], t.Count)
		}
		want += t.Amount * int64(t.Count)
	}
	if s.Payout != want {
		return nil, fileDefect(0, "payout %s, the table pays %s", gamedef.FormatEUR(s.Payout), gamedef.FormatEUR(want))
	}
	if root := Root(v.batchRoots); root != v.root {
		return nil, fileDefect(1, "root mismatch: the lines hash to %x, the header commits to %s", root, v.h.Root)
	}
	return s, nil
}

// ErrDefect lets callers tell a defect of the export from an error reading it.
var ErrDefect = errors.New("defect")

// Is makes errors.Is(err, ErrDefect) true for a *Defect.
func (d *Defect) Is(target error) bool { return target == ErrDefect }
