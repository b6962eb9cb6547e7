package admin

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef/gamedeftest"
)

// Every text the back office writes, in its templates and in its code, has its French: a text
// missing from french would show in English on the French pages.
func TestEveryTextInFrench(t *testing.T) {
	var texts []string
	inTemplates := regexp.MustCompile(`\{\{t "([^"]+)"\}\}|tf "([^"]+)"`)
	names, _ := fs.Glob(templateFiles, "templates/*.html")
	for _, n := range names {
		b, _ := templateFiles.ReadFile(n)
		for _, m := range inTemplates.FindAllStringSubmatch(string(b), -1) {
			texts = append(texts, m[1]+m[2])
		}
	}
	inCode := regexp.MustCompile(`s\.t\(r, "([^"]+)"|tr\(lang, "([^"]+)"|\bt\("([^"]+)"\)`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inCode.FindAllStringSubmatch(string(b), -1) {
			text := m[1] + m[2] + m[3]
			if strings.Contains(text, "PERIOD") { // the sales chart's words, per day and per hour
				texts = append(texts, strings.ReplaceAll(text, "PERIOD", "day"), strings.ReplaceAll(text, "PERIOD", "hour"))
				continue
			}
			texts = append(texts, text)
		}
	}
	// The words of the data the pages translate: transfers' kinds, games' modes and statuses,
	// the wallet's calls and their statuses.
	texts = append(texts, "deposit", "withdrawal", "stake", "prize", "manual", "auto", "choose_color", "playing", "finished",
		"credit", "rollback", "pending", "disputed")
	if len(texts) < 150 {
		t.Fatalf("only %d texts found: the search has gone wrong", len(texts))
	}
	for _, s := range texts {
		if _, ok := french[s]; !ok {
			t.Errorf("no French for %q", s)
		}
	}
}

func TestFrenchFormats(t *testing.T) {
	if got := pctIn("fr", 0.7, 2); got != "70,00\u00a0%" {
		t.Errorf("pct in French: %q", got)
	}
	if got := pctIn("en", 0.7, 2); got != "70.00\u00a0%" {
		t.Errorf("pct in English: %q", got)
	}
	d := time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)
	if got := dayLabel("fr", d); got != "lun. 30 nov." {
		t.Errorf("a day in French: %q", got)
	}
	if got := hourLabel("fr", d); got != "30 nov. 15h" {
		t.Errorf("an hour in French: %q", got)
	}
}

// The emission's report chart, drawn in French, asks for no text that has no French.
func TestChartInFrench(t *testing.T) {
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	pages := &emission.MemoryPages{}
	plan := emission.Plan{Definition: def, Price: 100, Blocks: 1}
	bs, err := emission.Build(context.Background(), plan, pages.Put, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &emission.Emission{ID: "C", Price: 100, Definition: def.Version, Table: *table, Blocks: bs}
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	words := chartWords("fr")
	inner := words.T
	words.T = func(s string) string {
		asked++
		if _, ok := french[s]; !ok {
			t.Errorf("the chart asks for %q, which has no French", s)
		}
		return inner(s)
	}
	var b strings.Builder
	if err := rep.WriteSVGIn(&b, words); err != nil {
		t.Fatal(err)
	}
	if asked < 30 || !strings.Contains(b.String(), "Sommes révélées par unité") {
		t.Errorf("the French chart asked for %d texts", asked)
	}
}
