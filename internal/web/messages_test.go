package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"starcolor/internal/i18n"
)

// The page's messages without a browser: every key the page asks of its catalogue is in it, with
// the values its text takes, and every error code of the API has its words; French typography
// holds in the catalogue and in the page served.

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// faultCodes are the codes of internal/fault, read from its source: every code a player can
// be told about.
func faultCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../fault/fault.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, val := range v.Values {
				if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					c, _ := strconv.Unquote(lit.Value)
					codes = append(codes, c)
				}
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("read %d fault codes from internal/fault: the test no longer reads its constants", len(codes))
	}
	return codes
}

// usedKeys are the keys the page's modules ask of t(…): the strings its first argument may be (a string
// alone, or the branches of a condition).
func usedKeys(tokens []jsToken) []string {
	var keys []string
	for i := 1; i+2 < len(tokens); i++ {
		if tokens[i] != (jsToken{'w', "t"}) || tokens[i+1] != (jsToken{'p', "("}) || tokens[i-1] == (jsToken{'p', "."}) {
			continue
		}
		depth := 0
		for j := i + 2; j < len(tokens); j++ {
			tk := tokens[j]
			if tk.kind == 'p' && strings.Contains("([{", tk.text) {
				depth++
			} else if tk.kind == 'p' && strings.Contains(")]}", tk.text) {
				if depth == 0 {
					break
				}
				depth--
			} else if tk.kind == 'p' && tk.text == "," && depth == 0 {
				break
			}
			prev, next := tokens[j-1], tokens[min(j+1, len(tokens)-1)]
			// A string followed by + is the start of a key made from data ('errors.' + code).
			if tk.kind == 's' && depth == 0 && (prev.text == "(" || prev.text == "?" || prev.text == ":") && next.text != "+" {
				keys = append(keys, tk.text)
			}
		}
	}
	return keys
}

// scriptTokens are the tokens of every module of the page.
func scriptTokens(t *testing.T) []jsToken {
	t.Helper()
	names, err := filepath.Glob("static/*.js")
	if err != nil || len(names) < 10 {
		t.Fatalf("the page's modules: %v %v", names, err)
	}
	var all []jsToken
	for _, n := range names {
		tokens, err := jsTokens(readFile(t, n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		all = append(all, tokens...)
	}
	return all
}

// valuesAt are the names of the values a call t('key', { … }) hands over, the call's tokens
// from tokens[i], its opening brace; nil when the call hands none.
func valuesAt(tokens []jsToken, i int) []string {
	if tokens[i] != (jsToken{'p', "{"}) {
		return nil
	}
	var names []string
	depth := 0
	for j := i + 1; j < len(tokens); j++ {
		tk := tokens[j]
		switch {
		case tk.kind == 'p' && strings.Contains("([{", tk.text), tk.text == "${":
			depth++
		case tk.kind == 'p' && strings.Contains(")]}", tk.text), tk.text == "}$":
			if depth == 0 {
				slices.Sort(names)
				return names
			}
			depth--
		case depth == 0 && tk.kind == 'w' && j+1 < len(tokens) && (tokens[j-1].text == "{" || tokens[j-1].text == ",") &&
			(tokens[j+1].text == ":" || tokens[j+1].text == "," || tokens[j+1].text == "}"):
			names = append(names, tk.text) // a name, or a shorthand property
		}
	}
	return names
}

// Item 6: no message of the page is missing in either language. The catalogue
// (internal/i18n/page.*.json) has the same keys in both, which i18n.Page checks; every key the
// modules ask of t('…') is in it, with the values its placeholders take; every error code of the
// API, every colour and every text the page fills by data-demo has its words.
func TestMessagesInBothLanguages(t *testing.T) {
	words, err := i18n.Page()
	if err != nil {
		t.Fatal(err)
	}
	has := func(key string) bool { _, ok := words.Text("fr", key); return ok }
	tokens := scriptTokens(t)
	used := usedKeys(tokens)
	if len(used) < 40 {
		t.Fatalf("found %d uses of t('…') in the page's modules: the test no longer reads them", len(used))
	}
	for _, k := range used {
		if !has(k) {
			t.Errorf("a module asks t(%q), which the catalogue lacks", k)
		}
	}
	calls := 0
	for i := 1; i+3 < len(tokens); i++ {
		if tokens[i] != (jsToken{'w', "t"}) || tokens[i+1] != (jsToken{'p', "("}) || tokens[i-1] == (jsToken{'p', "."}) ||
			tokens[i+2].kind != 's' || !has(tokens[i+2].text) {
			continue
		}
		key := tokens[i+2].text
		var given []string
		if tokens[i+3] == (jsToken{'p', ","}) {
			given = valuesAt(tokens, i+4)
		}
		text, _ := words.Text("fr", key)
		if want := i18n.Placeholders(text); !slices.Equal(given, want) {
			t.Errorf("t(%q) is given %v, its text takes %v", key, given, want)
		}
		calls++
	}
	if calls < 60 {
		t.Fatalf("found %d calls of t with their values: the test no longer reads them", calls)
	}
	var wanted []string
	for _, code := range faultCodes(t) {
		wanted = append(wanted, "errors."+code)
	}
	for c := range 6 {
		wanted = append(wanted, "color."+strconv.Itoa(c))
	}
	for _, m := range regexp.MustCompile(`data-demo="([^"]+)"`).FindAllStringSubmatch(readFile(t, "templates/index.html"), -1) {
		wanted = append(wanted, m[1])
	}
	// The words of what the server reveals, by its kinds (rules.Cell), and of the reasons the
	// limits screen opens.
	wanted = append(wanted, "empty", "milky_way", "extra", "shooting_star.rising", "shooting_star.falling", "supernova", "whyDeposit", "whyStake")
	for _, k := range wanted {
		if !has(k) {
			t.Errorf("the catalogue has no words for %s", k)
		}
	}
}

// typography finds what French typography, and the page's own rule for every language, refuse
// in a text: an ordinary space inside « », or between a figure and €; in French, before : ; ! or ?. The page
// uses U+202F (narrow) or U+00A0 there, so that a line never breaks inside « Auto » nor leaves a
// colon, a mark or a currency sign alone at the start of a line.
func typography(text string, french bool) []string {
	var out []string
	// A figure and its currency sign: "20 €" (or a text that starts with " €", after a figure
	// written by an expression); "to €1,000" is English and breaks nothing.
	for _, m := range euroRe.FindAllStringIndex(text, -1) {
		out = append(out, `" €" after a figure in `+strconv.Quote(around(text, m[0], m[1])))
	}
	bad := []string{"« ", " »"}
	if french {
		bad = append(bad, " :", " ;", " !", " ?")
	}
	for _, b := range bad {
		for i := 0; ; {
			j := strings.Index(text[i:], b)
			if j < 0 {
				break
			}
			at := i + j
			out = append(out, strconv.Quote(b)+" in "+strconv.Quote(around(text, at, at+len(b))))
			i = at + len(b)
		}
	}
	return out
}

// around is the text about [from, to), cut on whole characters.
func around(text string, from, to int) string {
	from, to = max(0, from-30), min(len(text), to+30)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	return text[from:to]
}

var (
	euroRe   = regexp.MustCompile(`(^|[0-9]) €`)
	tagRe    = regexp.MustCompile(`<[^>]*>`)
	actionRe = regexp.MustCompile(`\{\{.*?\}\}`)
	attrRe   = regexp.MustCompile(`\s(aria-label|title|placeholder|alt)="([^"]*)"`)
	langRe   = regexp.MustCompile(`\slang="([a-z]+)"`)
	classRe  = regexp.MustCompile(`\sclass="([^"]*)"`)
	nameRe   = regexp.MustCompile(`^<(/?)([a-zA-Z0-9]+)`)
)

// templateTexts are the texts of the page's template as a reader meets them, each with whether
// it is French: the text between its tags and the words of its aria-label and title
// attributes. An element is English if it says lang="en", or has the class en (the page shows
// one language's spans at a time); else it is in its parent's language, French at the top.
// Template actions stand for a number (the template writes figures with them).
func templateTexts(src string) (texts []string, french []bool) {
	voids := map[string]bool{"meta": true, "link": true, "input": true, "br": true, "img": true, "use": true, "path": true, "circle": true, "rect": true, "hr": true}
	src = actionRe.ReplaceAllString(src, "0")
	stack := []bool{true}
	last := 0
	for _, m := range tagRe.FindAllStringIndex(src, -1) {
		texts, french = append(texts, src[last:m[0]]), append(french, stack[len(stack)-1])
		last = m[1]
		tag := src[m[0]:m[1]]
		n := nameRe.FindStringSubmatch(tag)
		if n == nil {
			continue
		}
		name := strings.ToLower(n[2])
		if n[1] == "/" {
			if !voids[name] && len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		fr := stack[len(stack)-1]
		if l := langRe.FindStringSubmatch(tag); l != nil {
			fr = l[1] == "fr"
		} else if c := classRe.FindStringSubmatch(tag); c != nil && slices.Contains(strings.Fields(c[1]), "en") {
			fr = false
		} else if c != nil && slices.Contains(strings.Fields(c[1]), "fr") {
			fr = true
		}
		for _, a := range attrRe.FindAllStringSubmatch(tag, -1) {
			texts, french = append(texts, a[2]), append(french, fr)
		}
		if !voids[name] && !strings.HasSuffix(tag, "/>") {
			stack = append(stack, fr)
		}
	}
	return append(texts, src[last:]), append(french, stack[len(stack)-1])
}

// Item 5: no ordinary space lets a line break inside « », before €, or in French before : ; ! ?
// in the page as it is served, in either language and either mode, and in every text of the
// catalogue.
func TestFrenchTypography(t *testing.T) {
	for _, wallet := range []bool{false, true} {
		s := Default(Options{Wallet: wallet})
		for _, lang := range Languages {
			for _, p := range []string{"/", "/nowhere"} {
				body, _ := io.ReadAll(get(t, s, p, "Cookie", LangCookie+"="+lang).Body)
				texts, french := templateTexts(string(body))
				if len(texts) < 20 {
					t.Fatalf("%s in %s: %d texts read", p, lang, len(texts))
				}
				for i, text := range texts {
					for _, f := range typography(html.UnescapeString(text), french[i]) {
						t.Errorf("%s (%s, wallet %v): %s", p, lang, wallet, f)
					}
				}
			}
		}
	}
	words, err := i18n.Page()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range Languages {
		texts := words.Texts(lang)
		if len(texts) < 200 {
			t.Fatalf("read %d texts of the catalogue in %s: the test no longer reads them", len(texts), lang)
		}
		for key, text := range texts {
			for _, f := range typography(text, lang == "fr") {
				t.Errorf("page.%s.json %s: %s", lang, key, f)
			}
		}
	}
}

// The checks catch what they are for: each rule on a text that breaks it, and not on one that
// keeps it; the template's languages as the page shows them.
func TestTypographyChecks(t *testing.T) {
	for _, c := range []struct {
		text   string
		french bool
		faults int
	}{
		{"Choisissez « Auto » : la couleur est tirée !", true, 4},
		{"Choisissez «\u202fAuto\u202f»\u00a0: la couleur est tirée\u202f!", true, 0},
		{"Up to 20 000 €", false, 1},
		{"Up to 20\u202f000\u00a0€: choose « Auto »", false, 2},
		{" € won, up to €1,000", false, 1},
		{"Press « Auto »: it plays!", false, 2},
		{"12:30, 1 000", true, 0},
	} {
		if got := typography(c.text, c.french); len(got) != c.faults {
			t.Errorf("%q (French %v): %d faults %v, want %d", c.text, c.french, len(got), got, c.faults)
		}
	}
	texts, french := templateTexts(`<p><span class="fr">Un</span><span class="en">Two<b>three</b></span><span lang="en">four</span>five{{if .X}} six{{end}}<input title="seven"></p>`)
	got := map[string]bool{}
	for i, s := range texts {
		if s != "" {
			got[s] = french[i]
		}
	}
	want := map[string]bool{"Un": true, "Two": false, "three": false, "four": false, "five0 six0": true, "seven": true}
	for s, fr := range want {
		if v, ok := got[s]; !ok || v != fr {
			t.Errorf("template text %q: read %v (French %v), want French %v; all %v", s, ok, v, fr, got)
		}
	}
}
