package journal

import (
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

// A new key file has mode 0600, its default name, a pair of keys that sign and verify with
// note, and the account key derived from its signer key line.
func TestCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.key")
	k, err := CreateKey(path, "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", st.Mode().Perm())
	}
	if !regexp.MustCompile(`^starcolor-journal-[0-9a-f]{8}$`).MatchString(k.Origin) {
		t.Fatalf("name %q", k.Origin)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	if len(lines) != 3 || lines[2] != "" || !strings.HasPrefix(lines[0], "PRIVATE+KEY+"+k.Origin+"+") || lines[1] != k.VerifierKey {
		t.Fatalf("key file %q", data)
	}
	msg, err := note.Sign(&note.Note{Text: "hello\n"}, k.Signer)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(k.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := note.Open(msg, note.VerifierList(v)); err != nil || n.Text != "hello\n" {
		t.Fatalf("a signature of the key does not verify with its verifier key: %v", err)
	}
	want, _ := hkdf.Key(sha256.New, []byte(lines[0]), nil, "starcolor journal account key v1", 32)
	if string(k.AccountKey[:]) != string(want) {
		t.Fatal("the account key is not HKDF-SHA256 of the signer key line")
	}
	// The file is made once: a second creation fails and leaves it as it was.
	if _, err := CreateKey(path, ""); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second creation: %v, want fs.ErrExist", err)
	}
	again, err := LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if again.VerifierKey != k.VerifierKey || again.AccountKey != k.AccountKey {
		t.Fatal("the key read back differs")
	}
	other, err := CreateKey(filepath.Join(t.TempDir(), "other.key"), k.Origin)
	if err != nil {
		t.Fatal(err)
	}
	if other.AccountKey == k.AccountKey || other.VerifierKey == k.VerifierKey {
		t.Fatal("two key files give one key")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("%d files left in the key's folder", len(entries))
	}
}

// Servers starting at once on one key file end with one key, all of them: the file is never
// half written, never replaced.
func TestOpenKeyRace(t *testing.T) {
	for round := range 50 {
		dir := t.TempDir()
		path := filepath.Join(dir, "journal.key")
		keys := make([]*Key, 8)
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() {
				k, err := OpenKey(path, "", true)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				keys[i] = k
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		for _, k := range keys {
			if k.VerifierKey != keys[0].VerifierKey || k.AccountKey != keys[0].AccountKey {
				t.Fatalf("round %d: two keys made for one file", round)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("round %d: %d files in the key's folder", round, len(entries))
		}
	}
}

// A key file that group or others may read or write is refused, and so is one that is missing
// when it is not to be made.
func TestLoadKeyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.key")
	if _, err := OpenKey(path, "", false); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no key file: %v", err)
	}
	if _, err := CreateKey(path, "starcolor-journal-a"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o620, 0o602, 0o700 | 0o040} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKey(path); !errors.Is(err, ErrKeyMode) {
			t.Errorf("mode %04o: %v, want ErrKeyMode", mode, err)
		}
	}
	os.Chmod(path, 0o400)
	if _, err := LoadKey(path); err != nil {
		t.Errorf("mode 0400: %v", err)
	}
	if _, err := OpenKey(path, "starcolor-journal-b", true); err == nil {
		t.Error("a key file of another name was taken")
	}
	if _, err := CreateKey(filepath.Join(t.TempDir(), "k"), "a name"); err == nil {
		t.Error("a name with a space was taken")
	}
}

// A key file is exactly a signer key line and its verifier key line.
func TestParseKeyRefused(t *testing.T) {
	s1, v1, _ := note.GenerateKey(nil, "starcolor-journal-x")
	_, v2, _ := note.GenerateKey(nil, "starcolor-journal-x")
	if _, err := ParseKey([]byte(s1 + "\n" + v1 + "\n")); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"not a pair":      s1 + "\n" + v2 + "\n",
		"no newline":      s1 + "\n" + v1,
		"one line":        s1 + "\n",
		"a third line":    s1 + "\n" + v1 + "\n\n",
		"crlf":            s1 + "\r\n" + v1 + "\r\n",
		"swapped":         v1 + "\n" + s1 + "\n",
		"two verifiers":   v1 + "\n" + v1 + "\n",
		"space":           s1 + " \n" + v1 + "\n",
		"empty":           "",
		"verifier broken": s1 + "\n" + v1[:len(v1)-2] + "\n",
	} {
		if _, err := ParseKey([]byte(text)); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}

// FuzzParseKey: a key file is taken only if it is exactly the two lines of a pair of keys.
func FuzzParseKey(f *testing.F) {
	s, v, _ := note.GenerateKey(nil, "starcolor-journal-f")
	f.Add([]byte(s + "\n" + v + "\n"))
	f.Add([]byte(s + "\n" + v))
	f.Add([]byte("PRIVATE+KEY+a+00000000+AQ==\na+00000000+AQ==\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKey(data)
		if err != nil {
			return
		}
		skey, _, _ := strings.Cut(string(data), "\n")
		if string(data) != skey+"\n"+k.VerifierKey+"\n" || strings.ContainsAny(string(data), " \r\t") || k.Origin != k.Verifier.Name() || k.Signer.KeyHash() != k.Verifier.KeyHash() {
			t.Fatalf("%q taken as %s", data, k.VerifierKey)
		}
	})
}
