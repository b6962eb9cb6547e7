package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"starcolor/internal/fakewallet/fakewallettest"
	"starcolor/internal/wallet"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fakewallettest.Remove()
	os.Exit(code)
}

// TestFakewallet runs the fake wallet as a real process, built as integrators build it: signed
// calls, a fault, a clean stop, then its books and its listing read from its file.
func TestFakewallet(t *testing.T) {
	w := fakewallettest.Start(t, []byte("s3cret shared"), "--initial-balance", "5000")
	base, secret, db, cmd := w.URL, w.Secret, w.DB, w.Cmd

	key := wallet.NewKey(secret)
	// call sends a call stamped at, signed (sig "": its own signature).
	call := func(path, body, sig string, at time.Time) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		key.Stamp(req, []byte(body), at)
		if sig != "" {
			req.Header.Set(wallet.SignatureHeader, sig)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if !key.CheckAnswer(req, res.Header, b) {
			t.Errorf("%s: an answer not signed for its request: %s", path, b)
		}
		return res.StatusCode, string(b)
	}
	// The stale and early stamps are a minute beyond the window, not a second: this process and
	// the wallet's each read the machine's wall clock, which can be stepped between the two
	// readings. The exact bounds (300 s good, 301 s refused) are proved on a pinned clock, by
	// wallet's TestVerifyRequest and fakewallet's TestSignatures.
	now := time.Now()
	for _, c := range []struct {
		path, body, sig string
		at              time.Time
		status          int
		answer          string
	}{
		{"/debit", `{"transaction_id":"d1","player":"ann","operator_session":"s","round_id":"1","amount":1200,"currency":"EUR"}`, "", now, 200, `{"balance":3800,"transaction_id":"d1"}`},
		{"/debit", `{"transaction_id":"d2","player":"ann","operator_session":"s","round_id":"2","amount":100,"currency":"EUR"}`, strings.Repeat("ab", 32), now, 401, "bad_signature"},
		{"/debit", `{"transaction_id":"d2","player":"ann","operator_session":"s","round_id":"2","amount":100,"currency":"EUR"}`, "", now.Add(-wallet.Window - time.Minute), 401, "bad_signature"},
		{"/debit", `{"transaction_id":"d2","player":"ann","operator_session":"s","round_id":"2","amount":100,"currency":"EUR"}`, "", now.Add(wallet.Window + time.Minute), 401, "bad_signature"},
		{"/debit", `{"transaction_id":"d3","player":"ann","operator_session":"s","round_id":"3","amount":9000,"currency":"EUR"}`, "", now, 402, "insufficient_funds"},
		{"/credit", `{"transaction_id":"c1","player":"ann","round_id":"1","amount":300,"currency":"EUR","debit_transaction_id":"d1"}`, "", now, 200, `{"balance":4100,"transaction_id":"c1"}`},
		{"/rollback", `{"transaction_id":"r4","player":"bob","round_id":"4","rolled_back_transaction_id":"d4"}`, "", now, 200, `{"balance":5000,"transaction_id":"r4"}`},
		{"/debit", `{"transaction_id":"d4","player":"bob","operator_session":"s","round_id":"4","amount":100,"currency":"EUR"}`, "", now, 409, "duplicate_transaction"},
		{"/debit", `{"transaction_id":"d5","player":"bob","operator_session":"s","round_id":"5","amount":700,"currency":"EUR"}`, "", now, 200, `{"balance":4300,"transaction_id":"d5"}`},
		{"/rollback", `{"transaction_id":"r5","player":"bob","round_id":"5","rolled_back_transaction_id":"d5"}`, "", now, 200, `{"balance":5000,"transaction_id":"r5"}`},
	} {
		if status, answer := call(c.path, c.body, c.sig, c.at); status != c.status || !strings.Contains(answer, c.answer) {
			t.Errorf("%s %s (stamped %s): %d %s, want %d %s", c.path, c.body, c.at.Sub(now), status, answer, c.status, c.answer)
		}
	}
	// Stopped with SIGTERM, it exits cleanly.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stopped: %v\n%s", err, w.Logs())
	}
	if !strings.Contains(w.Logs(), "transaction_id=d1") {
		t.Errorf("no log line of the calls:\n%s", w.Logs())
	}

	r := fakewallettest.Run(t, "books", "--db", db)
	if r.Code != 0 {
		t.Fatalf("books: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	fields := func(line string) string { return strings.Join(strings.Fields(line), " ") }
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	for i, want := range []string{
		"player initial adjusted debits debited rollbacks given back credits credited staked refused balance",
		"ann 5000 0 1 1200 0 0 1 300 1200 1 4100 ok",
		"bob 5000 0 1 700 2 700 0 0 0 0 5000 ok",
		"total 10000 0 2 1900 2 700 1 300 1200 1 9100 ok",
		"credits whose debit is unknown, refused or rolled back: 0",
	} {
		if i >= len(lines) || fields(lines[i]) != want {
			t.Fatalf("books:\n%s\nline %d, want %q", r.Stdout, i, want)
		}
	}
	r = fakewallettest.Run(t, "transactions", "--db", db, "--after", "1", "--limit", "3")
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var tr struct {
			Seq  int64
			Kind string
			ID   string `json:"transaction_id"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("transactions: %v in %q", err, r.Stdout)
		}
		kinds = append(kinds, tr.Kind+" "+tr.ID)
	}
	if got := strings.Join(kinds, ", "); r.Code != 0 || got != "debit d3, credit c1, rollback r4" {
		t.Fatalf("transactions: exit %d, %s", r.Code, got)
	}
}

// Bad command lines are refused with their reason and change nothing; the help is the command's.
// Each runs the command built as integrators build it.
func TestFakewalletUsage(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	os.WriteFile(secretFile, []byte("s"), 0o600)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{nil, 2, "want --secret-file"},
		{[]string{"--secret-file", secretFile, "--drop", "1.5"}, 2, "probability from 0 to 1"},
		{[]string{"--secret-file", secretFile, "--fail", "NaN"}, 2, "probability from 0 to 1"},
		{[]string{"--secret-file", secretFile, "--initial-balance", "-1"}, 2, "0 or more cents"},
		{[]string{"--secret-file", filepath.Join(dir, "none")}, 1, "starcolor-fakewallet: open " + filepath.Join(dir, "none") + ": no such file"},
		{[]string{"books", "--db", filepath.Join(dir, "none.db")}, 1, "starcolor-fakewallet: no fake wallet's database"},
		{[]string{"transactions", "--db", filepath.Join(dir, "none.db"), "--limit", "-1"}, 2, "Usage: starcolor-fakewallet transactions"},
		{[]string{"-h"}, 0, "Usage: starcolor-fakewallet --secret-file FILE"},
		{[]string{"-h"}, 0, "GET  /transactions?after=SEQ&limit=N"},
		{[]string{"books", "-h"}, 0, "Usage: starcolor-fakewallet books [--db FILE] [--json]"},
	} {
		r := fakewallettest.Run(t, c.args...)
		if r.Code != c.code || !strings.Contains(r.Stderr, c.says) {
			t.Errorf("%v: exit %d, %s", c.args, r.Code, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("books made a database")
	}
}
