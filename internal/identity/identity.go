// Package identity is how the server tells names apart: a player's username is kept as typed
// (in Unicode's composed form, NFC) and compared without case, in every alphabet (Unicode case
// folding), so that "Élodie" and "ÉLODIE" are one account.
package identity

import (
	"errors"
	"regexp"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// usernamePattern: 3 to 32 letters of any alphabet (accented ones included), digits, '.', '_'
// or '-', starting with a letter or a digit.
var usernamePattern = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]{2,31}$`)

// ErrUsername is a username that does not qualify.
var ErrUsername = errors.New("a username is 3 to 32 letters (accents welcome), digits, '.', '_' or '-', starting with a letter or digit")

// Username checks a new username and returns it in its composed form (NFC): an accent typed as a
// letter and a combining mark is the same username as the accented letter.
func Username(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrUsername
	}
	s = norm.NFC.String(s)
	if !usernamePattern.MatchString(s) {
		return "", ErrUsername
	}
	return s, nil
}

// UsernameKey is what usernames are compared by: the composed form, case-folded.
func UsernameKey(s string) string {
	return cases.Fold().String(norm.NFC.String(s))
}
