package journal

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/audit"
	"starcolor/internal/strictjson"
)

// MaxProblems is how many problems a Report keeps; the others are counted. A journal cut in its
// middle would otherwise be a problem a line for a hundred million lines.
const MaxProblems = 1000

// maxLine bounds the line an entry is read from: the largest, an emission's of a thousand
// blocks, is 70 kB. A longer line is still hashed into the tree, not parsed.
const maxLine = 1 << 20

// Problem is one thing wrong in a journal, naming the entry at fault.
type Problem struct {
	// Seq is the entry's seq (its line, from 0), or the first of the entries at fault; -1 when
	// the problem is a checkpoint's or an export's own.
	Seq int64
	Msg string
}

func (p Problem) String() string {
	if p.Seq < 0 {
		return p.Msg
	}
	return fmt.Sprintf("seq %d: %s", p.Seq, p.Msg)
}

// Report is what Verify found.
type Report struct {
	// Entries is how many lines the journal holds.
	Entries int64
	// Checkpoints is how many checkpoints were verified: signed by the key, and signing the
	// root of the journal's first entries.
	Checkpoints int
	// Size is the size of the largest checkpoint verified (0: none).
	Size int64
	// Root is the root of the tree of all the entries.
	Root tlog.Hash
	// Sales is how many sales were checked against a block export.
	Sales int64
	// Problems are the first MaxProblems problems found, by seq.
	Problems []Problem
	// Dropped is how many more problems were found.
	Dropped int64
}

// OK says whether the journal was found with no problem.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) add(seq int64, format string, args ...any) {
	if len(r.Problems) >= MaxProblems {
		r.Dropped++
		return
	}
	r.Problems = append(r.Problems, Problem{Seq: seq, Msg: fmt.Sprintf(format, args...)})
}

// Signed is a checkpoint given to Verify: a signed note's text, and a name to report it by.
type Signed struct {
	Name string
	Note []byte
}

// Block is a block's units as its audit export tells them (docs/spec/RULES.md §8).
type Block struct {
	// Name is what problems call the export (its file); the caller sets it.
	Name     string
	Emission string
	Block    int
	Price    int64 // cents
	Root     audit.Hash
	leaves   []audit.Hash
	prizes   []int64
}

// ReadBlock reads a block's audit export, gzip-compressed or not: each unit's leaf hash and
// prize. It checks that the lines are the block's units in order and hash to the root the header
// commits to; it does not re-check the units under the rules, as `starcolor emission verify`
// does.
func ReadBlock(r io.Reader) (*Block, error) {
	br, closer, err := decompressed(r)
	if err != nil {
		return nil, err
	}
	defer closer()
	head, err := br.ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("no header line: %w", err)
	}
	var h audit.Header
	if err := json.Unmarshal(head, &h); err != nil || h.Format != audit.Format {
		return nil, fmt.Errorf("the first line is not the header of a %s export", audit.Format)
	}
	b := &Block{Emission: h.Emission, Block: h.Block}
	if b.Price, err = audit.Cents(h.Price); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if root, err := hex.DecodeString(h.Root); err != nil || len(root) != len(b.Root) {
		return nil, fmt.Errorf("header: the root %q is not 64 hex digits", h.Root)
	} else {
		copy(b.Root[:], root)
	}
	if h.Units <= 0 || h.Units > 1<<24 {
		return nil, fmt.Errorf("header: %d units", h.Units)
	}
	// A header is not trusted with the memory it asks for: a block is a million units at most.
	b.leaves = make([]audit.Hash, 0, min(h.Units, 1<<20))
	b.prizes = make([]int64, 0, min(h.Units, 1<<20))
	for {
		line, err := br.ReadSlice('\n')
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("unit %d: %w", len(b.leaves), err)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		rec, perr := audit.ParseLine(line)
		if perr != nil || rec.Index != len(b.leaves) {
			return nil, fmt.Errorf("line %d is not the audit line of unit %d", len(b.leaves)+2, len(b.leaves))
		}
		if len(b.leaves) == h.Units {
			return nil, fmt.Errorf("more than the %d units the header announces", h.Units)
		}
		b.leaves = append(b.leaves, audit.LeafHash(line))
		b.prizes = append(b.prizes, rec.Prize)
		if err == io.EOF {
			break
		}
	}
	if len(b.leaves) != h.Units {
		return nil, fmt.Errorf("%d units, the header announces %d", len(b.leaves), h.Units)
	}
	if root := audit.Root(b.leaves); root != b.Root {
		return nil, fmt.Errorf("the units hash to %x, the header commits to %s", root, h.Root)
	}
	return b, nil
}

// decompressed reads r through gzip when it starts as gzip does.
func decompressed(r io.Reader) (*bufio.Reader, func() error, error) {
	br := bufio.NewReaderSize(r, maxLine)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return bufio.NewReaderSize(gz, maxLine), gz.Close, nil
	}
	return br, func() error { return nil }, nil
}

// checkpoint is a checkpoint given to Verify, opened.
type checkpoint struct {
	name string
	size int64
	root tlog.Hash
}

// openCheckpoint checks a checkpoint's signature with the verifier and reads its size and root.
func openCheckpoint(text []byte, v note.Verifier) (size int64, root tlog.Hash, err error) {
	n, err := note.Open(text, note.VerifierList(v))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) && len(unverified.Note.UnverifiedSigs) > 0 {
			s := unverified.Note.UnverifiedSigs[0]
			return 0, root, fmt.Errorf("signed with the key %s+%08x, not with %s+%08x", s.Name, s.Hash, v.Name(), v.KeyHash())
		}
		return 0, root, fmt.Errorf("not a note signed with %s: %v", v.Name(), err)
	}
	cp, _, _, err := log.ParseCheckpoint(text, v.Name(), v)
	if err != nil {
		return 0, root, fmt.Errorf("not a checkpoint of %s: %v", v.Name(), n.Text)
	}
	if len(cp.Hash) != len(root) || cp.Size > 1<<62 {
		return 0, root, fmt.Errorf("size %d, root of %d bytes: not a checkpoint of an RFC 6962 SHA-256 tree", cp.Size, len(cp.Hash))
	}
	// The body is read back as it is written: "05" for 5, or a '\r' base64 skips, are bodies no
	// server writes.
	if !strings.HasPrefix(n.Text, string(cp.Marshal())) {
		return 0, root, fmt.Errorf("not a checkpoint as written: %q", n.Text)
	}
	copy(root[:], cp.Hash)
	return int64(cp.Size), root, nil
}

// blockKey names a block of an emission.
type blockKey struct {
	emission string
	block    int
}

// sold is a block given to Verify, and the seq of each of its units' sale (-1: none yet).
type sold struct {
	*Block
	seq []int64
}

// verifier is the state of one Verify: O(log n) of the tree, the checkpoints still to reach,
// and the blocks given.
type verifier struct {
	rep    *Report
	tree   *compact.Range
	checks []checkpoint // by size; the first is the next to reach
	good   int64        // the size of the largest checkpoint verified so far
	blocks map[blockKey]*sold
	failed failure

	// The run of lines whose seq is shifted from their line by the same amount, reported as one.
	runStart, runEnd, runShift int64
}

// Verify reads a journal exported one entry a line (gzip-compressed or not), in one pass, and
// reports what is wrong with it, naming the entry:
//   - a line that is not an entry: not its exact bytes, its seq not its line (an entry missing,
//     added or moved), an unknown kind;
//   - a checkpoint not signed with the key (another journal's, or forged);
//   - a checkpoint whose root is not the root of the journal's entries up to its size: the past
//     was rewritten since it was signed, or the file was changed;
//   - a checkpoint larger than the journal;
//   - given the audit exports of blocks, a sale whose unit or prize is not the export's, a unit
//     sold twice, an emission whose roots are not the exports'.
//
// It holds O(log n) hashes of the tree, never the file. Its error is for what stops it: the key
// unreadable, the file unreadable, ctx done.
func Verify(ctx context.Context, r io.Reader, key string, checkpoints []Signed, blocks []*Block) (*Report, error) {
	v, err := note.NewVerifier(key)
	if err != nil {
		return nil, fmt.Errorf("the key %q is not a note verifier key: %w", key, err)
	}
	rep := &Report{}
	f := &compact.RangeFactory{Hash: nodeHash}
	ver := &verifier{rep: rep, tree: f.NewEmptyRange(0), blocks: map[blockKey]*sold{}, failed: failure{later: -1}}
	ver.openCheckpoints(checkpoints, v)
	ver.addBlocks(blocks)
	if err := ver.read(ctx, r); err != nil {
		return nil, err
	}
	ver.flushRun()
	ver.flushFailed(nil)
	for _, c := range ver.checks {
		rep.add(rep.Entries, "checkpoint %s signs %d entries, the journal holds %d: %s missing", c.name, c.size, rep.Entries, span(rep.Entries, c.size-1, "is", "are"))
	}
	// In the order of the entries, the checkpoints' and exports' own first.
	slices.SortStableFunc(rep.Problems, func(a, b Problem) int { return cmp.Compare(a.Seq, b.Seq) })
	rep.Size = ver.good
	root, err := ver.root()
	if err != nil {
		return nil, err
	}
	rep.Root = root
	return rep, nil
}

// nodeHash is RFC 6962's interior node, as compact.Range takes it.
func nodeHash(left, right []byte) []byte {
	h := tlog.NodeHash(tlog.Hash(left), tlog.Hash(right))
	return h[:]
}

// openCheckpoints checks the signatures of the checkpoints and orders them by size.
func (v *verifier) openCheckpoints(signed []Signed, nv note.Verifier) {
	for _, s := range signed {
		size, root, err := openCheckpoint(s.Note, nv)
		if err != nil {
			v.rep.add(-1, "checkpoint %s: %v", s.Name, err)
			continue
		}
		v.checks = append(v.checks, checkpoint{name: s.Name, size: size, root: root})
	}
	slices.SortStableFunc(v.checks, func(a, b checkpoint) int { return cmp.Compare(a.size, b.size) })
	for i := 1; i < len(v.checks); i++ {
		if a, b := v.checks[i-1], v.checks[i]; a.size == b.size && a.root != b.root {
			// Two signed roots of one size are two histories, whatever the file holds.
			v.rep.add(-1, "checkpoints %s and %s both sign %d entries, with two roots: the journal's key signed two histories", a.name, b.name, a.size)
		}
	}
	// The tree of no entry has a root too.
	for len(v.checks) > 0 && v.checks[0].size == 0 {
		if c := v.checks[0]; c.root != emptyRoot {
			v.rep.add(-1, "checkpoint %s signs an empty journal with the root %x", c.name, c.root[:])
		}
		v.checks = v.checks[1:]
	}
}

// emptyRoot is the root of the tree of no entry (RFC 6962: SHA-256 of nothing).
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// addBlocks indexes the blocks given by emission and block.
func (v *verifier) addBlocks(blocks []*Block) {
	for _, b := range blocks {
		k := blockKey{b.Emission, b.Block}
		if was, ok := v.blocks[k]; ok {
			if was.Root != b.Root {
				v.rep.add(-1, "exports %s and %s both give block %d of emission %s, with two roots", was.Name, b.Name, b.Block, b.Emission)
			}
			continue
		}
		seq := make([]int64, len(b.leaves))
		for i := range seq {
			seq[i] = -1
		}
		v.blocks[k] = &sold{Block: b, seq: seq}
	}
}

// batchLines is how many lines a worker parses and hashes at a time: 1,024 lines of about 300
// bytes, so that the batches in flight hold a few MB whatever the journal's size.
const batchLines = 1024

// batch is consecutive lines of the journal, parsed and hashed by a worker.
type batch struct {
	start  int64
	data   []byte
	ends   []int             // where each line ends in data
	long   map[int]tlog.Hash // the leaves of the lines longer than maxLine, hashed as read
	leaves []tlog.Hash
	parsed []parsed
	err    error // what stopped the reading after these lines
	done   chan struct{}
}

// parsed is a line read by parseEntry.
type parsed struct {
	e   any
	seq uint64
	err error
}

// read reads the journal: one goroutine reads the lines in batches, every core parses and
// hashes them (three quarters of the work: strict JSON, then the bytes written again), and this
// one takes the batches in order into the tree and the checks that follow the order.
func (v *verifier) read(ctx context.Context, r io.Reader) error {
	br, closer, err := decompressed(r)
	if err != nil {
		return err
	}
	defer closer()
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, workers)
	ordered := make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.parse()
			}
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	// On the way out the reader is stopped first, which closes the workers' channel.
	defer wg.Wait()
	defer cancel()
	go readBatches(ctx, br, work, ordered)
	for b := range ordered {
		<-b.done
		if err := v.take(b); err != nil {
			return err
		}
		if b.err == io.EOF {
			return nil
		}
		if b.err != nil {
			return b.err
		}
	}
	return ctx.Err()
}

// readBatches splits the journal into batches, handing each to the workers and, in order, to
// the reader of their results. The last batch carries the error that ended the reading, if any
// but the end of the file.
func readBatches(ctx context.Context, br *bufio.Reader, work, ordered chan<- *batch) {
	defer close(work)
	defer close(ordered)
	for n := int64(0); ; {
		b := &batch{start: n, data: make([]byte, 0, batchLines*320), done: make(chan struct{})}
		for len(b.ends) < batchLines && b.err == nil {
			line, err := br.ReadSlice('\n')
			if err == io.EOF && len(line) == 0 {
				b.err = io.EOF
				break
			}
			switch {
			case err == bufio.ErrBufferFull:
				leaf, err := longLeaf(line, br)
				if err != nil {
					b.err = fmt.Errorf("journal line %d: %w", n+1, err)
					continue
				}
				if b.long == nil {
					b.long = map[int]tlog.Hash{}
				}
				b.long[len(b.ends)] = leaf
			case err != nil && err != io.EOF:
				b.err = fmt.Errorf("journal line %d: %w", n+1, err)
				continue
			default:
				b.data = append(b.data, bytes.TrimSuffix(line, []byte("\n"))...)
			}
			b.ends = append(b.ends, len(b.data))
			n++
		}
		if b.err == nil {
			b.err = ctx.Err()
		}
		select {
		case ordered <- b:
		case <-ctx.Done():
			return
		}
		work <- b
		if b.err != nil {
			return
		}
	}
}

// parse parses and hashes the batch's lines.
func (b *batch) parse() {
	defer close(b.done)
	b.leaves = make([]tlog.Hash, len(b.ends))
	b.parsed = make([]parsed, len(b.ends))
	prev := 0
	for i, end := range b.ends {
		line := b.data[prev:end]
		prev = end
		if leaf, ok := b.long[i]; ok {
			b.leaves[i] = leaf
			b.parsed[i].err = fmt.Errorf("the line is longer than %d bytes: not an entry", maxLine)
			continue
		}
		b.leaves[i] = Leaf(line)
		p := &b.parsed[i]
		p.e, p.seq, p.err = parseEntry(line)
	}
}

// take adds a batch's lines to the tree, in order, and checks what follows the order: the
// seqs, the checkpoints, the sales against the blocks.
func (v *verifier) take(b *batch) error {
	for i := range b.ends {
		n := b.start + int64(i)
		v.entry(n, b.parsed[i])
		if err := v.tree.Append(b.leaves[i][:], nil); err != nil {
			return err
		}
		v.rep.Entries = n + 1
		if err := v.reach(n + 1); err != nil {
			return err
		}
	}
	return nil
}

// newLeafHash starts the hash of a leaf: SHA-256 of a zero byte, then the entry.
func newLeafHash() hash.Hash {
	h := sha256.New()
	h.Write([]byte{0})
	return h
}

// longLeaf hashes a line longer than the reader's buffer, as it streams by.
func longLeaf(start []byte, br *bufio.Reader) (tlog.Hash, error) {
	h := newLeafHash()
	h.Write(start)
	for {
		part, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			h.Write(part)
			continue
		}
		if err != nil && err != io.EOF {
			return tlog.Hash{}, err
		}
		h.Write(bytes.TrimSuffix(part, []byte("\n")))
		var leaf tlog.Hash
		h.Sum(leaf[:0])
		return leaf, nil
	}
}

// reach checks the checkpoints of size entries, now that the tree has that many.
func (v *verifier) reach(size int64) error {
	if len(v.checks) == 0 || v.checks[0].size != size {
		return nil
	}
	root, err := v.root()
	if err != nil {
		return err
	}
	from := v.good
	for len(v.checks) > 0 && v.checks[0].size == size {
		c := v.checks[0]
		v.checks = v.checks[1:]
		if c.root != root {
			if v.failed.later++; v.failed.later == 0 {
				v.failed = failure{from: from, first: c, root: root}
			}
			v.failed.last = c
			continue
		}
		v.flushFailed(&c)
		v.rep.Checkpoints++
		v.good = size
	}
	return nil
}

// failure is the checkpoints that failed since the last one verified, reported as one: once the
// entries differ from what one signs, they differ from what every later one signs too.
type failure struct {
	from        int64 // the size of the last checkpoint verified before them
	first, last checkpoint
	root        tlog.Hash // what the entries hash to at first's size
	later       int       // how many failed after first; -1: none failed
}

// flushFailed reports the checkpoints that failed, now that pass, a later one, verifies (nil:
// the file is read).
func (v *verifier) flushFailed(pass *checkpoint) {
	f := v.failed
	if f.later < 0 {
		return
	}
	v.failed.later = -1
	msg := fmt.Sprintf("%s not those checkpoint %s signed: it signs the root %x, they hash to %x", span(f.from, f.first.size-1, "is", "are"), f.first.name, f.first.root[:], f.root[:])
	if f.later > 0 {
		msg += fmt.Sprintf("; nor are the entries of the %s after it, up to %s of %d", count(int64(f.later), "checkpoint", "checkpoints"), f.last.name, f.last.size)
	}
	if pass != nil {
		// Two signed checkpoints that no one journal satisfies are two histories.
		msg += fmt.Sprintf("; yet %s, signed later, signs these entries: the past was rewritten after %s was signed", pass.name, f.first.name)
	} else {
		msg += " (the past rewritten, or the file changed)"
	}
	v.rep.add(f.from, "%s", msg)
}

// span names the entries a to b: "entry 4" or "entries 4 to 9", and the verb that agrees.
func span(a, b int64, one, many string) string {
	if a == b {
		return fmt.Sprintf("entry %d %s", a, one)
	}
	return fmt.Sprintf("entries %d to %d %s", a, b, many)
}

// root is the root of the tree of the entries read so far.
func (v *verifier) root() (tlog.Hash, error) {
	if v.tree.End() == 0 {
		return emptyRoot, nil
	}
	h, err := v.tree.GetRootHash(nil)
	if err != nil {
		return tlog.Hash{}, err
	}
	return tlog.Hash(h), nil
}

// entry checks that the line at n is an entry, the n-th.
func (v *verifier) entry(n int64, p parsed) {
	if p.err != nil {
		v.flushRun()
		v.rep.add(n, "%v", p.err)
		return
	}
	v.shifted(n, int64(p.seq))
	switch e := p.e.(type) {
	case *saleEntry:
		v.sale(n, e)
	case *emissionEntry:
		v.emission(n, e)
	}
}

// shifted follows the lines whose seq is not their line: the lines after an entry removed, all
// shifted by one, are one problem, not a problem each.
func (v *verifier) shifted(n, seq int64) {
	shift := seq - n
	if shift != 0 && shift == v.runShift && n == v.runEnd {
		v.runEnd++
		return
	}
	v.flushRun()
	if shift != 0 {
		v.runStart, v.runEnd, v.runShift = n, n+1, shift
	}
}

// flushRun reports the run of shifted lines that just ended.
func (v *verifier) flushRun() {
	if v.runShift == 0 {
		return
	}
	a, b, s := v.runStart, v.runEnd-1, v.runShift
	switch {
	case a == b:
		v.rep.add(a, "the line holds the entry of seq %d: entries are missing, added or out of order", a+s)
	case s > 0:
		v.rep.add(a, "the lines of seq %d to %d hold the entries of seq %d to %d: %s missing before them", a, b, a+s, b+s, count(s, "entry is", "entries are"))
	default:
		v.rep.add(a, "the lines of seq %d to %d hold the entries of seq %d to %d: %s added before them", a, b, a+s, b+s, count(-s, "line is", "lines are"))
	}
	v.runShift = 0
}

// count says n things: "1 entry is", "2 entries are".
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sale checks a sale against the export of its block, when given.
func (v *verifier) sale(n int64, e *saleEntry) {
	b, ok := v.blocks[blockKey{e.Emission, e.Block}]
	if !ok {
		return
	}
	v.rep.Sales++
	if e.Index < 0 || e.Index >= len(b.leaves) {
		v.rep.add(n, "unit %d of block %d of emission %s: the block has %d units (%s)", e.Index, e.Block, e.Emission, len(b.leaves), b.Name)
		return
	}
	var unit audit.Hash
	hex.Decode(unit[:], []byte(e.Unit)) // parseEntry checked it
	if want := b.leaves[e.Index]; unit != want {
		v.rep.add(n, "the unit of emission %s block %d index %d is %s, the export %s has %x", e.Emission, e.Block, e.Index, e.Unit, b.Name, want)
	}
	if want := b.prizes[e.Index]; e.Prize != want {
		v.rep.add(n, "the sale of unit %d of emission %s block %d pays %d cents, the unit %d (%s)", e.Index, e.Emission, e.Block, e.Prize, want, b.Name)
	}
	if first := b.seq[e.Index]; first >= 0 {
		v.rep.add(n, "unit %d of emission %s block %d is sold again: its first sale is seq %d", e.Index, e.Emission, e.Block, first)
	} else {
		b.seq[e.Index] = n
	}
}

// emission checks an emission's roots against the exports of its blocks, when given.
func (v *verifier) emission(n int64, e *emissionEntry) {
	if e.Event != "created" {
		return
	}
	for k, b := range v.blocks {
		if k.emission != e.Emission {
			continue
		}
		switch {
		case k.block >= len(e.Roots):
			v.rep.add(n, "emission %s has %d blocks: the export %s gives block %d", e.Emission, len(e.Roots), b.Name, k.block)
		case e.Roots[k.block] != hex.EncodeToString(b.Root[:]):
			v.rep.add(n, "emission %s commits block %d to the root %s, the export %s has %x", e.Emission, k.block, e.Roots[k.block], b.Name, b.Root)
		case e.Price != b.Price:
			v.rep.add(n, "emission %s sells at %d cents, the export %s of block %d at %d", e.Emission, e.Price, b.Name, k.block, b.Price)
		}
	}
}

// entryOf makes the object of an entry of each kind, to read a line into.
var entryOf = map[string]func() any{
	KindSale:           func() any { return new(saleEntry) },
	KindPrize:          func() any { return new(prizeEntry) },
	KindDeposit:        func() any { return new(paymentEntry) },
	KindWithdrawal:     func() any { return new(paymentEntry) },
	KindLimits:         func() any { return new(limitsEntry) },
	KindExclusion:      func() any { return new(exclusionEntry) },
	KindClosure:        func() any { return new(closureEntry) },
	KindRegisterImport: func() any { return new(registerImportEntry) },
	KindEmission:       func() any { return new(emissionEntry) },
	KindOperator:       func() any { return new(operatorEntry) },
}

// parseEntry reads a journal line: exactly the bytes Encode writes for an entry of a known kind,
// read strictly (strictjson: no name twice, no unknown field), then written again and compared.
// So a line the verifier takes is one the server could have written.
func parseEntry(line []byte) (any, uint64, error) {
	kind := kindHint(line)
	mk, ok := entryOf[kind]
	if !ok {
		// Not an entry as written: read it as JSON to say why.
		var h head
		if err := jsonv2.Unmarshal(line, &h); err != nil {
			return nil, 0, fmt.Errorf("not a JSON entry: %v", err)
		}
		if kind, mk = h.Kind, entryOf[h.Kind]; mk == nil {
			return nil, h.Seq, fmt.Errorf("unknown kind %q", h.Kind)
		}
	}
	e := mk()
	if err := strictjson.Decode(line, e); err != nil {
		var h head
		if jerr := jsonv2.Unmarshal(line, &h); jerr != nil {
			return nil, 0, fmt.Errorf("not a JSON entry: %v", jerr)
		}
		return nil, h.Seq, fmt.Errorf("not %s entry: %v", article(kind), err)
	}
	h := e.(headed).headOf()
	if again, err := json.Marshal(e); err != nil || !bytes.Equal(again, line) {
		return nil, h.Seq, fmt.Errorf("not %s entry as the server writes it: its fields are out of order, or it holds spaces or escapes of its own", article(kind))
	}
	if t, err := time.Parse(TimeFormat, h.Time); err != nil || t.Format(TimeFormat) != h.Time {
		return nil, h.Seq, fmt.Errorf("the time %q is not RFC 3339 UTC to the millisecond", h.Time)
	}
	if s, ok := e.(*saleEntry); ok {
		if u, err := hex.DecodeString(s.Unit); err != nil || len(u) != 32 || hex.EncodeToString(u) != s.Unit {
			return nil, h.Seq, fmt.Errorf("the unit %q is not 64 lower-case hex digits", s.Unit)
		}
	}
	return e, h.Seq, nil
}

// kindHint is the kind an entry as written says, third of its fields: {"seq":…,"time":"…",
// "kind":"…". It only picks the type to read the line into, which checks the rest: reading the
// line once more to find its kind would cost a third of Verify's time.
func kindHint(line []byte) string {
	_, rest, ok := bytes.Cut(line, []byte(`","kind":"`))
	if !ok {
		return ""
	}
	kind, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(kind)
}

// headed is every entry's object: its head comes first.
type headed interface{ headOf() *head }

func (h *head) headOf() *head { return h }

// article is "a sale", "an emission".
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
