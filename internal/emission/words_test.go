package emission_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef/gamedeftest"
)

// The generator's output (Plan.Words, emission create --rng-out) is the ChaCha8 stream of each
// block's order, every word the shuffle consumed and no other, and keeping it changes nothing:
// the same seed gives the same roots, the golden ones, with and without it.
func TestWordsDrawTheOrder(t *testing.T) {
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	var seed [emission.SeedSize]byte
	copy(seed[:], "golden")
	build := func(words *bytes.Buffer) ([]emission.Block, *emission.MemoryPages) {
		pages := &emission.MemoryPages{}
		plan := emission.Plan{Definition: def, Price: 100, Blocks: 3, Seed: seed}
		if words != nil {
			plan.Words = words
		}
		bs, err := emission.Build(context.Background(), plan, pages.Put, nil)
		if err != nil {
			t.Fatal(err)
		}
		return bs, pages
	}
	plain, _ := build(nil)
	var out bytes.Buffer
	bs, pages := build(&out)
	for k := range bs {
		if bs[k].Root != plain[k].Root {
			t.Errorf("block %d: root %x with the generator's output kept, %x without", k, bs[k].Root, plain[k].Root)
		}
	}
	// The golden root of testdata/golden-roots.txt.
	if got := fmt.Sprintf("%x", bs[0].Root); got != "a1019988ead35c376bb75706aca2831dfea7afd50cd31e8785e35d990f98b779" {
		t.Errorf("block 0 root %s, not the golden one", got)
	}
	e := &emission.Emission{ID: "T", Price: 100, Definition: def.Version, Table: *table, Blocks: bs}
	emissiontest.CheckWords(t, e, pages, seed, out.Bytes())
}
