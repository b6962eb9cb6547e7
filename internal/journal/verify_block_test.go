// The tests of the sales against block exports are in a package of their own: they build
// emissions with internal/emission, which the journal's package itself never needs.
package journal_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
)

// exports builds an emission of two blocks of the mini definition and its two audit exports,
// the second gzip-compressed, with the audit line of each unit.
func exports(t *testing.T) (*emission.Emission, [][]byte, [][][]byte) {
	t.Helper()
	e, pages := emissiontest.Build(t, gamedeftest.Mini(t), 100, 2, 9)
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	var files [][]byte
	var units [][][]byte
	for k := range 2 {
		var b bytes.Buffer
		if err := r.Export(context.Background(), &b, k); err != nil {
			t.Fatal(err)
		}
		ls := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
		units = append(units, ls[1:])
		if k == 1 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(b.Bytes())
			zw.Close()
			b = z
		}
		files = append(files, b.Bytes())
	}
	return e, files, units
}

// readBlocks reads the exports, named block0 and block1.
func readBlocks(t *testing.T, files [][]byte) []*journal.Block {
	t.Helper()
	var blocks []*journal.Block
	for k, f := range files {
		b, err := journal.ReadBlock(bytes.NewReader(f))
		if err != nil {
			t.Fatalf("block %d: %v", k, err)
		}
		b.Name = "block" + string(rune('0'+k))
		blocks = append(blocks, b)
	}
	return blocks
}

// sale is the sale of a unit, as the store journals it.
func sale(t *testing.T, game int64, block, index int, line []byte) journal.Sale {
	t.Helper()
	rec, err := audit.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	return journal.Sale{Game: game, AccountID: 1, Stake: 100, Prize: rec.Prize, Emission: "T1", Block: block,
		Index: index, Unit: audit.LeafHash(line), Mode: "auto", Transfer: game}
}

// Each sale's unit and prize is checked against its block's export, and each emission's roots
// against the exports' roots: a clean journal passes, every mismatch is named by its seq.
func TestVerifyBlocks(t *testing.T) {
	e, files, units := exports(t)
	k, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 6, 30, 0, 0, time.UTC)
	roots := []string{hex.EncodeToString(e.Blocks[0].Root[:]), hex.EncodeToString(e.Blocks[1].Root[:])}
	created := journal.Emission{ID: "T1", Event: "created", Price: 100, Definition: e.Definition, Roots: roots, Operator: "command line"}
	clean := []journal.Event{created, sale(t, 1, 0, 0, units[0][0]), sale(t, 2, 1, 0, units[1][0]), sale(t, 3, 0, 1, units[0][1]),
		// A sale of another emission, whose blocks are not given, is not checked.
		journal.Sale{Game: 4, AccountID: 2, Stake: 100, Emission: "T2", Block: 0, Index: 0, Mode: "auto"}}
	file := func(evs ...journal.Event) []byte {
		var b bytes.Buffer
		for i, ev := range evs {
			b.Write(journal.Encode(uint64(i), at, ev, &k.AccountKey))
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	verify := func(t *testing.T, evs ...journal.Event) *journal.Report {
		t.Helper()
		rep, err := journal.Verify(context.Background(), bytes.NewReader(file(evs...)), k.VerifierKey, nil, readBlocks(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := verify(t, clean...); !rep.OK() || rep.Sales != 3 || rep.Entries != 5 {
		t.Fatalf("clean: %v, %d sales checked", rep.Problems, rep.Sales)
	}

	otherUnit := sale(t, 5, 0, 2, units[0][2])
	otherUnit.Unit = audit.LeafHash(units[0][3])
	otherPrize := sale(t, 5, 1, 7, units[1][7])
	otherPrize.Prize += 100
	outside := sale(t, 5, 1, 7, units[1][7])
	outside.Index = 1000
	swapped := created
	swapped.Roots = []string{roots[1], roots[0]}
	short := created
	short.Roots = roots[:1]
	dear := created
	dear.Price = 200
	tests := []struct {
		name string
		evs  []journal.Event
		want []string
	}{
		{"another unit", append(clean, otherUnit), []string{"seq 5: the unit of emission T1 block 0 index 2 is " + hex.EncodeToString(otherUnit.Unit[:]) + ", the export block0 has"}},
		{"another prize", append(clean, otherPrize), []string{"seq 5: the sale of unit 7 of emission T1 block 1 pays"}},
		{"a unit outside its block", append(clean, outside), []string{"seq 5: unit 1000 of block 1 of emission T1: the block has 1000 units (block1)"}},
		{"a unit sold twice", append(clean, sale(t, 5, 1, 0, units[1][0])), []string{"seq 5: unit 0 of emission T1 block 1 is sold again: its first sale is seq 2"}},
		{"other roots", append([]journal.Event{swapped}, clean[1:]...), []string{"seq 0: emission T1 commits block 0 to the root " + roots[1] + ", the export block0 has " + roots[0], "seq 0: emission T1 commits block 1 to the root " + roots[0]}},
		{"fewer blocks", append([]journal.Event{short}, clean[1:]...), []string{"seq 0: emission T1 has 1 blocks: the export block1 gives block 1"}},
		{"another price", append([]journal.Event{dear}, clean[1:]...), []string{"seq 0: emission T1 sells at 200 cents, the export block0 of block 0 at 100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			journal.WantProblems(t, verify(t, tt.evs...), tt.want...)
		})
	}
}

// An export is read only whole, its lines hashing to the root its header commits to.
func TestReadBlockRefused(t *testing.T) {
	_, files, _ := exports(t)
	plain := files[0]
	lines := bytes.SplitAfter(plain, []byte("\n"))
	// A digit of unit 3's salt changed: the line still reads, the root no longer matches.
	changed := bytes.Clone(plain)
	salt := bytes.Index(changed, []byte(`{"i":3,`))
	salt += bytes.Index(changed[salt:], []byte(`"salt":"`)) + len(`"salt":"`)
	if changed[salt] == '0' {
		changed[salt] = '1'
	} else {
		changed[salt] = '0'
	}
	for name, f := range map[string][]byte{
		"empty":          nil,
		"not an export":  []byte("{\"seq\":0}\n"),
		"a unit changed": changed,
		"a unit missing": bytes.Join(append(lines[:5:5], lines[6:]...), nil),
		"cut":            plain[:len(plain)/2],
		"a unit more":    append(bytes.Clone(plain), lines[1]...),
		"gzip broken":    files[1][:len(files[1])/2],
	} {
		_, err := journal.ReadBlock(bytes.NewReader(f))
		if err == nil {
			t.Errorf("%s: read", name)
		}
		t.Logf("%s: %v", name, err)
	}
}

// FuzzReadBlock: an export is read only if its unit lines hash to the root its header commits
// to; anything else is an error, never a panic.
func FuzzReadBlock(f *testing.F) {
	// A block of two units: its lines taken from a mini block, its header saying so.
	e, pages := emissiontest.Build(f, gamedeftest.Mini(f), 100, 1, 5)
	r, err := emission.NewReader(e, pages)
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Export(context.Background(), &b, 0); err != nil {
		f.Fatal(err)
	}
	ls := bytes.SplitAfter(b.Bytes(), []byte("\n"))
	two := bytes.TrimSuffix(ls[1], []byte("\n"))
	root := audit.Root([]audit.Hash{audit.LeafHash(two), audit.LeafHash(bytes.TrimSuffix(ls[2], []byte("\n")))})
	head := fmt.Sprintf(`{"format":"starcolor-audit/1","emission":"T1","price":1,"block":0,"units":2,"tiers":[],"root":"%x"}`+"\n", root)
	if _, err := journal.ReadBlock(strings.NewReader(head + string(ls[1]) + string(ls[2]))); err != nil {
		f.Fatalf("the seed is not read: %v", err)
	}
	f.Add([]byte(head + string(ls[1]) + string(ls[2])))
	f.Add([]byte(head + string(ls[1])))
	f.Fuzz(func(t *testing.T, data []byte) {
		blk, err := journal.ReadBlock(bytes.NewReader(data))
		if err != nil {
			return
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))[1:]
		var leaves []audit.Hash
		for _, l := range lines {
			leaves = append(leaves, audit.LeafHash(l))
		}
		if audit.Root(leaves) != blk.Root {
			t.Fatalf("%q read with the root %x", data, blk.Root)
		}
	})
}
