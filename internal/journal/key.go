package journal

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/mod/sumdb/note"
)

// Key is the journal's key, read from its key file: the note signer of its checkpoints, their
// verifier, and the account key derived from the signer, so that the operator guards one secret.
type Key struct {
	// Signer signs the checkpoints.
	Signer note.Signer
	// Verifier checks them.
	Verifier note.Verifier
	// VerifierKey is the verifier key's text (name+hash+base64), as GET /api/v1/journal/key
	// serves it and `journal verify --key` takes it.
	VerifierKey string
	// Origin is the key's name, the first line of every checkpoint.
	Origin string
	// AccountKey makes the entries' account references.
	AccountKey AccountKey
}

// accountKeyInfo is the HKDF info of the account key: a new version of the derivation gets a
// new string, so that no two derivations ever give the same key.
const accountKeyInfo = "starcolor journal account key v1"

// DefaultKeyName is the prefix of a new key's name; 8 random hex digits follow it, so that two
// journals (a test and the real one) never share an origin.
const DefaultKeyName = "starcolor-journal-"

// maxKeyFile bounds what is read of a key file: the two lines are under 200 bytes.
const maxKeyFile = 4096

// ErrKeyMode is a key file that others than its owner may read or write.
var ErrKeyMode = errors.New("journal: the key file may be read or written by others than its owner")

// OpenKey reads the key file at path. When there is none and create is true, it makes one first
// (CreateKey). name, when not "", is the name the key must have: a key file made under another
// name is refused rather than silently used.
func OpenKey(path, name string, create bool) (*Key, error) {
	k, err := LoadKey(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		k, err = CreateKey(path, name)
		if errors.Is(err, fs.ErrExist) {
			// Another server made it between the two calls: use theirs.
			k, err = LoadKey(path)
		}
	}
	if err != nil {
		return nil, err
	}
	if name != "" && k.Origin != name {
		return nil, fmt.Errorf("journal: the key file %s holds the key %q, not %q", path, k.Origin, name)
	}
	return k, nil
}

// LoadKey reads the key file at path: the note signer key, then its verifier key, each on a line
// of its own. It refuses a file that group or others may read or write: whoever reads it can
// sign checkpoints and link a player's entries; whoever writes it can swap the key.
func LoadKey(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: the key file: %w", err)
	}
	defer f.Close()
	// The mode is read from the file opened, not from its path, so that it is the file read.
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: the key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("journal: the key file %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o; make it 0600 (chmod 600 %s)", ErrKeyMode, path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("journal: the key file %s: %w", path, err)
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("journal: the key file %s is longer than %d bytes: not a key file", path, maxKeyFile)
	}
	k, err := ParseKey(data)
	if err != nil {
		return nil, fmt.Errorf("journal: the key file %s: %w", path, err)
	}
	return k, nil
}

// ParseKey reads the text of a key file: exactly the signer key line and the verifier key line,
// each ending in a newline, a matching pair.
func ParseKey(data []byte) (*Key, error) {
	text := string(data)
	skey, rest, ok1 := strings.Cut(text, "\n")
	vkey, rest, ok2 := strings.Cut(rest, "\n")
	if !ok1 || !ok2 || rest != "" {
		return nil, errors.New("want two lines, the note signer key (PRIVATE+KEY+…) and its verifier key")
	}
	// note's base64 skips '\r' and '\n': a key line with them would read as the same key but
	// derive another account key, and be served with them as the verifier key.
	if bad := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }; strings.IndexFunc(skey, bad) >= 0 || strings.IndexFunc(vkey, bad) >= 0 {
		return nil, errors.New("a key line holds a space or a control character (a file edited with CRLF line ends?)")
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("the first line is not a note signer key: %w", err)
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("the second line is not a note verifier key: %w", err)
	}
	// The name and a 32-bit hash could match for two different keys: a signature made with
	// one and checked with the other is what proves they are a pair.
	msg, err := note.Sign(&note.Note{Text: "starcolor journal key check\n"}, signer)
	if err != nil {
		return nil, err
	}
	if _, err := note.Open(msg, note.VerifierList(verifier)); err != nil {
		return nil, errors.New("the verifier key does not check the signer key's signatures: not a pair")
	}
	k := &Key{Signer: signer, Verifier: verifier, VerifierKey: vkey, Origin: signer.Name()}
	ak, err := hkdf.Key(sha256.New, []byte(skey), nil, accountKeyInfo, len(k.AccountKey))
	if err != nil {
		return nil, err
	}
	copy(k.AccountKey[:], ak)
	return k, nil
}

// CreateKey makes a new key file at path, with a new key named name (GenerateKey), and
// returns it (WriteKey).
func CreateKey(path, name string) (*Key, error) {
	k, text, err := GenerateKey(name)
	if err != nil {
		return nil, err
	}
	if err := WriteKey(path, text); err != nil {
		return nil, err
	}
	return k, nil
}

// GenerateKey makes a new Ed25519 key named name ("starcolor-journal-" and 8 random hex digits
// when name is ""), and the text of its key file, not written yet.
func GenerateKey(name string) (*Key, []byte, error) {
	if name == "" {
		var b [4]byte
		rand.Read(b[:])
		name = DefaultKeyName + hex.EncodeToString(b[:])
	}
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, nil, err
	}
	text := []byte(skey + "\n" + vkey + "\n")
	k, err := ParseKey(text)
	if err != nil {
		// GenerateKey takes any name; the note format does not.
		return nil, nil, fmt.Errorf("journal: the key name %q: a name has no space and no '+'", name)
	}
	return k, text, nil
}

// WriteKey writes a key file's text at path. It never replaces a file: the text is written
// whole to a temporary file of mode 0600 made with O_EXCL, then linked to path, which fails if
// path exists. So a server that reads path reads a whole key, and of two servers creating it at
// once one makes it and the other gets fs.ErrExist.
func WriteKey(path string, text []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("journal: the key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file with O_EXCL and mode 0600; Chmod makes sure of the mode
	// whatever the platform.
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(text)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("journal: the key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("journal: the key file: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		// The new name is durable once its folder is synced: a key lost at a crash would leave
		// checkpoints nobody can extend.
		d.Sync()
		d.Close()
	}
	return nil
}
