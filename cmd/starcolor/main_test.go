package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"starcolor/internal/fakewallet/fakewallettest"
	"starcolor/internal/gamedef"
)

// TestMain lets the test binary stand in for the starcolor binary, so that tests can run it as
// a real process (to interrupt or kill it) without building it separately. The reference wallet
// is a command of its own, built once for the tests that need it (fakewallettest), and removed
// after them.
//
// The longest tests, 26–70 s each, mostly wait on servers they start, kill or restart: they run
// two at a time (t.Parallel), after the others. One after the other, the package took 470–560 s
// of go test's 10 minutes, and a busy machine went past them (CI, 2026-12-06).
func TestMain(m *testing.M) {
	if os.Getenv("STARCOLOR_TEST_MAIN") == "1" {
		main()
		return
	}
	// One key file of the journal for every database of the tests and the servers they start
	// (which inherit it): none is made in the working directory, which on PostgreSQL holds it.
	keys, err := os.MkdirTemp("", "starcolor-journal-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv(journalKeyEnv, filepath.Join(keys, "journal.key"))
	code := m.Run()
	fakewallettest.Remove()
	os.RemoveAll(keys)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// cli runs a command line in-process.
func cli(args ...string) result {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return result{out.String(), errOut.String(), code}
}

const seed1 = "0000000000000000000000000000000000000000000000000000000000000001"

// shared is one database holding emission E1 (one block at 1 EUR) and its exports, made once.
var shared = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "starcolor-cli-")
	if err != nil {
		return "", err
	}
	db := filepath.Join(dir, "shared.db")
	if r := cli("emission", "create", "--db", db, "--id", "E1", "--price", "1", "--blocks", "1", "--seed", seed1); r.code != 0 {
		return "", &exitError{r}
	}
	// The block is on sale, so its export comes from the seed (emission derive), as an auditor
	// checks a block before its sale.
	seedFile := filepath.Join(dir, "e1.seed")
	if err := os.WriteFile(seedFile, []byte(seed1+"\n"), 0o600); err != nil {
		return "", err
	}
	if r := cli("emission", "derive", "--db", db, "--emission", "E1", "--seed-file", seedFile, "--out", dir); r.code != 0 || !strings.Contains(r.stdout, "the committed root") {
		return "", &exitError{r}
	}
	gz := filepath.Join(dir, "e1.jsonl.gz")
	if err := os.Rename(filepath.Join(dir, "E1-block-0.jsonl.gz"), gz); err != nil {
		return "", err
	}
	if err := gunzip(gz, filepath.Join(dir, "e1.jsonl")); err != nil {
		return "", err
	}
	return dir, nil
})

func gunzip(from, to string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	return os.WriteFile(to, raw, 0o644)
}

type exitError struct{ r result }

func (e *exitError) Error() string { return "exit " + e.r.stderr }

func sharedDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("creates and exports a block of 1,000,000 units; skipped with -short")
	}
	dir, err := shared()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGameShow(t *testing.T) {
	r := cli("game", "show")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"starcolor-fdj-2013/1", "Price 1 €", "Price 2 €", "Price 3 €", "20\u202f000 €", "60\u202f000 €", "756088", "70.00 %", "Extra stage"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("game show lacks %q:\n%s", want, r.stdout)
		}
	}
	r = cli("game", "show", "--json")
	if _, err := gamedef.Parse([]byte(r.stdout)); r.code != 0 || err != nil {
		t.Fatalf("game show --json: exit %d, %v", r.code, err)
	}
}

func TestEmissionLifecycle(t *testing.T) {
	dir := sharedDir(t)
	db := filepath.Join(dir, "shared.db")
	r := cli("emission", "list", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "E1") || !strings.Contains(r.stdout, "1000000") {
		t.Fatalf("list: %+v", r)
	}
	r = cli("emission", "show", "--db", db, "E1")
	if r.code != 0 || !strings.Contains(r.stdout, "root") && !strings.Contains(r.stdout, "ROOT") {
		t.Fatalf("show: %+v", r)
	}
	r = cli("emission", "verify", filepath.Join(dir, "e1.jsonl"), filepath.Join(dir, "e1.jsonl.gz"))
	if r.code != 0 || strings.Count(r.stdout, ": OK") != 2 || !strings.Contains(r.stdout, "243912 winning") {
		t.Fatalf("verify: %+v", r)
	}
	// The root printed by show is the root in the export's header.
	f, err := os.Open(filepath.Join(dir, "e1.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Root string }
	if err := json.NewDecoder(gz).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if show := cli("emission", "show", "--db", db, "E1"); !strings.Contains(show.stdout, h.Root) {
		t.Fatalf("show does not print the exported root %s:\n%s", h.Root, show.stdout)
	}
}

// Bad input: each a clear message, a non-zero exit, and nothing changed or half-written.
func TestBadInput(t *testing.T) {
	dir := sharedDir(t)
	db := filepath.Join(dir, "shared.db")
	export, err := os.ReadFile(filepath.Join(dir, "e1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := bytes.SplitAfter(export, []byte("\n"))
	truncated := write("truncated.jsonl", bytes.Join(lines[:5000], nil))
	cut := write("cut.jsonl", export[:len(export)/2])
	corrupt := write("corrupt.jsonl", bytes.Replace(export, []byte(`{"i":77,"prize":`), []byte(`{"i":77,"prize":9`), 1))
	csv := write("other.csv", []byte("emission,block,root\nE1,0,abc\n"))
	other := write("other.jsonl", []byte(`{"format":"someone-else/1","units":3}`+"\n{}\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(export[:1<<20])
	zw.Close()
	badGzip := write("bad.jsonl.gz", gz.Bytes()[:gz.Len()/2])
	empty := write("empty.jsonl", nil)
	otherSeed := write("other.seed", []byte(strings.Repeat("ab", 32)+"\n"))
	out := filepath.Join(t.TempDir(), "never.jsonl")
	words := filepath.Join(t.TempDir(), "never.bin")

	before := cli("emission", "list", "--db", db).stdout
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no demo money", []string{"serve", "--db", db, "--demo-balance", "0"}, 2, "--demo-balance is 1 to"},
		{"a negative demo rate", []string{"serve", "--db", db, "--demo-per-minute", "-1"}, 2, "--demo-per-minute is 0"},
		{"unknown price", []string{"emission", "create", "--db", db, "--id", "X", "--price", "5", "--blocks", "1"}, 1, "unknown price"},
		{"price not a number", []string{"emission", "create", "--db", db, "--id", "X", "--price", "two", "--blocks", "1"}, 2, "not an amount"},
		{"zero blocks", []string{"emission", "create", "--db", db, "--id", "X", "--price", "1", "--blocks", "0"}, 2, "at least one block"},
		{"negative blocks", []string{"emission", "create", "--db", db, "--id", "X", "--price", "1", "--blocks", "-2"}, 2, "at least one block"},
		{"no id", []string{"emission", "create", "--db", db, "--price", "1", "--blocks", "1"}, 2, "id"},
		{"bad id", []string{"emission", "create", "--db", db, "--id", "a b", "--price", "1", "--blocks", "1"}, 2, "letters, digits"},
		{"bad seed", []string{"emission", "create", "--db", db, "--id", "X", "--price", "1", "--blocks", "1", "--seed", "xyz"}, 2, "64 hex digits"},
		{"duplicate id", []string{"emission", "create", "--db", db, "--id", "E1", "--price", "1", "--blocks", "1"}, 1, "already exists"},
		{"unknown emission", []string{"emission", "show", "--db", db, "NOPE"}, 1, `no emission "NOPE"`},
		{"export of an unknown emission", []string{"emission", "export", "--db", db, "--emission", "NOPE", "--block", "0", "--out", out}, 1, `no emission "NOPE"`},
		{"export of a block on sale", []string{"emission", "export", "--db", db, "--emission", "E1", "--block", "0", "--out", out}, 1, "block 0 of emission E1 still has 1000000 of its 1000000 units for sale"},
		{"derive with another seed", []string{"emission", "derive", "--db", db, "--emission", "E1", "--seed-file", otherSeed, "--out", t.TempDir()}, 1, "rebuilds blocks [0] with other roots than those committed"},
		{"derive without a seed", []string{"emission", "derive", "--db", db, "--emission", "E1", "--out", t.TempDir()}, 2, "--seed-file is required"},
		{"derive from a file that is no seed", []string{"emission", "derive", "--db", db, "--emission", "E1", "--seed-file", csv, "--out", t.TempDir()}, 1, "not a seed"},
		{"derive into a missing folder", []string{"emission", "derive", "--db", db, "--emission", "E1", "--seed-file", filepath.Join(dir, "e1.seed"), "--out", filepath.Join(dir, "no")}, 1, "not a folder"},
		{"derive with a price and no blocks", []string{"emission", "derive", "--emission", "E1", "--seed-file", filepath.Join(dir, "e1.seed"), "--out", t.TempDir(), "--price", "1"}, 2, "--price and --blocks go together"},
		{"derive of an unknown emission", []string{"emission", "derive", "--db", db, "--emission", "NOPE", "--seed-file", filepath.Join(dir, "e1.seed"), "--out", t.TempDir()}, 1, `no emission "NOPE"`},
		{"export of an unknown block", []string{"emission", "export", "--db", db, "--emission", "E1", "--block", "3", "--out", out}, 1, "no block 3"},
		{"export without a file", []string{"emission", "export", "--db", db, "--emission", "E1", "--block", "0"}, 2, "--out"},
		{"verify a missing file", []string{"emission", "verify", filepath.Join(dir, "missing.jsonl")}, 1, "no such file"},
		{"verify a truncated export", []string{"emission", "verify", truncated}, 1, "truncated: the header announces 1000000 units but the file ends after 4999"},
		{"verify an export cut mid-line", []string{"emission", "verify", cut}, 1, "not in the audit format"},
		{"verify a corrupted export", []string{"emission", "verify", corrupt}, 1, "unit 77 (line 79)"},
		{"verify a CSV", []string{"emission", "verify", csv}, 1, "not a starcolor-audit/1 export"},
		{"verify another format", []string{"emission", "verify", other}, 1, `format "someone-else/1"`},
		{"verify a broken gzip", []string{"emission", "verify", badGzip}, 1, "unexpected EOF"},
		{"verify an empty file", []string{"emission", "verify", empty}, 1, "empty file"},
		{"verify nothing", []string{"emission", "verify"}, 2, "at least one"},
		{"report of an unknown emission", []string{"emission", "report", "--db", db, "NOPE"}, 1, `no emission "NOPE"`},
		{"randomness of an unknown emission", []string{"emission", "randomness", "--db", db, "NOPE"}, 1, `no emission "NOPE"`},
		{"randomness without an id", []string{"emission", "randomness", "--db", db}, 2, "want one emission id"},
		{"randomness of two ids", []string{"emission", "randomness", "--db", db, "E1", "E2"}, 2, `unexpected argument "E2"`},
		{"generator output into a missing folder", []string{"emission", "create", "--db", db, "--id", "X", "--price", "1", "--blocks", "1", "--rng-out", filepath.Join(dir, "no", "x.bin")}, 1, "--rng-out: stat"},
		{"generator output of a duplicate id", []string{"emission", "create", "--db", db, "--id", "E1", "--price", "1", "--blocks", "1", "--rng-out", words}, 1, "already exists"},
		{"list a database that does not exist", []string{"emission", "list", "--db", filepath.Join(dir, "typo.db")}, 1, "no database at"},
		{"export from a database that does not exist", []string{"emission", "export", "--db", filepath.Join(dir, "typo.db"), "--emission", "E1", "--block", "0", "--out", out}, 1, "no database at"},
		{"unknown command", []string{"emissions"}, 2, "unknown command"},
		{"unknown subcommand", []string{"emission", "delete", "E1"}, 2, "unknown command"},
		{"unknown flag", []string{"emission", "list", "--db", db, "--colour"}, 2, "flag provided but not defined"},
		{"the load tool, moved", []string{"loadtest", "--players", "4"}, 2, "loadtest is a command of its own now: starcolor-loadtest"},
		{"the reference wallet, moved", []string{"fakewallet", "books"}, 2, "fakewallet is a command of its own now: starcolor-fakewallet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tt.code, tt.want)
			}
		})
	}
	if after := cli("emission", "list", "--db", db).stdout; after != before {
		t.Errorf("bad input changed the emissions:\n%s\nwas:\n%s", after, before)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s", out)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(words), "*")); len(left) > 0 {
		t.Errorf("a failed creation left %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo.db")); !os.IsNotExist(err) {
		t.Errorf("reading a mistyped database created it")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// A creation killed at any instant (SIGKILL) or interrupted (SIGINT) leaves no emission, whether
// it generates in a staging file (the default) or straight into the database (--direct); a
// staging file left by a killed one is gone once the database is opened again.
func TestCreateKilledLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs emission creations of 3,000,000 units; skipped with -short")
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		args []string
		file string // the file the units go to, from the database's path
	}{
		{"staged/SIGKILL", syscall.SIGKILL, nil, "-staging-????????????????"}, // not its lock, beside it
		{"staged/SIGINT", syscall.SIGINT, nil, "-staging-????????????????"},
		{"direct/SIGKILL", syscall.SIGKILL, []string{"--direct"}, "-wal"},
		{"direct/SIGINT", syscall.SIGINT, []string{"--direct"}, "-wal"},
	} {
		sig := c.sig
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "killed.db")
			cmd := exec.Command(os.Args[0], append([]string{"emission", "create", "--db", db, "--id", "K", "--price", "2", "--blocks", "3"}, c.args...)...)
			cmd.Env = append(os.Environ(), "STARCOLOR_TEST_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until units are being written, then strike.
			deadline := time.Now().Add(30 * time.Second)
			for {
				if files, _ := filepath.Glob(db + c.file); len(files) == 1 {
					if fi, err := os.Stat(files[0]); err == nil && fi.Size() > 20<<20 {
						break
					}
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the creation never started writing")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Fatal("the interrupted creation exited 0")
			}
			if sig == syscall.SIGINT && !strings.Contains(stderr.String(), "interrupted: nothing was written") {
				t.Errorf("SIGINT: stderr %q", stderr.String())
			}
			r := cli("emission", "list", "--db", db)
			if r.code != 0 || !strings.Contains(r.stdout, "no emission") {
				t.Fatalf("after %v: %+v", sig, r)
			}
			r = cli("emission", "show", "--db", db, "K")
			if r.code == 0 {
				t.Fatalf("the killed emission is there: %s", r.stdout)
			}
			if left, _ := filepath.Glob(db + "-staging-*"); len(left) > 0 {
				t.Errorf("staging files left: %v", left)
			}
		})
	}
}
