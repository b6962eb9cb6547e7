// Package i18n holds the words of Star Color in its two languages, French first, as data: JSON
// files embedded in the binary, read by the Go side and served to the player's page.
//
// The player's page has page.fr.json and page.en.json: named keys ("nav.game",
// "errors.sold_out"), the same in both files, texts with {name} placeholders. internal/web
// renders the page's HTML from them and serves both languages to its script, which switches
// language without a reload.
//
// The back office has office.fr.json, on gettext's model: each key is the English text that the
// back office's code, its templates and the report's chart write, with its fmt verbs, and the
// value is its French. English needs no file of its own: it is the key. The keys stay the
// English texts, rather than names, because the report's chart (internal/emission) asks for its
// words in English through a func(string) string; every text is still in both languages, by
// construction in English and by test in French (internal/admin).
//
// A catalogue that breaks its rules (a key missing in one language, a text empty, a key not
// named as keys are, placeholders that differ between the languages, a name twice in a file) is
// refused when it is read, so that it cannot ship.
package i18n

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"starcolor/internal/strictjson"
)

//go:embed page.fr.json page.en.json office.fr.json
var files embed.FS

// Languages are the languages of the page and the back office, French first: the regulation's
// own, and the default.
var Languages = []string{"fr", "en"}

// Catalog is a set of texts by key, in each of its languages.
type Catalog struct {
	texts map[string]map[string]string // language → key → text
	// source is the language whose texts are the keys themselves (the back office's English),
	// or "" when every language has a file.
	source string
}

// Text is the text of key in lang; false if the catalogue does not hold the key. In the source
// language of a catalogue the text is the key itself.
func (c *Catalog) Text(lang, key string) (string, bool) {
	if lang == c.source {
		_, ok := c.texts[c.other()][key]
		return key, ok
	}
	s, ok := c.texts[lang][key]
	return s, ok
}

// Texts are every text of lang by key, in a map of the caller's own.
func (c *Catalog) Texts(lang string) map[string]string {
	out := map[string]string{}
	for k := range c.texts[c.other()] {
		out[k], _ = c.Text(lang, k)
	}
	return out
}

// Keys are the catalogue's keys, sorted.
func (c *Catalog) Keys() []string {
	var keys []string
	for k := range c.texts[c.other()] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// other is a language with a file.
func (c *Catalog) other() string {
	for _, l := range Languages {
		if l != c.source {
			return l
		}
	}
	return ""
}

var (
	page   = sync.OnceValues(func() (*Catalog, error) { return load("page", "") })
	office = sync.OnceValues(func() (*Catalog, error) { return load("office", "en") })
)

// Page is the player's page's catalogue, named keys in both languages.
func Page() (*Catalog, error) { return page() }

// Office is the back office's catalogue: its keys are its English texts, and its file holds
// their French.
func Office() (*Catalog, error) { return office() }

// load reads the files of a part, one a language but the source language's.
func load(part, source string) (*Catalog, error) {
	raw := map[string][]byte{}
	for _, lang := range Languages {
		if lang == source {
			continue
		}
		name := part + "." + lang + ".json"
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		raw[lang] = b
	}
	c, err := parse(raw, source)
	if err != nil {
		return nil, fmt.Errorf("i18n: %s: %w", part, err)
	}
	return c, nil
}

// keyRe is how the page's keys are named: words of letters, digits and underscores, joined by
// dots ("errors.sold_out", "color.0").
var keyRe = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)

// parse reads a catalogue from its files by language and checks its rules; with a source
// language, the keys are that language's texts and are not named.
func parse(raw map[string][]byte, source string) (*Catalog, error) {
	c := &Catalog{texts: map[string]map[string]string{}, source: source}
	var problems []string
	for _, lang := range Languages {
		if lang == source {
			continue
		}
		texts := map[string]string{}
		if err := strictjson.Decode(raw[lang], &texts); err != nil {
			return nil, fmt.Errorf("%s: %w", lang, err)
		}
		c.texts[lang] = texts
		for k, s := range texts {
			if strings.TrimSpace(s) == "" {
				problems = append(problems, fmt.Sprintf("%s: %q is empty", lang, k))
			}
			if source == "" && !keyRe.MatchString(k) {
				problems = append(problems, fmt.Sprintf("%s: the key %q is not named as the keys are (words joined by dots)", lang, k))
			}
		}
	}
	if source == "" {
		first := Languages[0]
		for _, lang := range Languages[1:] {
			problems = append(problems, compare(first, lang, c.texts[first], c.texts[lang])...)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return c, nil
}

// compare finds the keys one language has and the other lacks, and the texts whose placeholders
// differ between them.
func compare(la, lb string, a, b map[string]string) []string {
	var problems []string
	for k, s := range a {
		t, ok := b[k]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s lacks %q", lb, k))
			continue
		}
		if pa, pb := Placeholders(s), Placeholders(t); !slices.Equal(pa, pb) {
			problems = append(problems, fmt.Sprintf("%q has the placeholders %v in %s and %v in %s", k, pa, la, pb, lb))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			problems = append(problems, fmt.Sprintf("%s lacks %q", la, k))
		}
	}
	return problems
}

// placeholderRe is a placeholder of the page's texts: {name}.
var placeholderRe = regexp.MustCompile(`\{([a-z][A-Za-z0-9_]*)\}`)

// Placeholders are the names of a text's placeholders, sorted, each once.
func Placeholders(text string) []string {
	var names []string
	for _, m := range placeholderRe.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Format fills a text's placeholders with values by name. A placeholder without a value, or a
// value no placeholder takes, is an error: the caller and the text disagree.
func Format(text string, values map[string]string) (string, error) {
	var missing []string
	used := map[string]bool{}
	out := placeholderRe.ReplaceAllStringFunc(text, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		used[name] = true
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("i18n: no value for {%s} in %q", strings.Join(missing, "}, {"), text)
	}
	for name := range values {
		if !used[name] {
			return "", fmt.Errorf("i18n: %q has no placeholder {%s}", text, name)
		}
	}
	return out, nil
}
