package journal

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
)

// exported is a journal as it leaves the server: its export, and checkpoints kept of it.
type exported struct {
	key         *Key
	store       *memStore
	checkpoints []Signed
}

// newExported makes a journal of n entries, with a checkpoint every 10 entries and one of n.
func newExported(t testing.TB, n int) *exported {
	t.Helper()
	x := &exported{key: testKey(t, ""), store: newMemStore()}
	x.extend(t, n)
	return x
}

// extend appends n entries, keeping the checkpoints signed meanwhile.
func (x *exported) extend(t testing.TB, n int) {
	t.Helper()
	l := NewLog(x.store, x.key)
	for i := range n {
		fill(x.store, 1)
		if size := len(x.store.entries); size%10 == 0 || i == n-1 {
			now := t0.Add(time.Duration(size) * SignEvery)
			step(t, l, now)
			x.checkpoints = append(x.checkpoints, Signed{Name: fmt.Sprintf("cp%d", size), Note: x.store.checkpoints[int64(size)].Note})
		}
	}
}

// file is the export: one entry a line.
func (x *exported) file() []byte {
	var b bytes.Buffer
	for _, e := range x.store.entries {
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// verify verifies a journal file against the checkpoints, failing the test on an error.
func verify(t testing.TB, file []byte, key string, cps []Signed) *Report {
	t.Helper()
	rep, err := Verify(context.Background(), bytes.NewReader(file), key, cps, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A journal as exported passes, plain or gzip-compressed, against every checkpoint kept of it.
func TestVerifyClean(t *testing.T) {
	x := newExported(t, 95)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(x.file())
	zw.Close()
	for name, file := range map[string][]byte{"plain": x.file(), "gzip": gz.Bytes()} {
		rep := verify(t, file, x.key.VerifierKey, x.checkpoints)
		if !rep.OK() {
			t.Fatalf("%s: %v", name, rep.Problems)
		}
		if rep.Entries != 95 || rep.Checkpoints != 10 || rep.Size != 95 || !bytes.Equal(rep.Root[:], merkleRoot(x.store.entries)) {
			t.Fatalf("%s: %d entries, %d checkpoints up to %d, root %x", name, rep.Entries, rep.Checkpoints, rep.Size, rep.Root)
		}
	}
	// The last line may end without a newline: its bytes are the same.
	if rep := verify(t, bytes.TrimSuffix(x.file(), []byte("\n")), x.key.VerifierKey, x.checkpoints); !rep.OK() {
		t.Fatalf("no final newline: %v", rep.Problems)
	}
}

// A journal of several batches of lines (batchLines), read on every core, is taken whole and
// in order; a change in a later batch is named where it is.
func TestVerifyBatches(t *testing.T) {
	x := newExported(t, 3*batchLines+5)
	rep := verify(t, x.file(), x.key.VerifierKey, x.checkpoints)
	if !rep.OK() || rep.Entries != 3*batchLines+5 || rep.Size != rep.Entries || !bytes.Equal(rep.Root[:], merkleRoot(x.store.entries)) {
		t.Fatalf("%d entries, verified up to %d: %v", rep.Entries, rep.Size, rep.Problems)
	}
	ls := lines(x.file())
	ls[2500] = bytes.Replace(ls[2500], []byte(`"seq":2500,`), []byte(`"seq":2501,`), 1)
	WantProblems(t, verify(t, bytes.Join(ls, nil), x.key.VerifierKey, x.checkpoints),
		"seq 2500: the line holds the entry of seq 2501", "seq 2500: entries 2500 to 2509 are not those checkpoint cp2510 signed")
}

// lines splits an export into its lines, each a copy.
func lines(file []byte) [][]byte {
	var out [][]byte
	for l := range bytes.Lines(file) {
		out = append(out, bytes.Clone(l))
	}
	return out
}

// Every tampering of the file or of the checkpoints is caught, and the problem names the
// entries at fault.
func TestVerifyTampering(t *testing.T) {
	x := newExported(t, 95)
	// The past rewritten: the same journal with entry 33 changed and the tree signed again,
	// checked against a checkpoint kept from before.
	rewritten := &exported{key: x.key, store: newMemStore()}
	fill(rewritten.store, 33)
	rewritten.store.append(t0, Payment{AccountID: 1, Amount: 1, Transfer: 1})
	fill(rewritten.store, 0)
	for len(rewritten.store.entries) < 95 {
		rewritten.store.append(t0, event(len(rewritten.store.entries)))
	}
	rewritten.checkpoints = nil
	step(t, NewLog(rewritten.store, x.key), t0)
	rewritten.checkpoints = append(rewritten.checkpoints, Signed{Name: "new95", Note: rewritten.store.checkpoints[95].Note})
	other := newExported(t, 95)

	change := func(f func(ls [][]byte) [][]byte) []byte {
		return bytes.Join(f(lines(x.file())), nil)
	}
	tests := []struct {
		name string
		file []byte
		cps  []Signed
		want []string // each in a problem: "seq N: …", or a part of it
	}{
		{"a byte changed", change(func(ls [][]byte) [][]byte {
			ls[45] = bytes.Replace(ls[45], []byte(`"amount":300`), []byte(`"amount":900`), 1)
			return ls
		}), x.checkpoints, []string{"seq 40: entries 40 to 49 are not those checkpoint cp50 signed: it signs the root", "nor are the entries of the 5 checkpoints after it, up to cp95 of 95 (the past rewritten, or the file changed)"}},
		{"a byte changed, the JSON broken", change(func(ls [][]byte) [][]byte {
			ls[7][1] = '!'
			return ls
		}), x.checkpoints, []string{"seq 7: not a JSON entry", "seq 0: entries 0 to 9 are not those"}},
		{"an entry removed", change(func(ls [][]byte) [][]byte {
			return append(ls[:20:20], ls[21:]...)
		}), x.checkpoints, []string{"seq 20: entries 20 to 29 are not those checkpoint cp30", "seq 20: the lines of seq 20 to 93 hold the entries of seq 21 to 94: 1 entry is missing before them", "seq 94: checkpoint cp95 signs 95 entries, the journal holds 94: entry 94 is missing"}},
		{"two swapped", change(func(ls [][]byte) [][]byte {
			ls[61], ls[62] = ls[62], ls[61]
			return ls
		}), x.checkpoints, []string{"seq 61: the line holds the entry of seq 62", "seq 62: the line holds the entry of seq 61", "seq 60: entries 60 to 69 are not those checkpoint cp70"}},
		{"a line added", change(func(ls [][]byte) [][]byte {
			return append(ls[:5:5], append([][]byte{ls[5]}, ls[5:]...)...)
		}), x.checkpoints, []string{"seq 6: the lines of seq 6 to 95 hold the entries of seq 5 to 94: 1 line is added before them"}},
		{"the end cut", x.file()[:bytes.Index(x.file(), x.store.entries[90])], x.checkpoints, []string{"seq 90: checkpoint cp95 signs 95 entries, the journal holds 90: entries 90 to 94 are missing"}},
		{"a seq changed", change(func(ls [][]byte) [][]byte {
			ls[3] = bytes.Replace(ls[3], []byte(`"seq":3,`), []byte(`"seq":4,`), 1)
			return ls
		}), x.checkpoints, []string{"seq 3: the line holds the entry of seq 4", "seq 0: entries 0 to 9"}},
		{"an unknown kind", change(func(ls [][]byte) [][]byte {
			ls[12] = bytes.Replace(ls[12], []byte(`"kind":"`), []byte(`"kind":"x`), 1)
			return ls
		}), x.checkpoints, []string{"seq 12: unknown kind"}},
		{"a space", change(func(ls [][]byte) [][]byte {
			ls[13] = bytes.Replace(ls[13], []byte(`,"time"`), []byte(`, "time"`), 1)
			return ls
		}), x.checkpoints, []string{"seq 13: not an exclusion entry as the server writes it"}},
		{"a field twice", change(func(ls [][]byte) [][]byte {
			ls[14] = bytes.Replace(ls[14], []byte(`{"seq":14,`), []byte(`{"seq":14,"seq":14,`), 1)
			return ls
		}), x.checkpoints, []string{"seq 14: not a JSON entry"}},
		{"a checkpoint from another key", x.file(), append([]Signed{{Name: "alien", Note: other.checkpoints[3].Note}}, x.checkpoints...),
			[]string{"checkpoint alien: signed with the key " + other.key.Origin}},
		{"a checkpoint's root changed", x.file(), []Signed{{Name: "forged", Note: forge(x.checkpoints[2].Note)}},
			[]string{"checkpoint forged: not a note signed with"}},
		{"a checkpoint from before a rewrite", rewritten.file(), append(rewritten.checkpoints, x.checkpoints[3]),
			[]string{"seq 0: entries 0 to 39 are not those checkpoint cp40 signed", "yet new95, signed later, signs these entries: the past was rewritten after cp40 was signed"}},
		{"two histories signed", rewritten.file(), append(rewritten.checkpoints, x.checkpoints[9]),
			[]string{"checkpoints new95 and cp95 both sign 95 entries, with two roots", "seq 0: entries 0 to 94 are not those checkpoint cp95"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			WantProblems(t, verify(t, tt.file, x.key.VerifierKey, tt.cps), tt.want...)
		})
	}
}

// WantProblems fails a test unless each of want is part of a problem of rep. It is exported for
// the tests of package journal_test.
func WantProblems(t testing.TB, rep *Report, want ...string) {
	t.Helper()
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.String())
	}
	t.Logf("%d problems:\n%s", len(got), strings.Join(got, "\n"))
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("no problem %q among:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// forge changes a digit of a checkpoint's root, keeping its signature.
func forge(cp []byte) []byte {
	ls := strings.SplitN(string(cp), "\n", 4)
	b := []byte(ls[2])
	b[0] ^= 1
	ls[2] = string(b)
	return []byte(strings.Join(ls, "\n"))
}

// A journal cut in its middle reports the shift once, and a journal of garbage at most
// MaxProblems problems, the others counted.
func TestVerifyBounded(t *testing.T) {
	var junk bytes.Buffer
	for range MaxProblems + 10 {
		junk.WriteString("not an entry\n")
	}
	rep := verify(t, junk.Bytes(), testKey(t, "").VerifierKey, nil)
	if len(rep.Problems) != MaxProblems || rep.Dropped != 10 || rep.Entries != MaxProblems+10 {
		t.Fatalf("%d problems kept, %d dropped, %d entries", len(rep.Problems), rep.Dropped, rep.Entries)
	}
	// A line longer than the reader's buffer is one problem, and still a leaf of the tree.
	long := append(bytes.Repeat([]byte("x"), maxLine+10), '\n')
	rep = verify(t, append(long, long...), testKey(t, "").VerifierKey, nil)
	if len(rep.Problems) != 2 || rep.Problems[1].Seq != 1 || rep.Entries != 2 ||
		!bytes.Equal(rep.Root[:], merkleRoot([][]byte{long[:len(long)-1], long[:len(long)-1]})) {
		t.Fatalf("long lines: %v, %d entries, root %x", rep.Problems, rep.Entries, rep.Root)
	}
}

// FuzzParseEntry: a line is taken only if it is the exact bytes of an entry, whose seq and kind
// it says.
func FuzzParseEntry(f *testing.F) {
	s := newMemStore()
	fill(s, 14)
	for _, e := range s.entries {
		f.Add(e)
	}
	f.Add([]byte(`{"seq":1,"seq":2}`))
	f.Add([]byte(`{"seq":1,"time":"2026-12-02T06:30:00.000Z","kind":"operator","operator":"a","action":"b","detail":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, seq, err := parseEntry(line)
		if err != nil {
			return
		}
		again, _, _ := parseEntry(line)
		if !bytes.HasPrefix(line, fmt.Appendf(nil, `{"seq":%d,"time":"`, seq)) || again == nil || e == nil {
			t.Fatalf("%q taken as seq %d", line, seq)
		}
		if bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("%q taken with a line break", line)
		}
	})
}

// FuzzOpenCheckpoint: a checkpoint is taken only signed by the key, with a size and a 32-byte
// root; a body signed by the key but not a checkpoint is refused, never a panic.
func FuzzOpenCheckpoint(f *testing.F) {
	k := testKey(f, "starcolor-journal-fuzz")
	x := &exported{key: k, store: newMemStore()}
	x.extend(f, 12)
	for _, c := range x.checkpoints {
		f.Add(c.Note, false)
	}
	f.Add([]byte(k.Origin+"\n5\nAAAA\n"), true)
	f.Add([]byte(k.Origin+"\n18446744073709551615\n"+strings.Repeat("A", 43)+"=\n"), true)
	f.Fuzz(func(t *testing.T, text []byte, sign bool) {
		if sign {
			// The text as a checkpoint's body, signed: the parser of the body is reached.
			msg, err := note.Sign(&note.Note{Text: string(text)}, k.Signer)
			if err != nil {
				return
			}
			text = msg
		}
		size, root, err := OpenCheckpoint(text, k.Verifier)
		if err != nil {
			return
		}
		n, err := note.Open(text, note.VerifierList(k.Verifier))
		if err != nil || size < 0 || !strings.HasPrefix(n.Text, fmt.Sprintf("%s\n%d\n%s\n", k.Origin, size, base64.StdEncoding.EncodeToString(root[:]))) {
			t.Fatalf("%q taken as size %d root %x", text, size, root)
		}
	})
}
