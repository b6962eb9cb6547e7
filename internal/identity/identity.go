// Package identity is how the server tells names apart. A username follows RFC 8265 (PRECIS,
// golang.org/x/text/secure/precis): kept as typed in its case-preserved form (widths folded,
// composed), found by its case-mapped form (UsernameKey), and refused when it reads like one
// already taken (UsernameSkeleton). A person (person.go) is their last name, first names and
// birth date, compared as a person reads them (fold.go): self-exclusions and the register of
// excluded persons (register.go) find a person however their name is written.
package identity

import (
	"errors"
	"regexp"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/cases"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// usernamePattern: 3 to 32 letters of any alphabet (accented ones included), digits, '.', '_'
// or '-', starting with a letter or a digit.
var usernamePattern = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]{2,31}$`)

// ErrUsername is a username that does not qualify.
var ErrUsername = errors.New("a username is 3 to 32 letters (accents welcome), digits, '.', '_' or '-', starting with a letter or digit")

// Username checks a new username and returns it as it is kept and shown: RFC 8265's
// UsernameCasePreserved form (full-width letters made ordinary, composed: an accent typed as a
// letter and a combining mark is the same username as the accented letter).
func Username(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrUsername
	}
	s, err := precis.UsernameCasePreserved.String(s)
	if err != nil || !usernamePattern.MatchString(s) {
		return "", ErrUsername
	}
	return s, nil
}

// UsernameKey is what a username is found by at login: RFC 8265's UsernameCaseMapped form, then
// Unicode case folding, so that "Straße" and "STRASSE" stay one account as they were before
// RFC 8265 (whose lower case keeps ß). A name PRECIS refuses (one kept from before it, or typed
// at a login) is composed and case-folded, as every name was compared before: for the names
// accounts hold, the key is the one they had.
func UsernameKey(s string) string {
	if m, err := precis.UsernameCaseMapped.String(s); err == nil {
		return cases.Fold().String(m)
	}
	return caseFolded(s)
}

// caseFolded is how usernames were compared before RFC 8265: composed, case-folded.
func caseFolded(s string) string { return cases.Fold().String(norm.NFC.String(s)) }

// UsernameSkeleton is what a new username must not share with any other: its key as a reader
// sees it (fold.go), so that "ｄｅｍｏ", "dеmo" (a Cyrillic е) and "de.mo" are refused beside
// "demo".
func UsernameSkeleton(s string) string { return fold(UsernameKey(s)) }

// CaseSkeleton is a name's skeleton taken before its case is folded: TR39's skeletons tell
// case apart, so "aIice" (a capital i) reads as alice here, and not in UsernameSkeleton, which
// folds case first so that case never matters. Where every name can be compared with every
// other (the operators), both are compared.
func CaseSkeleton(s string) string {
	if p, err := precis.UsernameCasePreserved.String(s); err == nil {
		s = p
	}
	return fold(confusable.Skeleton(s))
}

// PickUsername chooses, among the usernames that share the key of a name typed at a login
// (UsernameKey), the one it names:
//
//  1. the only one;
//  2. else the one that is the typed name as names were compared before RFC 8265 (composed,
//     case-folded): two accounts made before it never shared that;
//  3. else the first.
//
// Several share a key only when accounts made before RFC 8265 became alike under it (full-width
// "ｄｅｍｏ" beside "demo"). Each still logs in with its own name.
func PickUsername(typed string, usernames []string) int {
	if len(usernames) > 1 {
		t := caseFolded(typed)
		for i, u := range usernames {
			if caseFolded(u) == t {
				return i
			}
		}
	}
	return 0
}
