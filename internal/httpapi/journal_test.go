package httpapi_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/journal"
	"starcolor/internal/storetest"
)

// The journal's calls (docs/spec/API.md 1.2), read as an auditor would: with no session, each
// answer checked with the libraries a stranger would use (sumdb/note, transparency-dev's
// formats and merkle), never with the server's own code.

// get reads a public call: no session, no cookie.
func (s *testServer) get(t testing.TB, path string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(s.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// mustGet reads a public call that must answer 200 with a type and a Cache-Control.
func (s *testServer) mustGet(t testing.TB, path, contentType, cache string) []byte {
	t.Helper()
	status, h, body := s.get(t, path)
	if status != 200 || h.Get("Content-Type") != contentType || h.Get("Cache-Control") != cache {
		t.Fatalf("GET %s: %d %q %q %s, want 200 %q %q", path, status, h.Get("Content-Type"), h.Get("Cache-Control"), body, contentType, cache)
	}
	return body
}

// Cache-Control of the journal's answers: what never changes, and the latest checkpoint.
const (
	immutable = "public, max-age=31536000, immutable"
	noStore   = "no-store"
)

// signed is a checkpoint as served, opened.
type signed struct {
	text []byte
	cp   *log.Checkpoint
}

// checkpoint reads the latest checkpoint and checks it with the published key.
func (s *testServer) checkpoint(t testing.TB) signed {
	t.Helper()
	text := s.mustGet(t, "/api/v1/journal/checkpoint", "text/plain; charset=utf-8", noStore)
	return openSigned(t, s.verifier(t), text)
}

// openSigned opens a checkpoint with note and reads it as a C2SP checkpoint.
func openSigned(t testing.TB, v note.Verifier, text []byte) signed {
	t.Helper()
	if _, err := note.Open(text, note.VerifierList(v)); err != nil {
		t.Fatalf("the checkpoint does not verify with the published key: %v\n%s", err, text)
	}
	cp, _, _, err := log.ParseCheckpoint(text, v.Name(), v)
	if err != nil {
		t.Fatalf("not a checkpoint: %v\n%s", err, text)
	}
	return signed{text: text, cp: cp}
}

// verifier is the published verifier key, which must be the server's.
func (s *testServer) verifier(t testing.TB) note.Verifier {
	t.Helper()
	key := s.mustGet(t, "/api/v1/journal/key", "text/plain; charset=utf-8", "public, max-age=3600")
	if s.key != nil && string(key) != s.key.VerifierKey {
		t.Fatalf("GET /api/v1/journal/key: %q, the server's key is %q", key, s.key.VerifierKey)
	}
	v, err := note.NewVerifier(string(key))
	if err != nil {
		t.Fatalf("GET /api/v1/journal/key: %q: %v", key, err)
	}
	return v
}

// entries reads entries start to end-1 and checks that they are the store's, byte for byte.
func (s *testServer) entries(t testing.TB, start, end uint64) [][]byte {
	t.Helper()
	body := s.mustGet(t, fmt.Sprintf("/api/v1/journal/entries?start=%d&end=%d", start, end), "application/x-ndjson", immutable)
	if end > start && !bytes.HasSuffix(body, []byte("\n")) || end == start && len(body) != 0 {
		t.Fatalf("entries %d to %d: %q: want each entry followed by a newline", start, end, body)
	}
	lines := bytes.SplitAfter(body, []byte("\n"))
	lines = lines[:len(lines)-1]
	if uint64(len(lines)) != end-start {
		t.Fatalf("entries %d to %d: %d lines", start, end, len(lines))
	}
	stored, err := s.db.JournalEntries(t.Context(), int64(start), int64(end))
	if err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		lines[i] = bytes.TrimSuffix(lines[i], []byte("\n"))
		if !bytes.Equal(lines[i], stored[i]) {
			t.Fatalf("entry %d is served as\n%s\nthe store holds\n%s", start+uint64(i), lines[i], stored[i])
		}
	}
	return lines
}

// rootOf is the RFC 6962 root of entries, computed with transparency-dev/merkle.
func rootOf(t testing.TB, entries [][]byte) []byte {
	t.Helper()
	h := rfc6962.DefaultHasher
	r := (&compact.RangeFactory{Hash: h.HashChildren}).NewEmptyRange(0)
	for _, e := range entries {
		if err := r.Append(h.HashLeaf(e), nil); err != nil {
			t.Fatal(err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pathJSON is the answer of /journal/proof and /journal/consistency.
type pathJSON struct {
	Index, Size, Old, New uint64
	Path                  []string
}

func unhexPath(t testing.TB, hs []string) [][]byte {
	t.Helper()
	out := make([][]byte, len(hs))
	for i, h := range hs {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			t.Fatalf("the path's hash %q is not 64 hex digits", h)
		}
		out[i] = b
	}
	return out
}

// proveEntry checks entry index's inclusion proof in the tree of a checkpoint.
func (s *testServer) proveEntry(t testing.TB, index uint64, entry []byte, c signed) {
	t.Helper()
	var p pathJSON
	if err := json.Unmarshal(s.mustGet(t, fmt.Sprintf("/api/v1/journal/proof?index=%d&size=%d", index, c.cp.Size), "application/json", immutable), &p); err != nil {
		t.Fatal(err)
	}
	if p.Index != index || p.Size != c.cp.Size {
		t.Fatalf("the proof of %d in %d says index %d, size %d", index, c.cp.Size, p.Index, p.Size)
	}
	h := rfc6962.DefaultHasher
	if err := proof.VerifyInclusion(h, index, c.cp.Size, h.HashLeaf(entry), unhexPath(t, p.Path), c.cp.Hash); err != nil {
		t.Fatalf("entry %d in the tree of %d: %v", index, c.cp.Size, err)
	}
}

// consistent checks the consistency proof between two checkpoints.
func (s *testServer) consistent(t testing.TB, old, new signed) {
	t.Helper()
	var p pathJSON
	if err := json.Unmarshal(s.mustGet(t, fmt.Sprintf("/api/v1/journal/consistency?old=%d&new=%d", old.cp.Size, new.cp.Size), "application/json", immutable), &p); err != nil {
		t.Fatal(err)
	}
	if p.Old != old.cp.Size || p.New != new.cp.Size || p.Path == nil {
		t.Fatalf("the consistency of %d and %d says %+v", old.cp.Size, new.cp.Size, p)
	}
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, old.cp.Size, new.cp.Size, unhexPath(t, p.Path), old.cp.Hash, new.cp.Hash); err != nil {
		t.Fatalf("the checkpoints of %d and %d are not consistent: %v", old.cp.Size, new.cp.Size, err)
	}
}

// step does one round of the journal's work, as the server's loop does every 500 ms.
func (s *testServer) step(t testing.TB) {
	t.Helper()
	if err := s.app.StepJournal(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// sign moves the server's clock on by a second, so that a checkpoint is due, and steps: the
// latest checkpoint then covers every entry. (In wallet mode the server's own loop runs too.)
func (s *testServer) sign(t testing.TB) {
	t.Helper()
	s.clock.Advance(time.Second)
	s.step(t)
}

// journalJSON is a game's proof's journal part.
type journalJSON struct {
	Index      uint64   `json:"index"`
	Entry      string   `json:"entry"`
	Checkpoint string   `json:"checkpoint"`
	Path       []string `json:"path"`
}

// gameProof is a game's proof, as GET /api/v1/games/{id}/proof gives it.
type gameProof struct {
	Emission string       `json:"emission"`
	Block    int          `json:"block"`
	Index    int          `json:"index"`
	Line     string       `json:"line"`
	Journal  *journalJSON `json:"journal"`
}

// saleEntry is what a sale entry names.
type saleEntry struct {
	Seq      uint64 `json:"seq"`
	Kind     string `json:"kind"`
	Game     int64  `json:"game"`
	Stake    int64  `json:"stake"`
	Prize    int64  `json:"prize"`
	Emission string `json:"emission"`
	Block    int    `json:"block"`
	Index    int    `json:"index"`
	Unit     string `json:"unit"`
}

// checkGameProof checks a finished game's proof in the journal as a player's client would:
// the entry in the checkpoint's tree, the checkpoint signed with the published key, and the
// entry naming the unit's leaf, the game, its stake and its prize. It returns the proof.
func (s *testServer) checkGameProof(t testing.TB, c *client, g gameJSON) gameProof {
	t.Helper()
	var p gameProof
	c.must(200, &p, "GET", fmt.Sprintf("/api/v1/games/%d/proof", g.ID), nil, "")
	if p.Journal == nil {
		t.Fatalf("game %d: the proof has no journal part", g.ID)
	}
	cp := openSigned(t, s.verifier(t), []byte(p.Journal.Checkpoint))
	h := rfc6962.DefaultHasher
	if err := proof.VerifyInclusion(h, p.Journal.Index, cp.cp.Size, h.HashLeaf([]byte(p.Journal.Entry)), unhexPath(t, p.Journal.Path), cp.cp.Hash); err != nil {
		t.Fatalf("game %d: its entry %d in the checkpoint of %d: %v", g.ID, p.Journal.Index, cp.cp.Size, err)
	}
	var e saleEntry
	if err := json.Unmarshal([]byte(p.Journal.Entry), &e); err != nil {
		t.Fatal(err)
	}
	leaf := h.HashLeaf([]byte(p.Line))
	want := saleEntry{Seq: p.Journal.Index, Kind: "sale", Game: g.ID, Stake: g.Stake, Prize: g.Prize, Emission: p.Emission,
		Block: p.Block, Index: p.Index, Unit: hex.EncodeToString(leaf)}
	if e != want {
		t.Fatalf("game %d: the sale entry names %+v, want %+v", g.ID, e, want)
	}
	return p
}

// play plays n auto games at 1 €.
func (c *client) play(n int) []gameJSON {
	c.t.Helper()
	out := make([]gameJSON, n)
	for i := range out {
		c.must(201, &out[i], "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	return out
}

// Every call of the journal, with no session: its bytes, its proofs checked with the libraries,
// the checkpoints signed with the published key and consistent along the way, its cache
// headers; a game's proof carries its sale once a checkpoint covers it, and it verifies.
func TestJournalCalls(t *testing.T) {
	s := newTestServer(t, 1)
	if s.wallet == nil {
		// In wallet mode the server's loop signs the first checkpoint at once: the emission's
		// entry is there.
		if status, _, body := s.get(t, "/api/v1/journal/checkpoint"); status != 404 || !strings.Contains(string(body), `"not_found"`) {
			t.Fatalf("the checkpoint before the first: %d %s", status, body)
		}
		if status, _, _ := s.get(t, "/api/v1/journal/entries?start=0&end=0"); status != 404 {
			t.Fatalf("entries before the first checkpoint: %d", status)
		}
	}
	s.verifier(t)

	c := s.client(t)
	c.signUp("jade", 10_000)
	games := c.play(6)
	s.sign(t)
	first := s.checkpoint(t)
	st, err := s.db.JournalState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if first.cp.Size != uint64(st.Size) || st.Hashed != st.Size || first.cp.Origin != s.key.Origin {
		t.Fatalf("the checkpoint %+v, the journal %+v", first.cp, st)
	}
	entries := s.entries(t, 0, first.cp.Size)
	if !bytes.Equal(rootOf(t, entries), first.cp.Hash) {
		t.Fatal("the checkpoint's root is not the root of the entries served")
	}
	for i, e := range entries {
		s.proveEntry(t, uint64(i), e, first)
		if bytes.Contains(e, []byte("jade")) {
			t.Errorf("entry %d names the player: %s", i, e)
		}
	}
	if got := s.entries(t, 1, 3); !bytes.Equal(bytes.Join(got, nil), bytes.Join(entries[1:3], nil)) {
		t.Error("entries 1 to 3 differ from those read with the rest")
	}
	s.entries(t, first.cp.Size, first.cp.Size)

	// Each sale entry is the bytes journal.Encode makes of its game, and its proof carries it.
	for _, g := range games {
		p := s.checkGameProof(t, c, g)
		lg, err := s.db.GameByID(t.Context(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := s.db.PlayerByID(t.Context(), lg.PlayerID)
		if err != nil {
			t.Fatal(err)
		}
		want := journal.Encode(p.Journal.Index, lg.CreatedAt, journal.Sale{Game: g.ID, AccountID: pl.AccountID, Stake: lg.Stake,
			Prize: lg.Prize, Emission: lg.Emission, Block: lg.Block, Index: lg.Unit, Unit: journal.Leaf([]byte(p.Line)),
			Mode: lg.Mode, Transfer: lg.StakeTransfer}, storetest.AccountKey)
		if p.Journal.Entry != string(want) || !bytes.Equal(entries[p.Journal.Index], want) {
			t.Errorf("game %d: the sale entry\n%s\nwant, from journal.Encode\n%s", g.ID, p.Journal.Entry, want)
		}
	}

	// A game sold since: its proof waits for the next checkpoint, which the clock holds back
	// for a second.
	later := c.play(3)
	var raw map[string]json.RawMessage
	c.must(200, &raw, "GET", fmt.Sprintf("/api/v1/games/%d/proof", later[2].ID), nil, "")
	if _, ok := raw["journal"]; ok {
		t.Fatalf("a game sold after the latest checkpoint has a journal part: %s", raw["journal"])
	}
	s.step(t)
	if again := s.checkpoint(t); !bytes.Equal(again.text, first.text) {
		t.Fatal("a checkpoint was signed less than a second after the last")
	}
	s.sign(t)
	second := s.checkpoint(t)
	if second.cp.Size <= first.cp.Size {
		t.Fatalf("the second checkpoint is of %d entries, the first of %d", second.cp.Size, first.cp.Size)
	}
	s.checkGameProof(t, c, later[2])
	s.consistent(t, first, second)
	s.consistent(t, second, second)
	all := s.entries(t, 0, second.cp.Size)
	if !bytes.Equal(bytes.Join(all[:first.cp.Size], nil), bytes.Join(entries, nil)) || !bytes.Equal(rootOf(t, all), second.cp.Hash) {
		t.Fatal("the entries of the first checkpoint changed, or the second's root is not theirs")
	}
	for old := uint64(1); old < second.cp.Size; old++ {
		var p pathJSON
		json.Unmarshal(s.mustGet(t, fmt.Sprintf("/api/v1/journal/consistency?old=%d&new=%d", old, second.cp.Size), "application/json", immutable), &p)
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, old, second.cp.Size, unhexPath(t, p.Path), rootOf(t, all[:old]), second.cp.Hash); err != nil {
			t.Errorf("the consistency of %d and %d: %v", old, second.cp.Size, err)
		}
	}

	// The metrics: the journal's size, the tree's, the checkpoint's and its age, on the server's
	// clock.
	s.clock.Advance(3 * time.Second)
	for name, want := range map[string]float64{"starcolor_journal_entries": float64(second.cp.Size), "starcolor_journal_integrated_entries": float64(second.cp.Size),
		"starcolor_journal_checkpoint_entries": float64(second.cp.Size)} {
		if got := s.metric(t, name); got != want {
			t.Errorf("%s is %v, want %v", name, got, want)
		}
	}
	// PostgreSQL keeps the signing time to the microsecond.
	if age := s.metric(t, "starcolor_journal_checkpoint_age_seconds"); age < 3 || age > 3.001 {
		t.Errorf("starcolor_journal_checkpoint_age_seconds is %v, want 3", age)
	}
}

// Malformed parameters are 400, sizes beyond the latest checkpoint 404, each with the API's error
// body; and nothing else is served.
func TestJournalRefusals(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("leon", 1000)
	c.play(2)
	s.sign(t)
	n := s.checkpoint(t).cp.Size
	for _, r := range []struct {
		path   string
		status int
		code   string
	}{
		{"/api/v1/journal/entries?start=-1&end=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=%2B0&end=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=1e0", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=0x1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=%200&end=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=99999999999999999999", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0", 400, "invalid_input"},
		{"/api/v1/journal/entries?end=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=1&limit=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&start=0&end=1", 400, "invalid_request"},
		{"/api/v1/journal/entries?start=2&end=1", 400, "invalid_input"},
		{"/api/v1/journal/entries?start=0&end=1001", 400, "invalid_input"},
		{fmt.Sprintf("/api/v1/journal/entries?start=0&end=%d", n+1), 404, "not_found"},
		{fmt.Sprintf("/api/v1/journal/entries?start=%d&end=%d", n+1, n+1), 404, "not_found"},
		{fmt.Sprintf("/api/v1/journal/proof?index=%d&size=%d", n, n), 400, "invalid_input"},
		{"/api/v1/journal/proof?index=0&size=0", 400, "invalid_input"},
		{"/api/v1/journal/proof?index=0", 400, "invalid_input"},
		{"/api/v1/journal/proof?index=a&size=1", 400, "invalid_input"},
		{fmt.Sprintf("/api/v1/journal/proof?index=0&size=%d", n+1), 404, "not_found"},
		{"/api/v1/journal/consistency?old=0&new=1", 400, "invalid_input"},
		{"/api/v1/journal/consistency?old=2&new=1", 400, "invalid_input"},
		{"/api/v1/journal/consistency?old=1&new=-1", 400, "invalid_input"},
		{"/api/v1/journal/consistency?new=1", 400, "invalid_input"},
		{fmt.Sprintf("/api/v1/journal/consistency?old=1&new=%d", n+1), 404, "not_found"},
		{"/api/v1/journal/checkpoint?size=1", 400, "invalid_input"},
		{"/api/v1/journal/key?x", 400, "invalid_input"},
	} {
		status, h, body := s.get(t, r.path)
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(body, &e); status != r.status || err != nil || e.Error.Code != r.code || e.Error.Message == "" ||
			h.Get("Content-Type") != "application/json" || h.Get("Cache-Control") != noStore {
			t.Errorf("GET %s: %d %q %s, want %d %s", r.path, status, h.Get("Cache-Control"), body, r.status, r.code)
		}
	}
	for _, method := range []string{"POST", "PUT", "DELETE"} {
		if status, _ := c.call(method, "/api/v1/journal/checkpoint", nil, ""); status != 405 {
			t.Errorf("%s /api/v1/journal/checkpoint: %d, want 405", method, status)
		}
	}
}

// A server whose key is not the journal's does not start: it could never sign the journal, and
// its games' proofs would wait for ever. Without a key none starts; with the journal's, it does.
func TestJournalRefusesAnotherKey(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("noor", 1000)
	c.play(1)
	s.sign(t)
	other, err := journal.CreateKey(filepath.Join(t.TempDir(), "other.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.New(t.Context(), s.db, app.Config{Journal: other})
	if !errors.Is(err, journal.ErrOtherKey) || !strings.Contains(err.Error(), other.VerifierKey) || !strings.Contains(err.Error(), s.key.VerifierKey) {
		t.Errorf("a server with another key: %v, want journal.ErrOtherKey naming both keys", err)
	}
	if _, err := app.New(t.Context(), s.db, app.Config{}); err == nil {
		t.Error("a server with no journal key started")
	}
	if _, err := app.New(t.Context(), s.db, app.Config{Journal: s.key}); err != nil {
		t.Errorf("a server with the journal's key: %v", err)
	}
}

// Two servers on one PostgreSQL database (one on SQLite) give one journal: sales made on both at
// once, each server's loop under the lock "journal", one checkpoint both serve, consistent with
// one kept along the way, whose root is that of every entry, with every game's proof from either
// server verified.
func TestJournalAcrossServers(t *testing.T) {
	skipInWalletMode(t, "the servers of one wallet are tested in walletsuite_test.go")
	envs := apptest.StartServers(t, apptest.Options{Blocks: 1, Seed: 42, Journal: true}, 2)
	servers := make([]*testServer, len(envs))
	for i, env := range envs {
		servers[i] = &testServer{url: env.URL, db: env.Store, e: env.Emission, app: env.App, key: env.JournalKey}
	}
	// settled waits until the latest checkpoint covers every entry appended so far: the loops
	// sign within about 2 s, and docs/spec/API.md 1.2 allows 10.
	settled := func() signed {
		t.Helper()
		// The entries queued so far appended (a third sequencer beside the servers' loops
		// changes nothing of the order they would give them), then their checkpoint awaited.
		if _, err := servers[0].db.Sequence(t.Context()); err != nil {
			t.Fatal(err)
		}
		st, err := servers[0].db.JournalState(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for {
			if status, _, _ := servers[1].get(t, "/api/v1/journal/checkpoint"); status == 200 {
				if c := servers[1].checkpoint(t); c.cp.Size >= uint64(st.Size) {
					return c
				}
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("no checkpoint covers the %d entries 10 s after they were appended", st.Size)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	type sold struct {
		c *client
		g gameJSON
	}
	var mu sync.Mutex
	var all []sold
	var kept signed
	for round := range 2 {
		var wg sync.WaitGroup
		for p := range 4 {
			c := servers[p%2].client(t)
			c.signUp(fmt.Sprintf("r%dp%d", round, p), 2000)
			wg.Go(func() {
				for range 8 {
					var g gameJSON
					status, raw := c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
					if err := json.Unmarshal(raw, &g); status != 201 || err != nil {
						t.Errorf("a sale: %d %s", status, raw)
						return
					}
					mu.Lock()
					all = append(all, sold{c, g})
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		latest := settled()
		if round == 0 {
			kept = latest
			continue
		}
		for _, s := range servers {
			if c := s.checkpoint(t); !bytes.Equal(c.text, latest.text) && c.cp.Size == latest.cp.Size {
				t.Fatal("the servers serve two checkpoints of one size")
			}
		}
		servers[0].consistent(t, kept, latest)
		entries := servers[0].entries(t, 0, latest.cp.Size)
		if !bytes.Equal(rootOf(t, entries), latest.cp.Hash) {
			t.Fatal("the checkpoint's root is not the root of the entries")
		}
		sales := 0
		for i, e := range entries {
			var h struct {
				Seq  uint64
				Kind string
			}
			if err := json.Unmarshal(e, &h); err != nil || h.Seq != uint64(i) {
				t.Fatalf("entry %d: %s", i, e)
			}
			if h.Kind == "sale" {
				sales++
			}
		}
		if sales != len(all) {
			t.Fatalf("the journal holds %d sales, %d games were sold", sales, len(all))
		}
		for _, g := range all {
			// Each game's proof from the server that did not sell it too: the session is good
			// on either.
			for _, s := range servers {
				s.checkGameProof(t, &client{t: t, base: s.url, http: g.c.http, srv: s}, g.g)
			}
		}
	}
}
