package admin_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"starcolor/internal/audit"
)

// No unit leaves before it is sold (docs/spec/RULES.md §6): the export of a block with units for sale is
// refused, 409, in both forms, and logged; the emission's page offers no link to it. Once the
// block is sold out it downloads, whole: its lines hash to the block's published root.
func TestExportOnceSoldOut(t *testing.T) {
	e := newEnv(t, 2)
	c := e.client(t)
	c.login(opName, opPassword)
	for _, k := range []int{0, 1} {
		for _, form := range []string{"audit.jsonl", "audit.jsonl.gz"} {
			resp, body := c.do("GET", fmt.Sprintf("/admin/emissions/MINI/blocks/%d/%s", k, form), nil)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "still has units for sale") || strings.Contains(body, `"prize"`) {
				t.Fatalf("export of block %d on sale (%s): %d\n%s", k, form, resp.StatusCode, body)
			}
		}
	}
	if _, page := c.do("GET", "/admin/emissions/MINI", nil); strings.Contains(page, "audit.jsonl") || strings.Count(page, `class="muted not-sold"`) != 2 {
		t.Fatalf("the emission's page links to the export of a block on sale:\n%s", page)
	}

	// A player sells block 0 out; block 1 opens.
	e.player(t, "buyer", 1000*100, e.def.BlockUnits)
	stored, err := e.db.Emission(context.Background(), "MINI")
	if err != nil {
		t.Fatal(err)
	}
	if b := stored.Blocks[0]; b.Sold != b.Units {
		t.Fatalf("block 0: %d of %d sold", b.Sold, b.Units)
	}
	root := stored.Blocks[0].Root
	for _, form := range []string{"audit.jsonl", "audit.jsonl.gz"} {
		resp, body := c.do("GET", "/admin/emissions/MINI/blocks/0/"+form, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("export of block 0 sold out (%s): %d %s", form, resp.StatusCode, body)
		}
		raw := []byte(body)
		if strings.HasSuffix(form, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if raw, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
		if len(lines) != 1+e.def.BlockUnits {
			t.Fatalf("%s: %d lines, want a header and %d units", form, len(lines), e.def.BlockUnits)
		}
		leaves := make([]audit.Hash, 0, e.def.BlockUnits)
		for _, l := range lines[1:] {
			leaves = append(leaves, audit.LeafHash(l))
		}
		if got := audit.Root(leaves); got != root {
			t.Fatalf("%s: the lines hash to %x, the published root is %x", form, got, root)
		}
	}
	if resp, _ := c.do("GET", "/admin/emissions/MINI/blocks/1/audit.jsonl", nil); resp.StatusCode != http.StatusConflict {
		t.Fatalf("export of block 1, on sale now: %d", resp.StatusCode)
	}
	if _, page := c.do("GET", "/admin/emissions/MINI", nil); strings.Count(page, "audit.jsonl") != 2 || strings.Count(page, `class="muted not-sold"`) != 1 {
		t.Fatalf("the page should link block 0's two exports only:\n%s", page)
	}
	want := []string{"alice export_refused", "alice export_refused", "alice export_refused", "alice export_refused", "alice export", "alice export", "alice export_refused"}
	if got := e.actions(t); !equalTail(got, want) {
		t.Fatalf("log %q, want it to end with %q", got, want)
	}
}

func equalTail(got, want []string) bool {
	return len(got) >= len(want) && strings.Join(got[len(got)-len(want):], "\n") == strings.Join(want, "\n")
}
