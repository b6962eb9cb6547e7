// Package passhash hashes and checks the passwords of players and operators with argon2id, in
// the PHC string format, so that a stored hash carries its own parameters.
package passhash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Argon2 is the cost of new hashes. Tests may lower the memory to keep them fast; a stored hash
// is checked with the parameters it carries.
type Argon2 struct {
	Time    uint32
	Memory  uint32 // KiB
	Threads uint8
}

// Default is RFC 9106's second recommended option, with one pass over 64 MiB.
var Default = Argon2{Time: 1, Memory: 64 * 1024, Threads: 2}

// Hash returns the password's hash in the PHC string format, with a fresh random salt.
func (a Argon2) Hash(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, a.Time, a.Memory, a.Threads, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, a.Memory, a.Time, a.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// Check compares a password with a stored hash in constant time.
func Check(password, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("not an argon2id hash")
	}
	var version int
	var a Argon2
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("unknown argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &a.Memory, &a.Time, &a.Threads); err != nil {
		return false, err
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, err
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, a.Time, a.Memory, a.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

var (
	dummyMu     sync.Mutex
	dummyHashes = map[Argon2]string{}
)

// Dummy is a hash of this cost to check a password against when the name is unknown, so that
// the answer takes as long as for a known name (and does not tell which names exist). It is
// made on first use.
func (a Argon2) Dummy() string {
	dummyMu.Lock()
	defer dummyMu.Unlock()
	h, ok := dummyHashes[a]
	if !ok {
		h = a.Hash("no such name")
		dummyHashes[a] = h
	}
	return h
}
