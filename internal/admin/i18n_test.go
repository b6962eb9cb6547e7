package admin

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"starcolor/internal/chart"
	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef/gamedeftest"
)

// sources are the Go files of a folder, tests left out.
func sources(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// usedTexts are the texts the back office can show, as the code and the templates name them:
// every key of the dictionary in English, its own English.
func usedTexts(t *testing.T) []string {
	t.Helper()
	var texts []string
	add := func(m []string) {
		for _, g := range m[1:] {
			if g != "" {
				texts = append(texts, g)
			}
		}
	}
	inTemplates := regexp.MustCompile(`\{\{t "([^"]+)"\}\}|tf "([^"]+)"|tn [^"]+ "([^"]+)" "([^"]+)"`)
	names, _ := fs.Glob(templateFiles, "templates/*.html")
	for _, n := range names {
		b, _ := templateFiles.ReadFile(n)
		for _, m := range inTemplates.FindAllStringSubmatch(string(b), -1) {
			add(m)
		}
	}
	inCode := regexp.MustCompile(`s\.t\(r, "([^"]+)"|tr\(lang, "([^"]+)"|\bt\("([^"]+)"\)|\bsay\("([^"]+)"|pluralOf\(lang, [^"]+, "([^"]+)", "([^"]+)"\)|counted\([^"]+, "([^"]+)", "([^"]+)"\)|reportProblem\{"([^"]+)"|Text\s+= "([^"]+)"`)
	for _, b := range sources(t, ".") {
		for _, m := range inCode.FindAllStringSubmatch(b, -1) {
			if text := m[3]; strings.Contains(text, "PERIOD") { // the sales chart's words, per day and per hour
				texts = append(texts, strings.ReplaceAll(text, "PERIOD", "day"), strings.ReplaceAll(text, "PERIOD", "hour"))
				continue
			}
			add(m)
		}
	}
	for _, l := range actionLabels {
		texts = append(texts, l)
	}
	for _, l := range roleLabels {
		texts = append(texts, l)
	}
	// The words of the data the pages translate: transfers' kinds, games' modes and statuses,
	// the wallet's calls and their statuses, the limits and who changed them, who imported.
	texts = append(texts, "deposit", "withdrawal", "stake", "prize", "manual", "auto", "choose_color", "playing", "finished",
		"credit", "rollback", "pending", "disputed", "deposit_weekly", "stake_weekly", "player", "server")
	// The report chart's texts (chart.WriteReport): those it asks for on a small emission, and
	// those its source names, some only for other tables.
	b, err := os.ReadFile("../chart/report.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`c\.tf?\("([^"]+)"|format :?= "([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		texts = append(texts, m[1]+m[2])
	}
	return append(texts, chartTexts(t)...)
}

// miniReport is the report of a block of the test definition.
func miniReport(t *testing.T) *emission.Report {
	t.Helper()
	e, pages := emissiontest.Build(t, gamedeftest.Mini(t), 100, 1, 0)
	return emissiontest.Report(t, e, pages)
}

// chartTexts are the texts the emission's report chart asks for.
func chartTexts(t *testing.T) []string {
	t.Helper()
	rep := miniReport(t)
	var asked []string
	words := chartWords("fr")
	inner := words.T
	words.T = func(s string) string { asked = append(asked, s); return inner(s) }
	if err := chart.WriteReport(io.Discard, rep, words); err != nil {
		t.Fatal(err)
	}
	return asked
}

// Every text the back office shows exists in both languages, and they have the same texts: each
// used in a template or in the code has its French, and the French has none that nothing uses
// (a text changed in English and left in French).
func TestEveryTextInBothLanguages(t *testing.T) {
	texts := usedTexts(t)
	if len(texts) < 300 {
		t.Fatalf("only %d texts found: the search has gone wrong", len(texts))
	}
	used := map[string]bool{}
	for _, s := range texts {
		used[s] = true
		if f, ok := office.Text("fr", s); !ok || strings.TrimSpace(f) == "" {
			t.Errorf("no French for %q", s)
		} else if strings.Count(f, "%") != strings.Count(s, "%") {
			t.Errorf("the French of %q has other verbs: %q", s, f)
		}
	}
	for _, k := range office.Keys() {
		if !used[k] {
			t.Errorf("French for %q, which nothing shows", k)
		}
	}
}

// Every action that can be written to the operators' log has its name in both languages: the
// actions are found where the log is written, in the back office, the domain (lottery.Rekey),
// the game server and the command line.
func TestEveryActionInBothLanguages(t *testing.T) {
	written := regexp.MustCompile(`Action:\s*"([a-z_]+)"|\.(?:record|line)\([^"\n]*"([a-z_]+)"|\bat\("([a-z_]+)"|action, detail :?= "([a-z_]+)"|\.Action = "([a-z_]+)"`)
	found := map[string]bool{}
	for _, dir := range []string{".", "../lottery", "../game", "../sqlstore", "../httpapi", "../../cmd/starcolor"} {
		for _, b := range sources(t, dir) {
			for _, m := range written.FindAllStringSubmatch(b, -1) {
				found[m[1]+m[2]+m[3]+m[4]+m[5]] = true
			}
		}
	}
	if len(found) < 16 {
		t.Fatalf("only %d actions found (%v): the search has gone wrong", len(found), found)
	}
	for a := range found {
		l, ok := actionLabels[a]
		if !ok {
			t.Errorf("the action %q has no name", a)
			continue
		}
		if f, _ := office.Text("fr", l); f == "" || f == l {
			t.Errorf("the action %q (%q) has no French", a, l)
		}
	}
	for a := range actionLabels {
		if !found[a] {
			t.Errorf("a name for the action %q, which nothing writes", a)
		}
	}
}

// The emission's report chart, drawn in French, asks for no text that has no French.
func TestChartInFrench(t *testing.T) {
	rep := miniReport(t)
	asked := 0
	words := chartWords("fr")
	inner := words.T
	words.T = func(s string) string {
		asked++
		if _, ok := office.Text("fr", s); !ok {
			t.Errorf("the chart asks for %q, which has no French", s)
		}
		return inner(s)
	}
	var b strings.Builder
	if err := chart.WriteReport(&b, rep, words); err != nil {
		t.Fatal(err)
	}
	if asked < 30 || !strings.Contains(b.String(), "Sommes révélées par unité") {
		t.Errorf("the French chart asked for %d texts", asked)
	}
}
