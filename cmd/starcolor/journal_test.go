package main

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/emission/emissiontest"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
)

// journalFiles writes an exported journal of sales of a block of the mini definition, the
// block's export, and checkpoints of the journal at 10 and 20 entries, signed with the tree
// computed by transparency-dev/merkle, apart from the server's.
func journalFiles(t *testing.T) (dir string, k *journal.Key, entries [][]byte) {
	t.Helper()
	dir = t.TempDir()
	k, err := journal.CreateKey(filepath.Join(dir, "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	e, pages := emissiontest.Build(t, gamedeftest.Mini(t), 100, 1, 3)
	r, err := emission.NewReader(e, pages)
	if err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := r.Export(context.Background(), &export, 0); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "block0.jsonl"), export.Bytes())
	units := bytes.Split(export.Bytes(), []byte("\n"))[1:]
	at := time.Date(2026, 12, 2, 6, 30, 0, 0, time.UTC)
	entries = append(entries, journal.Encode(0, at, journal.Emission{ID: "T1", Event: "created", Price: 100,
		Definition: e.Definition, Roots: []string{hex.EncodeToString(e.Blocks[0].Root[:])}, Operator: "command line"}, &k.AccountKey))
	for i := 1; i < 20; i++ {
		rec, err := audit.ParseLine(units[i])
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, journal.Encode(uint64(i), at, journal.Sale{Game: int64(i), AccountID: 1, Stake: 100, Prize: rec.Prize,
			Emission: "T1", Block: 0, Index: i, Unit: audit.LeafHash(units[i]), Mode: "auto", Transfer: int64(i)}, &k.AccountKey))
	}
	write(t, filepath.Join(dir, "journal.ndjson"), append(bytes.Join(entries, []byte("\n")), '\n'))
	f := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	tree := f.NewEmptyRange(0)
	for i, e := range entries {
		tree.Append(rfc6962.DefaultHasher.HashLeaf(e), nil)
		if size := i + 1; size%10 == 0 {
			root, _ := tree.GetRootHash(nil)
			msg, err := note.Sign(&note.Note{Text: string(log.Checkpoint{Origin: k.Origin, Size: uint64(size), Hash: root}.Marshal())}, k.Signer)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, fmt.Sprintf("cp%d", size)), msg)
		}
	}
	write(t, filepath.Join(dir, "key"), []byte(k.VerifierKey+"\n"))
	return dir, k, entries
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// journal verify passes a clean journal with a summary, exit 0; names each problem of a
// tampered one by its seq, one a line, exit 1; and wants its checkpoints and key.
func TestJournalVerify(t *testing.T) {
	dir, k, entries := journalFiles(t)
	in := func(name string) string { return filepath.Join(dir, name) }
	r := cli("journal", "verify", in("journal.ndjson"), "--checkpoint", in("cp10"), "--checkpoint", in("cp20"), "--key", k.VerifierKey, "--block", in("block0.jsonl"))
	if r.code != 0 || !strings.Contains(r.stdout, "OK — 20 entries, root ") || !strings.Contains(r.stdout, "2 checkpoints verified, the largest of 20 entries; 19 sales checked against 1 block exports") {
		t.Fatalf("clean journal: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The key may be given as the file GET /api/v1/journal/key was saved to, and the flags
	// before the file.
	if r := cli("journal", "verify", "--key", in("key"), "--checkpoint", in("cp10"), in("journal.ndjson")); r.code != 0 || !strings.Contains(r.stdout, "(entries 10 to 19 signed by none given)") {
		t.Fatalf("key from a file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Entry 5 sold another unit, and entries 12 and 13 are swapped.
	bad := append([][]byte(nil), entries...)
	bad[5] = bytes.Clone(bad[5])
	u := bytes.Index(bad[5], []byte(`"unit":"`)) + len(`"unit":"`)
	bad[5][u] = "10"[min(1, int(bad[5][u]-'0'))] // another digit
	bad[12], bad[13] = bad[13], bad[12]
	write(t, in("bad.ndjson"), append(bytes.Join(bad, []byte("\n")), '\n'))
	r = cli("journal", "verify", in("bad.ndjson"), "--checkpoint", in("cp10"), "--checkpoint", in("cp20"), "--key", k.VerifierKey, "--block", in("block0.jsonl"))
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	for _, l := range lines {
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(in("bad.ndjson")) + `: seq \d+: `).MatchString(l) {
			t.Errorf("a problem that names no seq: %q", l)
		}
	}
	want := []string{"seq 5: the unit of emission T1 block 0 index 5 is ", "seq 0: entries 0 to 9 are not those checkpoint", "seq 12: the line holds the entry of seq 13", "seq 13: the line holds the entry of seq 12"}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("no problem %q", w)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "problems in 20 entries") {
		t.Fatalf("tampered journal: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, args := range [][]string{
		{in("journal.ndjson"), "--key", k.VerifierKey},
		{in("journal.ndjson"), "--checkpoint", in("cp10")},
		{"--checkpoint", in("cp10"), "--key", k.VerifierKey},
		{in("journal.ndjson"), in("journal.ndjson"), "--checkpoint", in("cp10"), "--key", k.VerifierKey},
	} {
		if r := cli(append([]string{"journal", "verify"}, args...)...); r.code != 2 {
			t.Errorf("%q: exit %d, want 2", args, r.code)
		}
	}
	if r := cli("journal", "verify", in("journal.ndjson"), "--checkpoint", in("cp10"), "--key", in("nothing")); r.code != 1 || !strings.Contains(r.stderr, "neither a verifier key") {
		t.Errorf("no key: exit %d, %s", r.code, r.stderr)
	}
}

// journal account-key prints the account key of a key file, HKDF-SHA256 of its signer key
// line; a key file others may read is refused.
func TestJournalAccountKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.key")
	if r := cli("journal", "account-key", "--journal-key", path); r.code != 1 || !strings.Contains(r.stderr, "no key file at") {
		t.Fatalf("no key file: exit %d, %s", r.code, r.stderr)
	}
	if _, err := journal.CreateKey(path, ""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	skey, _, _ := strings.Cut(string(data), "\n")
	want, _ := hkdf.Key(sha256.New, []byte(skey), nil, "starcolor journal account key v1", 32)
	if r := cli("journal", "account-key", "--journal-key", path); r.code != 0 || r.stdout != hex.EncodeToString(want)+"\n" {
		t.Fatalf("exit %d: %q, want %x", r.code, r.stdout, want)
	}
	os.Chmod(path, 0o644)
	if r := cli("journal", "account-key", "--journal-key", path); r.code != 1 || !strings.Contains(r.stderr, "chmod 600") {
		t.Fatalf("a key file others read: exit %d, %s", r.code, r.stderr)
	}
	if r := cli("journal", "account-key"); r.code != 2 {
		t.Fatalf("no --journal-key: exit %d", r.code)
	}
}
