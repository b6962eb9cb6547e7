package identity

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// Names and usernames are compared as a person reads them (docs/spec/API.md 1.2): two strings
// that look alike are one. fold is that comparison. It folds away:
//   - case and accents;
//   - compatibility forms (NFKC: ﬁ, ｄ, superscripts);
//   - punctuation and spaces;
//   - confusable letters (Unicode TR39 skeletons: the Cyrillic а is the Latin a);
//   - the Latin small capitals (ʙ, ᴅ), which TR39 keeps as prototypes of their own, though a
//     reader takes "Boʙ" for "Bob".
//
// The skeletons come from go.mau.fi/util/confusable, generated from Unicode's confusables.txt;
// the small capitals from the Unicode names of the Latin script (golang.org/x/text's runenames):
// no table here is written by hand.

// keyVersion is the version of the comparison itself; KeyScheme adds the data it is made of.
const keyVersion = 2

// KeyScheme names the comparison stored keys are made with: this code's version, the Unicode
// versions of Go's and golang.org/x/text's tables, and a digest of the confusables' table. That
// library says no version of its own at run time, so its table is read whole, in about 20 ms,
// once a process. A store keeps KeyScheme beside its keys and makes them again when it changes:
// a new version of Go, of golang.org/x/text or of the confusables may move a letter.
var KeyScheme = sync.OnceValue(func() string {
	h := sha256.New()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if to := confusable.GetReplacement(r); to != "" {
			fmt.Fprintf(h, "%x>%s;", r, to)
		}
	}
	return fmt.Sprintf("%d unicode=%s text=%s confusables=%x", keyVersion, unicode.Version, norm.Version, h.Sum(nil)[:6])
})

// smallCapitalName is the Unicode name of a Latin small capital that is only its letter: not
// "SMALL CAPITAL TURNED E" nor "SMALL CAPITAL L WITH STROKE", which read otherwise.
var smallCapitalName = regexp.MustCompile(`^LATIN (?:CAPITAL )?LETTER SMALL CAPITAL ([A-Z])$`)

// smallCapitals maps each Latin small capital to its lower-case letter (26 of them in Unicode 15).
// It is made at the first fold, not when the package loads: reading the Latin script's names
// takes about 5 ms and 1.2 MB, which every command would pay, most without comparing a name.
var smallCapitals = sync.OnceValue(func() map[rune]rune {
	m := map[rune]rune{}
	add := func(r rune) {
		if s := smallCapitalName.FindStringSubmatch(runenames.Name(r)); s != nil {
			m[r] = unicode.ToLower(rune(s[1][0]))
		}
	}
	for _, rg := range unicode.Latin.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			add(r)
		}
	}
	for _, rg := range unicode.Latin.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			add(r)
		}
	}
	return m
})

// maxFoldRounds bounds the rounds of foldOnce. Case folding and skeletons are each stable, but
// not together. Some prototypes are capitals ("0" is "O"), or letters that fold again ("ᛖ" is
// "m", which is "rn"). So fold goes on until nothing changes: two or three rounds for Unicode's
// data. FuzzFold checks that the result folds to itself.
const maxFoldRounds = 4

// fold is s as a reader compares it: letters and digits only, each the prototype of what looks
// like it, in lower case, without marks.
func fold(s string) string {
	for range maxFoldRounds {
		next := foldOnce(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

func foldOnce(s string) string {
	s = confusable.Skeleton(cases.Fold().String(norm.NFKC.String(s)))
	capitals := smallCapitals()
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if c, ok := capitals[r]; ok {
			r = c
		}
		// Marks (accents, the strokes the skeletons add), punctuation, spaces and symbols go.
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return cases.Fold().String(norm.NFC.String(b.String()))
}
