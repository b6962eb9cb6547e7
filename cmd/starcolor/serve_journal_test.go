package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/storetest"
)

// signedJournal makes a database whose journal is signed with a key of its own: an emission's
// entry, and a checkpoint of it.
func signedJournal(t *testing.T) (db string, key *journal.Key) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	key, err := journal.CreateKey(filepath.Join(dir, "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "signed.db")
	store, err := app.OpenStore(ctx, db, &key.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	storetest.CreateEmission(t, store, gamedeftest.Mini(t), "MINI", 100, 1, 3)
	if err := journal.NewLog(store, key).Step(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := store.LatestCheckpoint(ctx); !ok || err != nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	return db, key
}

// serve refuses, before it writes anything, a journal key that is not the journal's, naming
// both keys. It makes no key for a journal that has entries. A key of another name than
// --journal-name, or that others may read, is refused too.
func TestServeJournalKey(t *testing.T) {
	db, key := signedJournal(t)
	emissions := func() int {
		store, err := app.OpenStore(context.Background(), db, &key.AccountKey)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		es, err := store.Emissions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	serve := func(args ...string) result {
		return cli(append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "off"}, args...)...)
	}

	// No key file for a signed journal: none is made, and the server does not start.
	other := filepath.Join(t.TempDir(), "other.key")
	r := serve("--journal-key", other, "--journal-name", "witness-test")
	if r.code != 1 || !strings.Contains(r.stderr, "there is no key file at "+other) || !strings.Contains(r.stderr, key.VerifierKey) {
		t.Errorf("serve with no key file for a signed journal: exit %d, %s; want 1, the file and the journal's key named", r.code, r.stderr)
	}
	if _, err := os.Lstat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve made a key for a journal signed with another: %v", err)
	}
	// Another key: refused before any write.
	made, err := journal.CreateKey(other, "witness-test")
	if err != nil {
		t.Fatal(err)
	}
	r = serve("--journal-key", other, "--journal-name", "witness-test")
	if r.code != 1 || !strings.Contains(r.stderr, journal.ErrOtherKey.Error()) || !strings.Contains(r.stderr, key.VerifierKey) ||
		!strings.Contains(r.stderr, made.VerifierKey) {
		t.Errorf("serve with another key: exit %d, %s; want 1, both keys named", r.code, r.stderr)
	}
	if n := emissions(); n != 1 {
		t.Errorf("serve with another key created emissions: %d", n)
	}

	path := filepath.Join(filepath.Dir(db), "journal.key")
	if r := serve("--journal-key", path, "--journal-name", "another-name"); r.code != 1 || !strings.Contains(r.stderr, `not "another-name"`) {
		t.Errorf("serve with a key of another name: exit %d, %s", r.code, r.stderr)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if r := serve("--journal-key", path); r.code != 1 || !strings.Contains(r.stderr, journal.ErrKeyMode.Error()) {
		t.Errorf("serve with a key the group may read: exit %d, %s", r.code, r.stderr)
	}
}

// A server makes the journal's key beside its database, serves its verifier key and signs
// checkpoints within seconds of the first entries (the emissions it creates at start), which
// its metrics show; started again, it goes on with the same key.
func TestServeSignsTheJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("creates an emission of 3,000,000 units at start; skipped with -short")
	}
	db := filepath.Join(t.TempDir(), "signs.db")
	t.Setenv(journalKeyEnv, "")
	srv := startServer(t, db, "--journal-name", "starcolor-test")
	key, err := journal.LoadKey(db + ".journal-key")
	if err != nil {
		t.Fatalf("no key beside the database: %v", err)
	}
	if key.Origin != "starcolor-test" || !strings.Contains(srv.logs.String(), key.VerifierKey) || !strings.Contains(srv.logs.String(), "the journal's key was made") {
		t.Fatalf("the key %q, not logged as made: %s", key.Origin, srv.logs)
	}
	if st, err := os.Stat(db + ".journal-key"); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file made has mode %v, want 0600", st.Mode().Perm())
	}
	get := func(url string) (int, string) {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if status, body := get(srv.url + "/api/v1/journal/key"); status != 200 || body != key.VerifierKey {
		t.Fatalf("GET /api/v1/journal/key: %d %q, want %q", status, body, key.VerifierKey)
	}
	start := time.Now()
	for {
		status, body := get(srv.url + "/api/v1/journal/checkpoint")
		if status == 200 {
			if _, err := note.Open([]byte(body), note.VerifierList(key.Verifier)); err != nil {
				t.Fatalf("the checkpoint: %v\n%s", err, body)
			}
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no checkpoint 10 s after the start: %d %s\n%s", status, body, srv.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, body := get(srv.metrics + "/metrics"); !strings.Contains(body, "\nstarcolor_journal_checkpoint_entries 3\n") {
		t.Errorf("the metrics do not show the checkpoint of the 3 emissions' entries:\n%s", body)
	}
	srv.kill()
	again := startServer(t, db)
	if status, body := get(again.url + "/api/v1/journal/key"); status != 200 || body != key.VerifierKey {
		t.Fatalf("started again: GET /api/v1/journal/key: %d %q", status, body)
	}
}
