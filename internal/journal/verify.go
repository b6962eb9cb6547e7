package journal

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// MaxProblems is how many problems a Report keeps; the others are counted. A journal cut in its
// middle would otherwise be a problem a line for a hundred million lines.
const MaxProblems = 1000

// Problem is one thing wrong in a journal, naming the entry at fault.
type Problem struct {
	// Seq is the entry's seq (its line, from 0), or the first of the entries at fault; -1 when
	// the problem is a checkpoint's or an export's own.
	Seq int64
	// Msg says what is wrong, for a person.
	Msg string
}

// String is the problem as the command prints it: "seq 5: …".
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

// checkpoint is a checkpoint given to Verify, opened.
type checkpoint struct {
	name string
	size int64
	root tlog.Hash
}

// OpenCheckpoint checks a checkpoint's signature with the verifier and reads its size and root.
// Its error says why it is not a checkpoint of the verifier's journal, for a person.
func OpenCheckpoint(text []byte, v note.Verifier) (size int64, root tlog.Hash, err error) {
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

// verifier is the state of one Verify: O(log n) of the tree, the checkpoints still to reach,
// and the blocks given.
type verifier struct {
	rep    *Report
	tree   *Tree
	checks []checkpoint // by size; the first is the next to reach
	good   int64        // the size of the largest checkpoint verified so far
	blocks map[blockKey]*sold
	given  []*sold // the blocks, in the order given
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
	ver := &verifier{rep: rep, tree: NewTree(), blocks: map[blockKey]*sold{}, failed: failure{later: -1}}
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
	root, err := ver.tree.Root()
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
		size, root, err := OpenCheckpoint(s.Note, nv)
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

// reach checks the checkpoints of size entries, now that the tree has that many.
func (v *verifier) reach(size int64) error {
	if len(v.checks) == 0 || v.checks[0].size != size {
		return nil
	}
	root, err := v.tree.Root()
	if err != nil {
		return err
	}
	from := v.good
	for len(v.checks) > 0 && v.checks[0].size == size {
		c := v.checks[0]
		v.checks = v.checks[1:]
		if c.root != root {
			if v.failed.later < 0 {
				v.failed = failure{from: from, first: c, root: root}
			} else {
				v.failed.later++
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

// Tree is the RFC 6962 tree of entries appended one at a time, as far as its root needs it:
// O(log n) hashes (compact.Range), however long the journal.
type Tree struct{ r *compact.Range }

// NewTree makes the tree of no entry.
func NewTree() *Tree {
	f := &compact.RangeFactory{Hash: nodeHash}
	return &Tree{r: f.NewEmptyRange(0)}
}

// Append adds the entry of leaf hash leaf (Leaf).
func (t *Tree) Append(leaf tlog.Hash) error { return t.r.Append(leaf[:], nil) }

// Size is how many entries the tree holds.
func (t *Tree) Size() int64 { return int64(t.r.End()) }

// Root is the root of the tree of the entries appended so far.
func (t *Tree) Root() (tlog.Hash, error) {
	if t.r.End() == 0 {
		return emptyRoot, nil
	}
	h, err := t.r.GetRootHash(nil)
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
