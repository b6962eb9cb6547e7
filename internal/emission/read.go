package emission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"starcolor/internal/audit"
)

// ErrCorrupt is stored units that do not match their emission's commitment.
var ErrCorrupt = errors.New("stored units do not match their commitment")

// Corrupt is a page of units, or a block's commitment, found not to match what was committed:
// errors.Is(err, ErrCorrupt) for it.
type Corrupt struct {
	Emission string
	Block    int
	Page     int // -1: the block's page roots do not lead to its root
	Reason   string
}

func (c *Corrupt) Error() string {
	if c.Page < 0 {
		return fmt.Sprintf("emission %s block %d: its page roots do not lead to its root: %s", c.Emission, c.Block, c.Reason)
	}
	return fmt.Sprintf("emission %s block %d page %d (units %d to %d): %s", c.Emission, c.Block, c.Page,
		c.Page*PageUnits, (c.Page+1)*PageUnits-1, c.Reason)
}

func (c *Corrupt) Unwrap() error { return ErrCorrupt }

// Reader reads the units of one emission from its pages. Every page is checked against the
// emission's commitment the first time it is read: its units are rebuilt into their audit lines,
// whose RFC 6962 root must be the page's root kept with the block, and the block's page roots
// must lead to the block's root (checked once, by NewReader). A page that fails is never used:
// each read of it fails with a *Corrupt, so that a unit whose stored record was changed is
// never sold, paid or shown. Checked pages are kept in a small cache.
type Reader struct {
	e     *Emission
	pages Pages
	cdc   *codec
	cfg   ReaderConfig

	blockBad []error // by position in e.Blocks: the block's commitment does not hold together

	flight singleflight.Group
	mu     sync.Mutex
	cache  map[pageRef]*checkedPage
	order  []pageRef         // oldest first
	bad    map[pageRef]error // pages found corrupt, remembered
}

type pageRef struct{ block, page int }

// checkedPage is a page read and checked: its bytes, and its units' leaf hashes, which its check
// made. A sale's entry names its unit's leaf hash, and ledger check rebuilds it: both take it
// from here rather than make the unit's audit line and hash it again.
type checkedPage struct {
	data   []byte
	leaves []audit.Hash
}

// ReaderConfig is how a Reader keeps pages.
type ReaderConfig struct {
	// CachePages is how many checked pages are kept (8 when 0). Sales go through a block in order,
	// so each page is read and checked once for its 256 sales; replays find recent pages here.
	CachePages int
	// OnCorrupt, if set, is told once of each page (or block commitment) found corrupt.
	OnCorrupt func(*Corrupt)
}

// NewReader reads e's units from pages, with the default configuration.
func NewReader(e *Emission, pages Pages) (*Reader, error) {
	return NewReaderWith(e, pages, ReaderConfig{})
}

// NewReaderWith reads e's units from pages. It checks that each block's page roots lead to its
// root; a block that fails is not refused here, but every read of it fails (see Problems).
func NewReaderWith(e *Emission, pages Pages, cfg ReaderConfig) (*Reader, error) {
	cdc, err := newCodec(&e.Table)
	if err != nil {
		return nil, err
	}
	if cfg.CachePages <= 0 {
		cfg.CachePages = 8
	}
	r := &Reader{e: e, pages: pages, cdc: cdc, cfg: cfg, blockBad: make([]error, len(e.Blocks)),
		cache: map[pageRef]*checkedPage{}, bad: map[pageRef]error{}}
	for k := range e.Blocks {
		b := &e.Blocks[k]
		reason := ""
		switch {
		case len(b.PageHashes) != pagesOf(b.Units):
			reason = fmt.Sprintf("%d page roots for %d units", len(b.PageHashes), b.Units)
		case audit.Root(b.PageHashes) != b.Root:
			reason = fmt.Sprintf("they lead to %x, not to the root %x", audit.Root(b.PageHashes), b.Root)
		}
		if reason != "" {
			c := &Corrupt{Emission: e.ID, Block: b.Index, Page: -1, Reason: reason}
			r.blockBad[k] = c
			if cfg.OnCorrupt != nil {
				cfg.OnCorrupt(c)
			}
		}
	}
	return r, nil
}

// Problems lists the blocks whose commitment does not hold together.
func (r *Reader) Problems() []error {
	var out []error
	for _, err := range r.blockBad {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

func (r *Reader) locate(block, index int) (*Block, error) {
	b, err := r.e.Block(block)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= b.Units {
		return nil, fmt.Errorf("%w: block %d of emission %s has no unit %d (units 0 to %d)", ErrNotFound, block, r.e.ID, index, b.Units-1)
	}
	return b, nil
}

// recsPool holds the records a page is decoded into to be checked, and leavesPool the leaf
// hashes of the pages Verify checks and does not keep.
var (
	recsPool   = sync.Pool{New: func() any { return new([PageUnits]audit.Record) }}
	leavesPool = sync.Pool{New: func() any { return new([PageUnits]audit.Hash) }}
)

// check decodes a page into recs and checks it against the block's commitment; leaves, which
// holds PageUnits hashes, gets its units' leaf hashes.
func (r *Reader) check(block, p int, data []byte, recs []audit.Record, leaves []audit.Hash) (int, error) {
	b := &r.e.Blocks[block]
	corrupt := func(reason string) error {
		return &Corrupt{Emission: r.e.ID, Block: b.Index, Page: p, Reason: reason}
	}
	if err := r.blockBad[block]; err != nil {
		return 0, err
	}
	n := pageUnits(b.Units, p)
	if err := r.cdc.decodePage(data, n, p*PageUnits, recs[:n]); err != nil {
		return 0, corrupt(err.Error())
	}
	line := make([]byte, 0, 512)
	for j := range n {
		line = audit.AppendLine(line[:0], &recs[j])
		leaves[j] = audit.LeafHash(line)
	}
	if root := audit.Root(leaves[:n]); root != b.PageHashes[p] {
		return 0, corrupt(fmt.Sprintf("its units hash to %x, not to the page's root %x", root, b.PageHashes[p]))
	}
	return n, nil
}

// checked returns page p of block, checked: from the cache, or read and checked (once for all
// the readers that want it at the same time, whatever their contexts).
func (r *Reader) checked(ctx context.Context, block, p int) (*checkedPage, error) {
	ref := pageRef{block, p}
	r.mu.Lock()
	page, cached := r.cache[ref]
	bad := r.bad[ref]
	r.mu.Unlock()
	switch {
	case bad != nil:
		return nil, bad
	case cached:
		return page, nil
	}
	v, err, _ := r.flight.Do(strconv.Itoa(block)+"/"+strconv.Itoa(p), func() (any, error) {
		page, err := r.read(context.WithoutCancel(ctx), block, p, make([]audit.Hash, PageUnits))
		if err != nil {
			return nil, err
		}
		r.keep(ref, page)
		return page, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*checkedPage), nil
}

// read reads a page from the store and checks it, its units' leaf hashes into leaves (PageUnits
// of them); a corrupt one is remembered and told.
func (r *Reader) read(ctx context.Context, block, p int, leaves []audit.Hash) (*checkedPage, error) {
	data, err := r.pages.Page(ctx, r.e.ID, block, p)
	if err != nil {
		return nil, err
	}
	recs := recsPool.Get().(*[PageUnits]audit.Record)
	defer recsPool.Put(recs)
	n, err := r.check(block, p, data, recs[:], leaves)
	if err != nil {
		r.mu.Lock()
		_, known := r.bad[pageRef{block, p}]
		r.bad[pageRef{block, p}] = err
		r.mu.Unlock()
		var c *Corrupt
		if !known && r.cfg.OnCorrupt != nil && errors.As(err, &c) && c.Page >= 0 {
			r.cfg.OnCorrupt(c)
		}
		return nil, err
	}
	return &checkedPage{data, leaves[:n:n]}, nil
}

// keep caches a checked page, dropping the oldest beyond the cache's size.
func (r *Reader) keep(ref pageRef, page *checkedPage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[ref]; ok {
		return
	}
	if len(r.order) >= r.cfg.CachePages {
		delete(r.cache, r.order[0])
		r.order = r.order[1:]
	}
	r.cache[ref] = page
	r.order = append(r.order, ref)
}

// Unit reads unit index of a block: its page read and checked once (then cached), one record
// decoded.
func (r *Reader) Unit(ctx context.Context, block, index int) (audit.Record, error) {
	rec, _, err := r.UnitLeaf(ctx, block, index)
	return rec, err
}

// UnitLeaf is Unit, with the leaf hash of the unit's audit line (audit.LeafHash), as its page's
// check made it.
func (r *Reader) UnitLeaf(ctx context.Context, block, index int) (audit.Record, audit.Hash, error) {
	var rec audit.Record
	b, err := r.locate(block, index)
	if err != nil {
		return rec, audit.Hash{}, err
	}
	p := index / PageUnits
	page, err := r.checked(ctx, block, p)
	if err != nil {
		return rec, audit.Hash{}, err
	}
	j := index % PageUnits
	if err := r.cdc.decodeUnit(page.data, pageUnits(b.Units, p), j, p*PageUnits, &rec); err != nil {
		return rec, audit.Hash{}, err
	}
	return rec, page.leaves[j], nil
}

// Page reads every unit of page p of a block into recs, which must hold PageUnits records, and
// returns how many there are.
func (r *Reader) Page(ctx context.Context, block, p int, recs []audit.Record) (int, error) {
	b, err := r.e.Block(block)
	if err != nil {
		return 0, err
	}
	if p < 0 || p >= pagesOf(b.Units) {
		return 0, fmt.Errorf("%w: block %d has no page %d", ErrNotFound, block, p)
	}
	page, err := r.checked(ctx, block, p)
	if err != nil {
		return 0, err
	}
	n := pageUnits(b.Units, p)
	return n, r.cdc.decodePage(page.data, n, p*PageUnits, recs[:n])
}

// Verify reads and checks every page of the emission that has not been checked already, on
// workers goroutines (GOMAXPROCS when 0), each resting for pause after each page (to leave the
// machine to more urgent work), and keeps none of them in the cache. It returns what it found
// corrupt or could not read, the blocks' commitments first, then the pages in order; only the
// context's end stops it.
func (r *Reader) Verify(ctx context.Context, workers int, pause time.Duration) ([]*Corrupt, error) {
	var found []*Corrupt
	for _, err := range r.blockBad {
		if c := (*Corrupt)(nil); errors.As(err, &c) {
			found = append(found, c)
		}
	}
	var refs []pageRef
	for k, b := range r.e.Blocks {
		if r.blockBad[k] != nil {
			continue
		}
		for p := range pagesOf(b.Units) {
			refs = append(refs, pageRef{k, p})
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	bad := make([]*Corrupt, len(refs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, ref := range refs {
		r.mu.Lock()
		_, cached := r.cache[ref]
		known := r.bad[ref]
		r.mu.Unlock()
		if cached {
			continue
		}
		if known != nil {
			errors.As(known, &bad[i])
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			leaves := leavesPool.Get().(*[PageUnits]audit.Hash)
			_, err := r.read(gctx, ref.block, ref.page, leaves[:])
			leavesPool.Put(leaves)
			if c := (*Corrupt)(nil); errors.As(err, &c) {
				bad[i] = c
			} else if gctx.Err() != nil {
				return gctx.Err()
			} else if err != nil {
				// A committed page that cannot be read (missing, or the file damaged around it)
				// is a finding too; reads of it are not refused for good, as a page that does not
				// match is, since the cause may pass.
				bad[i] = &Corrupt{Emission: r.e.ID, Block: ref.block, Page: ref.page, Reason: "it cannot be read: " + err.Error()}
			}
			if pause > 0 {
				select {
				case <-time.After(pause):
				case <-gctx.Done():
				}
			}
			return nil
		})
		if gctx.Err() != nil {
			break
		}
	}
	if err := g.Wait(); err != nil {
		return found, err
	}
	for _, c := range bad {
		if c != nil {
			found = append(found, c)
		}
	}
	return found, nil
}

// Proof is a unit's audit line with its RFC 6962 inclusion proof against its block's root.
type Proof struct {
	Emission string
	Block    int
	Index    int
	Line     []byte
	Root     audit.Hash
	Path     []audit.Hash // nearest sibling first
	Size     int          // leaves in the block's tree
}

// Prove reads a unit's page and returns the unit's line and inclusion proof: the path inside the
// page's subtree, computed from the page, then the path of the page among the block's stored
// page roots. The result is checked against the stored root before it is returned.
func (r *Reader) Prove(ctx context.Context, block, index int) (Proof, error) {
	b, err := r.locate(block, index)
	if err != nil {
		return Proof{}, err
	}
	recs := make([]audit.Record, PageUnits)
	p := index / PageUnits
	n, err := r.Page(ctx, block, p, recs)
	if err != nil {
		return Proof{}, err
	}
	leaves := make([]audit.Hash, n)
	var line, own []byte
	for j := range n {
		line = audit.AppendLine(line[:0], &recs[j])
		leaves[j] = audit.LeafHash(line)
		if j == index%PageUnits {
			own = append([]byte(nil), line...)
		}
	}
	if audit.Root(leaves) != b.PageHashes[p] {
		return Proof{}, fmt.Errorf("page %d of block %d does not match its stored hash: storage is corrupt", p, block)
	}
	path := append(audit.Proof(leaves, index%PageUnits), audit.Proof(b.PageHashes, p)...)
	pr := Proof{Emission: r.e.ID, Block: block, Index: index, Line: own, Root: b.Root, Path: path, Size: b.Units}
	if err := audit.VerifyProof(audit.LeafHash(own), index, b.Units, path, b.Root); err != nil {
		return Proof{}, fmt.Errorf("proof of unit %d of block %d: %w", index, block, err)
	}
	return pr, nil
}
