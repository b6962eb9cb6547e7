package audit_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

// fixtureDir holds the exports of the whole test binary; they are built once, on demand.
var fixtureDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "starcolor-audit-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// export is one real block of 1,000,000 units at one price, exported to a file.
type export struct {
	price  int64 // cents
	def    *gamedef.Definition
	table  *gamedef.Table
	em     *emission.Emission
	reader *emission.Reader
	path   string
	data   []byte // the whole file
	ends   []int  // ends[k]: offset just after the newline of line k (line 0 is the header)

	gzOnce sync.Once
	gzPath string
	gz     []byte
	gzErr  error
}

var (
	exportOnce = map[int64]*sync.Once{100: {}, 200: {}, 300: {}}
	exports    = map[int64]*export{}
	exportErr  = map[int64]error{}
)

// getExport builds, once per test binary, the block at a price (100, 200 or 300 cents).
func getExport(t testing.TB, price int64) *export {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and exports a block of 1,000,000 units")
	}
	exportOnce[price].Do(func() {
		start := time.Now()
		exports[price], exportErr[price] = buildExport(price)
		fmt.Fprintf(os.Stderr, "built and exported the %d EUR block in %v\n", price/100, time.Since(start).Round(time.Millisecond))
	})
	if err := exportErr[price]; err != nil {
		t.Fatalf("building the %d EUR block: %v", price/100, err)
	}
	return exports[price]
}

func buildExport(price int64) (*export, error) {
	ctx := context.Background()
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		return nil, err
	}
	table, err := def.Table(price)
	if err != nil {
		return nil, err
	}
	plan := emission.Plan{Definition: def, Price: price, Blocks: 1, Seed: sha256.Sum256(fmt.Appendf(nil, "audit test seed %d", price))}
	pages := &emission.MemoryPages{}
	blocks, err := emission.Build(ctx, plan, pages.Put, nil)
	if err != nil {
		return nil, err
	}
	em := &emission.Emission{
		ID:         fmt.Sprintf("audit-test-%deur", price/100),
		Price:      price,
		Definition: def.Version,
		Table:      *table,
		CreatedAt:  time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC),
		Blocks:     blocks,
	}
	reader, err := emission.NewReader(em, pages)
	if err != nil {
		return nil, err
	}
	e := &export{price: price, def: def, table: table, em: em, reader: reader,
		path: filepath.Join(fixtureDir, fmt.Sprintf("block-%deur.jsonl", price/100))}
	f, err := os.Create(e.path)
	if err != nil {
		return nil, err
	}
	if err := reader.Export(ctx, f, 0); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if e.data, err = os.ReadFile(e.path); err != nil {
		return nil, err
	}
	e.ends = make([]int, 0, def.BlockUnits+1)
	for off := 0; off < len(e.data); {
		k := bytes.IndexByte(e.data[off:], '\n')
		if k < 0 {
			return nil, errors.New("the export does not end with a newline")
		}
		off += k + 1
		e.ends = append(e.ends, off)
	}
	if len(e.ends) != def.BlockUnits+1 {
		return nil, fmt.Errorf("the export has %d lines, want %d", len(e.ends), def.BlockUnits+1)
	}
	return e, nil
}

// gzipped is the export compressed, once, written to a file next to it.
func (e *export) gzipped(t testing.TB) (path string, data []byte) {
	t.Helper()
	e.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if _, e.gzErr = zw.Write(e.data); e.gzErr != nil {
			return
		}
		if e.gzErr = zw.Close(); e.gzErr != nil {
			return
		}
		e.gz = buf.Bytes()
		e.gzPath = e.path + ".gz"
		e.gzErr = os.WriteFile(e.gzPath, e.gz, 0o644)
	})
	if e.gzErr != nil {
		t.Fatal(e.gzErr)
	}
	return e.gzPath, e.gz
}

func (e *export) units() int { return len(e.ends) - 1 }

// header is the header line, without its newline.
func (e *export) header() []byte { return e.data[:e.ends[0]-1] }

// line is unit k's line, without its newline (aliases the export: do not modify).
func (e *export) line(k int) []byte { return e.data[e.ends[k] : e.ends[k+1]-1] }

// record parses unit k's line.
func (e *export) record(t testing.TB, k int) audit.Record {
	t.Helper()
	r, err := audit.ParseLine(e.line(k))
	if err != nil {
		t.Fatalf("unit %d of the export: %v", k, err)
	}
	return r
}

// splice makes a new file from pieces, each a byte slice.
func splice(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var nl = []byte("\n")

// withLine is the export with unit k's line replaced.
func (e *export) withLine(k int, line []byte) []byte {
	return splice(e.data[:e.ends[k]], line, nl, e.data[e.ends[k+1]:])
}

// withHeader is the export with another header line.
func (e *export) withHeader(head []byte) []byte {
	return splice(head, nl, e.data[e.ends[0]:])
}

func (e *export) eur() string { return fmt.Sprintf("%dEUR", e.price/100) }

// wantDefect checks that err is a *Defect at unit (-1 for the file as a whole) whose message
// holds every one of parts; for a unit it must also name it as "unit N".
func wantDefect(t *testing.T, s *audit.Summary, err error, unit int, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want a defect at unit %d", unit)
	}
	var d *audit.Defect
	if !errors.As(err, &d) {
		t.Fatalf("error %v (%T) is not a *audit.Defect", err, err)
	}
	if !errors.Is(err, audit.ErrDefect) {
		t.Errorf("errors.Is(%v, ErrDefect) is false", err)
	}
	if s != nil {
		t.Errorf("a summary came with the defect")
	}
	msg := err.Error()
	if d.Unit != unit {
		t.Fatalf("defect at unit %d, want %d: %s", d.Unit, unit, msg)
	}
	if unit >= 0 {
		parts = append(parts, fmt.Sprintf("unit %d ", unit))
		if d.Line != unit+2 {
			t.Errorf("unit %d is on line %d, the defect says line %d", unit, unit+2, d.Line)
		}
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("message %q does not contain %q", msg, p)
		}
	}
	t.Logf("rejected: %s", msg)
}

func verifyBytes(b []byte) (*audit.Summary, error) { return audit.Verify(bytes.NewReader(b)) }

func verifyFile(t *testing.T, path string) (*audit.Summary, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return audit.Verify(f)
}

var prices = []int64{100, 200, 300}

// checkSummary compares a summary with the prize table and the export.
func (e *export) checkSummary(t *testing.T, s *audit.Summary) {
	t.Helper()
	b := &e.em.Blocks[0]
	if s.Price != e.price || s.Units != 1_000_000 || s.Units != e.units() {
		t.Errorf("summary price %d units %d, want %d and 1000000", s.Price, s.Units, e.price)
	}
	h := s.Header
	if h.Format != audit.Format || h.Emission != e.em.ID || h.Block != 0 || h.Units != 1_000_000 ||
		h.Root != hex.EncodeToString(b.Root[:]) || h.Definition != gamedef.Default || h.PriceCents != e.price {
		t.Errorf("summary header %+v does not describe the block", h)
	}
	if len(s.Counts) != len(e.table.Tiers) || len(h.Tiers) != len(e.table.Tiers) {
		t.Fatalf("summary has %d counts and %d tiers, the table %d tiers", len(s.Counts), len(h.Tiers), len(e.table.Tiers))
	}
	winners, payout := 0, int64(0)
	for k, tr := range e.table.Tiers {
		if h.Tiers[k] != (audit.Tier{Amount: tr.Amount, Count: tr.Count, Composite: tr.Composite}) {
			t.Errorf("tier %d: header %+v, table %+v", k, h.Tiers[k], tr)
		}
		if s.Counts[k] != tr.Count {
			t.Errorf("tier %d (%d cents): %d units, the table has %d", k, tr.Amount, s.Counts[k], tr.Count)
		}
		if tr.Amount > 0 {
			winners += tr.Count
		}
		payout += tr.Amount * int64(tr.Count)
	}
	if s.Winners != 243_912 || s.Winners != winners {
		t.Errorf("%d winners, want 243912", s.Winners)
	}
	if want := 700_000 * 100 * e.price / 100; s.Payout != want || payout != want {
		t.Errorf("payout %d cents, want %d (70%% of the stakes)", s.Payout, want)
	}
	if extra := bytes.Count(e.data, []byte(`","b2":"`)); s.Extra != extra || extra == 0 {
		t.Errorf("%d units with an Extra stage, the export has %d lines with b2", s.Extra, extra)
	}
}

func TestVerifyAcceptsExports(t *testing.T) {
	for _, price := range prices {
		t.Run(fmt.Sprintf("%dEUR", price/100), func(t *testing.T) {
			e := getExport(t, price)
			start := time.Now()
			s, err := verifyFile(t, e.path)
			if err != nil {
				t.Fatalf("Verify(%s): %v", e.path, err)
			}
			t.Logf("verified %d MB in %v", len(e.data)>>20, time.Since(start).Round(time.Millisecond))
			e.checkSummary(t, s)

			gzPath, gz := e.gzipped(t)
			start = time.Now()
			sz, err := verifyFile(t, gzPath)
			if err != nil {
				t.Fatalf("Verify(%s): %v", gzPath, err)
			}
			t.Logf("verified %d MB gzip-compressed to %d MB in %v", len(e.data)>>20, len(gz)>>20, time.Since(start).Round(time.Millisecond))
			e.checkSummary(t, sz)
			if !slices.Equal(sz.Counts, s.Counts) || sz.Extra != s.Extra || sz.Payout != s.Payout {
				t.Errorf("the compressed export gives another summary")
			}
		})
	}
}

// TestExportProofs checks units' inclusion proofs from the emission against the exported lines.
func TestExportProofs(t *testing.T) {
	e := getExport(t, 100)
	b := &e.em.Blocks[0]
	var head audit.Header
	if err := json.Unmarshal(e.header(), &head); err != nil {
		t.Fatal(err)
	}
	if head.Root != hex.EncodeToString(b.Root[:]) {
		t.Fatalf("header root %s, block root %x", head.Root, b.Root)
	}
	for _, i := range []int{0, 1, 17, 255, 256, 257, 65535, 65536, 500_000, 999_743, 999_744, 999_999} {
		p, err := e.reader.Prove(context.Background(), 0, i)
		if err != nil {
			t.Fatalf("Prove(%d): %v", i, err)
		}
		if !bytes.Equal(p.Line, e.line(i)) {
			t.Fatalf("Prove(%d) line differs from the export's:\n%s\n%s", i, p.Line, e.line(i))
		}
		if err := audit.VerifyProof(audit.LeafHash(e.line(i)), i, e.units(), p.Path, b.Root); err != nil {
			t.Fatalf("proof of unit %d: %v", i, err)
		}
	}
}

// findUnit returns the first unit from `from` for which pick finds something.
func findUnit[T any](t *testing.T, e *export, from int, pick func(r *audit.Record) (T, bool)) (int, audit.Record, T) {
	t.Helper()
	for u := from; u < e.units(); u++ {
		r := e.record(t, u)
		if v, ok := pick(&r); ok {
			return u, r, v
		}
	}
	t.Fatalf("no unit from %d fits", from)
	panic("unreachable")
}

// otherTier is a tier amount other than prize: the first non-losing one that differs.
func (e *export) otherTier(prize int64) int64 {
	for _, tr := range e.table.Tiers[1:] {
		if tr.Amount != prize && tr.Amount != 0 {
			return tr.Amount
		}
	}
	panic("no other tier")
}

// colourSwap swaps the colours of cells a and b of board 1.
func colourSwap(r audit.Record, a, b int) audit.Record {
	r.Unit.B1[a].Color, r.Unit.B1[b].Color = r.Unit.B1[b].Color, r.Unit.B1[a].Color
	return r
}

// passesVerifyRules tells whether the unit would pass every per-unit check of Verify with its prize.
func passesVerifyRules(r *audit.Record) bool {
	o, err := r.Unit.Check()
	if err != nil || o.Prize != r.Prize {
		return false
	}
	for c := rules.Color(1); c < rules.NumColors; c++ {
		shown := r.Unit.Relabel(c)
		if so := shown.Evaluate(c); so.Prize != o.Prize || so.B1.Revealed != o.B1.Revealed || so.B2.Revealed != o.B2.Revealed {
			return false
		}
	}
	return true
}

func TestVerifyRejectsTampering(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and exports blocks of 1,000,000 units")
	}
	// Defects found at a unit stop the verifier early: these run at every price.
	for _, price := range prices {
		e := getExport(t, price)
		t.Run("prize changed/"+e.eur(), func(t *testing.T) {
			r := e.record(t, 17)
			r.Prize = e.otherTier(r.Prize)
			s, err := verifyBytes(e.withLine(17, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, 17, "but the boards reveal", gamedef.FormatEUR(r.Prize))
		})
		t.Run("amount under a star never revealed/"+e.eur(), func(t *testing.T) {
			u, r, cell := findUnit(t, e, 17, func(r *audit.Record) (int, bool) {
				rev := rules.Reveal(&r.Unit.B1, 0)
				for i, s := range r.Unit.B1 {
					if s.Kind == rules.Empty && !rev.Has(i) {
						return i, true
					}
				}
				return 0, false
			})
			r.Unit.B1[cell].Kind, r.Unit.B1[cell].Amount = rules.Amount, e.table.Amounts[0]
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, fmt.Sprintf("cell %d is never revealed", cell))
		})
		t.Run("amount added under a revealed star/"+e.eur(), func(t *testing.T) {
			u, r, cell := findUnit(t, e, 17, func(r *audit.Record) (int, bool) {
				for i, s := range r.Unit.B1 {
					if s.Kind == rules.Empty && s.Color == 0 {
						return i, true
					}
				}
				return 0, false
			})
			r.Unit.B1[cell].Kind, r.Unit.B1[cell].Amount = rules.Amount, e.table.Amounts[0]
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, "prize "+gamedef.FormatEUR(r.Prize)+" but the boards reveal")
		})
		t.Run("colours swapped, rules broken/"+e.eur(), func(t *testing.T) {
			// A star of colour 0 holding something swaps colour with an empty star never revealed:
			// both boards keep 7 stars per colour.
			u, r, pair := findUnit(t, e, 17, func(r *audit.Record) ([2]int, bool) {
				rev := rules.Reveal(&r.Unit.B1, 0)
				for a, sa := range r.Unit.B1 {
					if sa.Color != 0 || sa.Kind == rules.Empty {
						continue
					}
					for b, sb := range r.Unit.B1 {
						if sb.Color != 0 && sb.Kind == rules.Empty && !rev.Has(b) {
							if m := colourSwap(*r, a, b); !passesVerifyRules(&m) {
								return [2]int{a, b}, true
							}
						}
					}
				}
				return [2]int{}, false
			})
			m := colourSwap(r, pair[0], pair[1])
			if err := m.Unit.B1.Check(); err != nil {
				t.Fatalf("the swap should keep 7 stars per colour: %v", err)
			}
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &m)))
			wantDefect(t, s, err, u)
		})
		t.Run("composite prize from one amount/"+e.eur(), func(t *testing.T) {
			// A unit of the composite 12 EUR tier rewritten to show its whole prize as one
			// amount, on a cell that was already revealed: every rule of the board still holds.
			composite := e.table.Tiers[3].Amount
			u, r, _ := findUnit(t, e, 17, func(r *audit.Record) (bool, bool) { return true, r.Prize == composite })
			first := true
			for _, b := range []*rules.Board{&r.Unit.B1, &r.Unit.B2} {
				for i := range b {
					if b[i].Kind == rules.Amount {
						if first {
							b[i].Amount, first = composite, false
						} else {
							b[i].Kind, b[i].Amount = rules.Empty, 0
						}
					}
				}
			}
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, "composite only", "1 gain")
		})
		t.Run("amounts not in the table/"+e.eur(), func(t *testing.T) {
			// Two revealed amounts moved by one cent each way: same prize, amounts off the table.
			u, r, cells := findUnit(t, e, 17, func(r *audit.Record) ([2]int, bool) {
				var found []int
				for i, s := range r.Unit.B1 {
					if s.Kind == rules.Amount {
						found = append(found, i)
					}
				}
				if len(found) < 2 {
					return [2]int{}, false
				}
				return [2]int{found[0], found[1]}, true
			})
			r.Unit.B1[cells[0]].Amount--
			r.Unit.B1[cells[1]].Amount++
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, fmt.Sprintf("board 1 cell %d shows", cells[0]), "not an amount of the table")
		})
		t.Run("board 2 removed/"+e.eur(), func(t *testing.T) {
			u, r, _ := findUnit(t, e, 17, func(r *audit.Record) (bool, bool) { return true, r.Unit.HasB2 })
			r.Unit.HasB2, r.Unit.B2 = false, rules.Board{}
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, "board 2 is missing")
		})
		t.Run("board 2 added/"+e.eur(), func(t *testing.T) {
			u, r, _ := findUnit(t, e, 17, func(r *audit.Record) (bool, bool) { return true, !r.Unit.HasB2 })
			b2 := e.record(t, u)
			for !b2.Unit.HasB2 {
				b2 = e.record(t, b2.Index+1)
			}
			r.Unit.HasB2, r.Unit.B2 = true, b2.Unit.B2
			s, err := verifyBytes(e.withLine(u, audit.AppendLine(nil, &r)))
			wantDefect(t, s, err, u, "board 2 is present but board 1 reveals no Extra")
		})
		t.Run("two defects: the first in file order/"+e.eur(), func(t *testing.T) {
			// Units far apart are checked by different workers; the lower one is named,
			// whichever finishes first.
			ra, rb := e.record(t, 300_000), e.record(t, 200_001)
			ra.Prize, rb.Prize = e.otherTier(ra.Prize), e.otherTier(rb.Prize)
			data := splice(e.data[:e.ends[200_001]], audit.AppendLine(nil, &rb), nl,
				e.data[e.ends[200_002]:e.ends[300_000]], audit.AppendLine(nil, &ra), nl, e.data[e.ends[300_001]:])
			s, err := verifyBytes(data)
			wantDefect(t, s, err, 200_001, "but the boards reveal")
			// A unit defect comes before the end of a truncated file.
			s, err = verifyBytes(splice(e.data[:e.ends[100]], []byte("{}\n"), e.data[e.ends[101]:e.ends[5000]]))
			wantDefect(t, s, err, 100, "not in the audit format")
		})
		t.Run("two lines swapped/"+e.eur(), func(t *testing.T) {
			s, err := verifyBytes(splice(e.data[:e.ends[17]], e.line(18), nl, e.line(17), nl, e.data[e.ends[19]:]))
			wantDefect(t, s, err, 17, "index 18, expected 17")
		})
		t.Run("line removed/"+e.eur(), func(t *testing.T) {
			s, err := verifyBytes(splice(e.data[:e.ends[17]], e.data[e.ends[18]:]))
			wantDefect(t, s, err, 17, "index 18, expected 17")
		})
		t.Run("line duplicated/"+e.eur(), func(t *testing.T) {
			s, err := verifyBytes(splice(e.data[:e.ends[18]], e.line(17), nl, e.data[e.ends[18]:]))
			wantDefect(t, s, err, 18, "index 17, expected 18")
		})
		t.Run("file cut in the middle of a line/"+e.eur(), func(t *testing.T) {
			cut := e.ends[500] + len(e.line(500))/2
			s, err := verifyBytes(e.data[:cut])
			wantDefect(t, s, err, 500, "not in the audit format")
		})
		t.Run("file cut after a line/"+e.eur(), func(t *testing.T) {
			s, err := verifyBytes(e.data[:e.ends[500]])
			wantDefect(t, s, err, -1, "truncated", "ends after 500")
		})
		t.Run("header tiers altered/"+e.eur(), func(t *testing.T) {
			var h audit.Header
			if err := json.Unmarshal(e.header(), &h); err != nil {
				t.Fatal(err)
			}
			h.Tiers[2].Count++
			h.Tiers[len(h.Tiers)-1].Count-- // still 1,000,000 units
			head, _ := json.Marshal(h)
			s, err := verifyBytes(e.withHeader(head))
			wantDefect(t, s, err, -1, "line 1: ", "tiers")
			if d := err.(*audit.Defect); d.Line != 1 {
				t.Errorf("a header defect on line %d", d.Line)
			}
		})
		t.Run("header units altered/"+e.eur(), func(t *testing.T) {
			head := bytes.Replace(e.header(), []byte(`"units":1000000,`), []byte(`"units":999999,`), 1)
			s, err := verifyBytes(e.withHeader(head))
			wantDefect(t, s, err, -1, "line 1: ", "999999 units")
		})
		t.Run("header root not lower-case/"+e.eur(), func(t *testing.T) {
			var h audit.Header
			json.Unmarshal(e.header(), &h)
			head := bytes.Replace(e.header(), []byte(h.Root), []byte(strings.ToUpper(h.Root)), 1)
			s, err := verifyBytes(e.withHeader(head))
			wantDefect(t, s, err, -1, "line 1: ", "lower-case hex")
		})
		t.Run("gzip truncated/"+e.eur(), func(t *testing.T) {
			_, gz := e.gzipped(t)
			cut := gz[:len(gz)/3]
			// What an auditor's gunzip gets out of the cut file: the units on the complete
			// lines; the defect is at the next one.
			zr, err := gzip.NewReader(bytes.NewReader(cut))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("gunzip of a cut file: %v", err)
			}
			unit := bytes.Count(got, nl) - 1
			s, err := verifyBytes(cut)
			wantDefect(t, s, err, unit, "unexpected EOF")
		})
	}
	t.Run("header price altered", func(t *testing.T) {
		// The 1 EUR block presented as a 2 EUR one, header consistent with the 2 EUR table: the
		// first unit whose prize or amounts are not those of 2 EUR is named.
		e := getExport(t, 100)
		t2, err := e.def.Table(200)
		if err != nil {
			t.Fatal(err)
		}
		var h audit.Header
		if err := json.Unmarshal(e.header(), &h); err != nil {
			t.Fatal(err)
		}
		h.Price, h.PriceCents, h.Amounts, h.Tiers = audit.EUR(200), 200, t2.Amounts, nil
		for _, tr := range t2.Tiers {
			h.Tiers = append(h.Tiers, audit.Tier{Amount: tr.Amount, Count: tr.Count, Composite: tr.Composite})
		}
		head, _ := json.Marshal(h)
		u, _, msg := findUnit(t, e, 0, func(r *audit.Record) (string, bool) {
			if _, ok := t2.Tier(r.Prize); !ok {
				return "is not a tier of the table", true
			}
			for _, s := range r.Unit.B1 {
				if s.Kind == rules.Amount && !slices.Contains(t2.Amounts, s.Amount) {
					return "not an amount of the table", true
				}
			}
			return "", false
		})
		s, err := verifyBytes(e.withHeader(head))
		wantDefect(t, s, err, u, msg)
	})
	// Defects that only the block as a whole shows need a full pass: one price each.
	t.Run("salt changed", func(t *testing.T) {
		e := getExport(t, 100)
		r := e.record(t, 17)
		r.Salt[3] ^= 0x10
		s, err := verifyBytes(e.withLine(17, audit.AppendLine(nil, &r)))
		wantDefect(t, s, err, -1, "root mismatch")
	})
	t.Run("header root altered", func(t *testing.T) {
		e := getExport(t, 200)
		var h audit.Header
		json.Unmarshal(e.header(), &h)
		root := []byte(h.Root)
		if root[63] == '0' { // another lower-case hex digit
			root[63] = '1'
		} else {
			root[63] = '0'
		}
		head := bytes.Replace(e.header(), []byte(h.Root), root, 1)
		s, err := verifyBytes(e.withHeader(head))
		wantDefect(t, s, err, -1, "root mismatch", string(root))
	})
	t.Run("colours swapped, rules kept", func(t *testing.T) {
		// Two empty stars of two other colours than 0, never revealed, swap colours: the unit
		// still obeys every rule with the same prize. Only the commitment tells.
		e := getExport(t, 300)
		u, r, pair := findUnit(t, e, 17, func(r *audit.Record) ([2]int, bool) {
			rev := rules.Reveal(&r.Unit.B1, 0)
			for a, sa := range r.Unit.B1 {
				for b, sb := range r.Unit.B1[a+1:] {
					b += a + 1
					if sa.Kind == rules.Empty && sb.Kind == rules.Empty && sa.Color != 0 && sb.Color != 0 &&
						sa.Color != sb.Color && !rev.Has(a) && !rev.Has(b) {
						if m := colourSwap(*r, a, b); passesVerifyRules(&m) {
							return [2]int{a, b}, true
						}
					}
				}
			}
			return [2]int{}, false
		})
		m := colourSwap(r, pair[0], pair[1])
		line := audit.AppendLine(nil, &m)
		if bytes.Equal(line, e.line(u)) {
			t.Fatal("the swap changed nothing")
		}
		s, err := verifyBytes(e.withLine(u, line))
		wantDefect(t, s, err, -1, "root mismatch")
	})
	t.Run("last line removed", func(t *testing.T) {
		e := getExport(t, 100)
		s, err := verifyBytes(e.data[:e.ends[e.units()-1]])
		wantDefect(t, s, err, -1, "truncated", "ends after 999999")
	})
	t.Run("last line duplicated", func(t *testing.T) {
		e := getExport(t, 200)
		s, err := verifyBytes(splice(e.data, e.line(e.units()-1), nl))
		wantDefect(t, s, err, -1, "goes on after the 1000000 units")
	})
	t.Run("gzip trailer cut", func(t *testing.T) {
		e := getExport(t, 300)
		_, gz := e.gzipped(t)
		s, err := verifyBytes(gz[:len(gz)-4])
		wantDefect(t, s, err, -1, "unexpected EOF")
	})
	t.Run("gzip checksum altered", func(t *testing.T) {
		e := getExport(t, 100)
		_, gz := e.gzipped(t)
		bad := slices.Clone(gz)
		bad[len(bad)-8] ^= 1 // the CRC-32 of the trailer
		s, err := verifyBytes(bad)
		wantDefect(t, s, err, -1, "checksum")
	})
}

// testHeader is a well-formed header for a block at 1 EUR, with a root that matches nothing.
func testHeader(t *testing.T, edit func(h *audit.Header)) []byte {
	t.Helper()
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	table, err := def.Table(100)
	if err != nil {
		t.Fatal(err)
	}
	h := audit.Header{Format: audit.Format, Emission: "e1", Price: audit.EUR(100), Block: 0, Units: def.BlockUnits,
		Root: strings.Repeat("ab", 32), Definition: def.Version}
	for _, tr := range table.Tiers {
		h.Tiers = append(h.Tiers, audit.Tier{Amount: tr.Amount, Count: tr.Count, Composite: tr.Composite})
	}
	if edit != nil {
		edit(&h)
	}
	out, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestVerifyRejectsSmallFiles needs no block: other formats and defects found at the start.
func TestVerifyRejectsSmallFiles(t *testing.T) {
	const (
		line0 = `{"i":0,"prize":0,"salt":"8e63ca4b4db01627105e3b9f3d7fc8f3","b1":"5 0 5 0 3 4 1 4 2 5 0 0 3 1 2 4 4 2 0 1 2 3 1 3 5 3 0 2 3 4 2 2 1 5 3 0 5 5 4 1 4 1"}`
		line8 = `{"i":8,"prize":1200,"salt":"a353eba6999b1b52048b5cd20e7ad8f9","b1":"2 4 3 1 4 0$400 3 4 5 0 0 0$400 1 1 5 0 5 2 2 4 1 1 4 5 2 5 1 3 0N2 0 3 3 2$400 5 4 2 2 3 3 4 5 1"}`
	)
	head := string(testHeader(t, nil)) + "\n"
	csv := "i,prize,salt,b1\n0,0,8e63ca4b4db01627105e3b9f3d7fc8f3,5 0 5 0 3 4 1 4 2 5\n"
	cases := []struct {
		name  string
		file  []byte
		unit  int
		parts []string
	}{
		{"empty file", nil, -1, []string{"empty file"}},
		{"CSV", []byte(csv), -1, []string{"line 1: ", "not a JSON object", "not a starcolor-audit/1 export"}},
		{"gzip CSV", gzipBytes([]byte(csv)), -1, []string{"line 1: ", "not a starcolor-audit/1 export"}},
		{"JSON of another format", []byte(`{"format":"other/1","emission":"e1","price":1,"block":0,"units":1000000}` + "\n{}\n"), -1,
			[]string{"line 1: ", `format "other/1"`, "not a starcolor-audit/1 export"}},
		{"JSON without a format", []byte(`{"emission":"e1"}` + "\n"), -1, []string{`format ""`}},
		{"JSON array", []byte("[1,2,3]\n"), -1, []string{"not a JSON object"}},
		{"binary", []byte{0x89, 'P', 'N', 'G', 0, 0, 0xff, 0xfe}, -1, []string{"not a JSON object"}},
		{"one byte of gzip magic", []byte{0x1f}, -1, []string{"not a JSON object"}},
		{"gzip magic then garbage", []byte{0x1f, 0x8b, 1, 2, 3}, -1, []string{"gzip"}},
		{"empty gzip", gzipBytes(nil), -1, []string{"no header line"}},
		{"header only", []byte(head), -1, []string{"truncated", "ends after 0"}},
		{"header only, gzip", gzipBytes([]byte(head)), -1, []string{"truncated", "ends after 0"}},
		{"header without newline", []byte(strings.TrimSuffix(head, "\n")), -1, []string{"truncated", "ends after 0"}},
		{"one valid unit", []byte(head + line0 + "\n"), -1, []string{"truncated", "ends after 1"}},
		{"a unit out of order", []byte(head + line8 + "\n"), 0, []string{"index 8, expected 0"}},
		{"a unit of another format", []byte(head + `{"i":0,"prize":0}` + "\n"), 0, []string{"not in the audit format"}},
		{"a CRLF line", []byte(head + line0 + "\r\n"), 0, []string{"not in the audit format"}},
		{"an empty line", []byte(head + "\n" + line0 + "\n"), 0, []string{"not in the audit format"}},
		{"a line too long", []byte(head + strings.Repeat("x", 3<<20) + "\n"), 0, []string{"longer than"}},
		{"a second unit out of order", []byte(head + line0 + "\n" + line0 + "\n"), 1, []string{"index 0, expected 1"}},
		{"tiers altered", testHeader(t, func(h *audit.Header) { h.Tiers[0].Amount = 2500000 }), -1, []string{"line 1: ", "tiers"}},
		{"a tier missing", testHeader(t, func(h *audit.Header) { h.Tiers = h.Tiers[1:] }), -1, []string{"tiers"}},
		{"composite flag dropped", testHeader(t, func(h *audit.Header) { h.Tiers[3].Composite = false }), -1, []string{"tiers"}},
		{"units altered", testHeader(t, func(h *audit.Header) { h.Units = 1000 }), -1, []string{"1000 units"}},
		{"unknown price", testHeader(t, func(h *audit.Header) { h.Price = "4" }), -1, []string{"unknown price"}},
		{"price with three decimals", testHeader(t, func(h *audit.Header) { h.Price = "1.005" }), -1, []string{"price"}},
		{"price zero", testHeader(t, func(h *audit.Header) { h.Price = "0" }), -1, []string{"price"}},
		{"price negative", testHeader(t, func(h *audit.Header) { h.Price = "-1" }), -1, []string{"price"}},
		{"unknown definition", testHeader(t, func(h *audit.Header) { h.Definition = "other/9" }), -1, []string{"unknown game definition"}},
		{"no root", testHeader(t, func(h *audit.Header) { h.Root = "" }), -1, []string{"root"}},
		{"root too short", testHeader(t, func(h *audit.Header) { h.Root = h.Root[:62] }), -1, []string{"root"}},
		{"root upper-case", testHeader(t, func(h *audit.Header) { h.Root = strings.ToUpper(h.Root) }), -1, []string{"lower-case"}},
		{"no emission", testHeader(t, func(h *audit.Header) { h.Emission = "" }), -1, []string{"emission"}},
		{"negative block", testHeader(t, func(h *audit.Header) { h.Block = -1 }), -1, []string{"block -1"}},
		// Header documents price_cents as "checked when present"; it must agree with price.
		{"price_cents disagrees with price", testHeader(t, func(h *audit.Header) { h.PriceCents = 200 }), -1, []string{"line 1: ", "price"}},
		{"amounts altered", testHeader(t, func(h *audit.Header) { h.Amounts = []int64{100, 200} }), -1, []string{"amounts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := verifyBytes(c.file)
			wantDefect(t, s, err, c.unit, c.parts...)
		})
	}
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("disk on fire")
		s, err := audit.Verify(iotest.ErrReader(boom))
		wantDefect(t, s, err, -1, "disk on fire")
		s, err = audit.Verify(io.MultiReader(strings.NewReader(head+line0+"\n"), iotest.ErrReader(boom)))
		wantDefect(t, s, err, 1, "disk on fire")
	})
}

func BenchmarkVerify(b *testing.B) {
	e := getExport(b, 100)
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(e.data)))
		for b.Loop() {
			if _, err := verifyBytes(e.data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gzip", func(b *testing.B) {
		_, gz := e.gzipped(b)
		b.SetBytes(int64(len(gz)))
		for b.Loop() {
			if _, err := verifyBytes(gz); err != nil {
				b.Fatal(err)
			}
		}
	})
}
