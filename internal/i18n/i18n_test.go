package i18n

import (
	"slices"
	"strings"
	"testing"
)

// The page's catalogue as embedded: read without a fault, the same keys in both languages, and
// a text for every key in each.
func TestPageCatalog(t *testing.T) {
	c, err := Page()
	if err != nil {
		t.Fatal(err)
	}
	keys := c.Keys()
	if len(keys) < 250 {
		t.Fatalf("%d keys: the files are not read", len(keys))
	}
	for _, lang := range Languages {
		texts := c.Texts(lang)
		if len(texts) != len(keys) {
			t.Errorf("%s has %d texts for %d keys", lang, len(texts), len(keys))
		}
		for _, k := range keys {
			if s, ok := c.Text(lang, k); !ok || s == "" {
				t.Errorf("%s: no text for %q", lang, k)
			}
		}
	}
	if s, _ := c.Text("fr", "errors.sold_out"); s != "Cette mise n'est pas en vente pour le moment\u00a0: plus aucune unité de jeu, ou la vente est suspendue." {
		t.Errorf("errors.sold_out in French: %q", s)
	}
	if _, ok := c.Text("fr", "no.such.key"); ok {
		t.Error("a text for a key the catalogue does not hold")
	}
}

// A catalogue is refused, with what is wrong in words, when a key is in one language only, its
// placeholders differ between the languages, a text is empty, a key is not named as keys are, or
// a file names a key twice.
func TestCatalogRules(t *testing.T) {
	good := map[string][]byte{
		"fr": []byte(`{"a.b": "Gagné {amount}", "c": "Perdu"}`),
		"en": []byte(`{"a.b": "Won {amount}", "c": "Lost"}`),
	}
	if _, err := parse(good, ""); err != nil {
		t.Fatalf("a good catalogue refused: %v", err)
	}
	for _, c := range []struct {
		fr, en string
		want   []string
	}{
		{`{"a": "Un", "b": "Deux"}`, `{"a": "One"}`, []string{`en lacks "b"`}},
		{`{"a": "Un"}`, `{"a": "One", "b": "Two"}`, []string{`fr lacks "b"`}},
		{`{"won": "Gagné {amount}"}`, `{"won": "Won {money}"}`, []string{`"won" has the placeholders [amount] in fr and [money] in en`}},
		{`{"won": "Gagné {amount}"}`, `{"won": "Won"}`, []string{`"won" has the placeholders [amount] in fr and [] in en`}},
		{`{"a": " "}`, `{"a": "One"}`, []string{`fr: "a" is empty`}},
		{`{"Sales figures": "Ventes"}`, `{"Sales figures": "Sales"}`, []string{`fr: the key "Sales figures" is not named`, `en: the key "Sales figures" is not named`}},
		{`{"a": "Un", "a": "Deux"}`, `{"a": "One"}`, []string{`fr: `, `"a"`}},
	} {
		_, err := parse(map[string][]byte{"fr": []byte(c.fr), "en": []byte(c.en)}, "")
		if err == nil {
			t.Errorf("%s / %s: accepted", c.fr, c.en)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s / %s: %v, want %q in it", c.fr, c.en, err, w)
			}
		}
	}
}

// Format fills each placeholder with its value, and refuses a placeholder without a value or a
// value without its placeholder.
func TestFormat(t *testing.T) {
	got, err := Format("Partie n° {game}, couleur « {color} » ({game})", map[string]string{"game": "12", "color": "{bleu}"})
	if err != nil || got != "Partie n° 12, couleur « {bleu} » (12)" {
		t.Errorf("%q %v", got, err)
	}
	if got, err := Format("Perdu", nil); err != nil || got != "Perdu" {
		t.Errorf("%q %v", got, err)
	}
	if _, err := Format("Gagné {amount}", nil); err == nil || !strings.Contains(err.Error(), "no value for {amount}") {
		t.Errorf("a placeholder without a value: %v", err)
	}
	if _, err := Format("Perdu", map[string]string{"amount": "1 €"}); err == nil || !strings.Contains(err.Error(), "no placeholder {amount}") {
		t.Errorf("a value without a placeholder: %v", err)
	}
	if got := Placeholders("{b} {a} {b} {Not} {x-y} {}"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("placeholders %v", got)
	}
}

// The back office's catalogue as embedded: its keys are English texts, the English of each is
// its key, and each has its French.
func TestOfficeCatalog(t *testing.T) {
	c, err := Office()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Keys()); n < 400 {
		t.Fatalf("%d texts: the file is not read", n)
	}
	for _, w := range []struct{ lang, key, want string }{
		{"fr", "Sales", "Ventes"}, {"en", "Sales", "Sales"}, {"fr", "%d block at %s, asked by %s.", "%d bloc à %s, demandé par %s."},
	} {
		if s, found := c.Text(w.lang, w.key); !found || s != w.want {
			t.Errorf("%q in %s: %q %v, want %q", w.key, w.lang, s, found, w.want)
		}
	}
	if s, ok := c.Text("en", "Nothing of the back office"); ok || s != "Nothing of the back office" {
		t.Errorf("an English text the catalogue lacks: %q %v", s, ok)
	}
	if texts := c.Texts("en"); texts["Sales"] != "Sales" || len(texts) != len(c.Keys()) {
		t.Errorf("the English texts: %d, Sales %q", len(texts), texts["Sales"])
	}
}
