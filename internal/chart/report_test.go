package chart

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/randomness"
)

var update = flag.Bool("update", false, "write the golden pictures of testdata/ again")

// mini builds an emission of the mini definition in memory: blocks of 1,000 units at 1 €.
func mini(t *testing.T, blocks int, seed byte) (*emission.Emission, *emission.MemoryPages) {
	t.Helper()
	return emissiontest.Build(t, gamedeftest.Mini(t), 100, blocks, seed)
}

// mismatched is a report of two blocks in which one losing unit of block 1 was turned into a
// 1 € one and committed as such: a generator that wrote a wrong tier.
func mismatched(t *testing.T) *emission.Report {
	t.Helper()
	e, pages := mini(t, 2, 5)
	if err := pages.Retier(e, 1, 0, 100); err != nil {
		t.Fatal(err)
	}
	if err := pages.Recommit(e, 1); err != nil {
		t.Fatal(err)
	}
	return emissiontest.Report(t, e, pages)
}

// goldenReports are the reports the golden pictures draw: one block, a few (each labelled),
// more than six (numbered), a mismatch, text to escape.
func goldenReports(t *testing.T) map[string]*emission.Report {
	out := map[string]*emission.Report{}
	for name, n := range map[string]int{"1-block": 1, "3-blocks": 3, "8-blocks": 8} {
		e, pages := mini(t, n, 7)
		out[name] = emissiontest.Report(t, e, pages)
	}
	out["mismatch"] = mismatched(t)
	e, pages := mini(t, 1, 11)
	e.Definition = `<script>&"x"</script>`
	out["escapes"] = emissiontest.Report(t, e, pages)
	return out
}

// draw draws a report's picture in a language.
func draw(t *testing.T, rep *emission.Report, words Words) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteReport(&buf, rep, words); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// golden compares a picture with its file in testdata/, or writes the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		a, b := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s differs from line %d:\n got %s\nwant %s\n(go test ./internal/chart -update writes it again)", path, i+1, a[i], b[i])
			}
		}
		t.Fatalf("%s: %d lines, want %d", path, len(a), len(b))
	}
}

// The report's pictures are the bytes of the golden files (written by emission.Report.WriteSVG
// before the drawing moved here, then again with the randomness card), in English and with
// decimal commas.
func TestReportGolden(t *testing.T) {
	for name, rep := range goldenReports(t) {
		golden(t, "report-"+name+".svg", draw(t, rep, Words{}))
		golden(t, "report-"+name+"-comma.svg", draw(t, rep, Words{T: strings.ToUpper, Comma: true}))
	}
}

// The picture is well-formed SVG with every card's title, shows the report's figures, and shows
// a mismatch as one.
func TestReportPicture(t *testing.T) {
	reports := goldenReports(t)
	for name, rep := range reports {
		svg := checkSVG(t, name, draw(t, rep, Words{}))
		for _, figure := range []string{
			"RETURN TO PLAYER",
			gamedef.FormatEUR(rep.Total.Prizes),
		} {
			if !strings.Contains(svg, figure) {
				t.Errorf("%s: the picture does not show %q", name, figure)
			}
		}
		if mismatch := strings.Contains(svg, "MISMATCH") && strings.Contains(svg, "≠"); mismatch != (name == "mismatch") {
			t.Errorf("%s: a mismatch shown: %v", name, mismatch)
		}
	}
	if svg := string(draw(t, reports["escapes"], Words{})); strings.Contains(svg, "<script>") || !strings.Contains(svg, "&lt;script&gt;&amp;") {
		t.Error("the definition is not escaped in the picture")
	}
}

// The randomness card shows each test across the blocks and its verdict: a pass for a fair
// emission, and FAIL, in red, for a test whose blocks fail.
func TestReportRandomnessCard(t *testing.T) {
	rep := goldenReports(t)["8-blocks"]
	svg := string(draw(t, rep, Words{}))
	for _, want := range []string{
		"wins by segment", "runs of wins and losses", "serial correlation, lag 10",
		"positions of 20\u202f000 €, 1\u202f000 €, 100 €, 12 €", "positions of losing",
		"Tiers of fewer than 10 units (20\u202f000 €, 1\u202f000 €, 100 €)",
		">PASS<",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the card does not show %q", want)
		}
	}
	if got := strings.Count(svg, "<circle "); got != 8*len(rep.Randomness.Tests) {
		t.Errorf("%d dots, want one for each of the 8 blocks' %d tests", got, len(rep.Randomness.Tests))
	}
	// The runs test of every block failing, far below 0.01.
	failing := *rep
	v := rep.Randomness
	var blocks []randomness.Block
	for _, b := range v.Blocks {
		b.Results = slices.Clone(b.Results)
		for i := range b.Results {
			if b.Results[i].Test.Kind == randomness.Runs {
				b.Results[i].P = 1e-9
			}
		}
		blocks = append(blocks, b)
	}
	failing.Randomness = randomness.Judge(blocks)
	svg = string(draw(t, &failing, Words{}))
	if !strings.Contains(svg, ">FAIL<") || !strings.Contains(svg, `style="fill:`+colBad+`">0/8<`) {
		t.Error("a test failing in every block is not shown failing")
	}
}

// The picture does not depend on the report's workers' timing.
func TestReportPictureDeterministic(t *testing.T) {
	e, pages := mini(t, 2, 3)
	first := draw(t, emissiontest.Report(t, e, pages), Words{})
	for range 3 {
		if !bytes.Equal(first, draw(t, emissiontest.Report(t, e, pages), Words{})) {
			t.Fatal("two reports of the same emission draw different pictures")
		}
	}
}

// checkSVG checks that a picture is one well-formed XML document with an svg root and the
// report's titles, and returns it.
func checkSVG(t *testing.T, name string, b []byte) string {
	t.Helper()
	texts := checkXML(t, name, b)
	for _, title := range []string{
		"Star Color — emission T1",
		"Units per tier: drawn vs prize table",
		"Return to player and hit rate, per block",
		"Amounts revealed per unit",
		"How each winning tier is shown",
		"Presentation features",
		"Randomness of the sale orders",
		"HIT RATE",
		"composite",
	} {
		if !strings.Contains(texts, title) {
			t.Errorf("%s: the SVG has no %q", name, title)
		}
	}
	return string(b)
}

// checkXML checks that a picture is one well-formed XML document with an svg root, and returns
// its texts, one a line.
func checkXML(t *testing.T, name string, b []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	var texts strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: the SVG is not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
				if tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("%s: root element in namespace %q", name, tok.Name.Space)
				}
			}
		case xml.CharData:
			texts.Write(tok)
			texts.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", name, root)
	}
	return texts.String()
}
