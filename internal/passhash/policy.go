package passhash

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn/frequency"
)

// MaxBytes bounds a password: hashing is as costly for any length, but a bound keeps requests
// small.
const MaxBytes = 256

// Policy is what a new password must be: long enough and not one that attackers try first
// (NIST SP 800-63B, 5.1.1.2: a minimum length and a check against a list of common passwords,
// no rules of composition).
type Policy struct {
	MinRunes int // the fewest characters
}

// Check tells why a new password is refused for the account name, or nil. The messages are for
// the person choosing it.
func (p Policy) Check(name, password string) error {
	if utf8.RuneCountInString(password) < p.MinRunes || len(password) > MaxBytes {
		return fmt.Errorf("a password is %d to %d characters", p.MinRunes, MaxBytes)
	}
	if strings.EqualFold(password, name) {
		return fmt.Errorf("the password must not be the name")
	}
	if Common(strings.ToLower(password)) {
		return fmt.Errorf("this password is among the most common ones, which are tried first: choose another")
	}
	return nil
}

// common is the set of the most used passwords, lower-cased: zxcvbn's list of the 30,000 most
// frequent in leaked sets (Mark Burnett's), shipped within the binary.
var common = sync.OnceValue(func() map[string]struct{} {
	list := frequency.FrequencyLists["passwords"]
	m := make(map[string]struct{}, len(list))
	for _, p := range list {
		m[strings.ToLower(p)] = struct{}{}
	}
	return m
})

// Common reports whether a password, lower-cased, is on the list of the most common ones.
func Common(lower string) bool {
	_, ok := common()[lower]
	return ok
}

// CommonCount is how many passwords the list holds.
func CommonCount() int { return len(common()) }
