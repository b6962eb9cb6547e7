package journal

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/strictjson"
)

// maxLine bounds the line an entry is read from: the largest, an emission's of a thousand
// blocks, is 70 kB. A longer line is still hashed into the tree, not parsed.
const maxLine = 1 << 20

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
// hashes them (nine tenths of the work: strict JSON, then the bytes written again), and this
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
		if err := v.tree.Append(b.leaves[i]); err != nil {
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
