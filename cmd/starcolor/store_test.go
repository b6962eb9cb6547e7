package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// servable is a database that serve starts on at once: an open emission at each price (one
// block each), made once per run of the tests.
var servable = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "starcolor-serve-")
	if err != nil {
		return "", err
	}
	db := filepath.Join(dir, "servable.db")
	for p := 1; p <= 3; p++ {
		if r := cli("emission", "create", "--db", db, "--id", fmt.Sprintf("S%d", p), "--price", fmt.Sprint(p), "--blocks", "1", "--direct"); r.code != 0 {
			return "", &exitError{r}
		}
	}
	return db, nil
})

// servableDB copies the servable database to path.
func servableDB(t *testing.T, path string) {
	t.Helper()
	if testing.Short() {
		t.Skip("creates three blocks of 1,000,000 units; skipped with -short")
	}
	src, err := servable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// health is the status of GET /healthz.
func health(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A full disk makes writes fail as 503 with Retry-After (not 500), /healthz says so, and once
// there is room again the server sells again by itself. The database is on a small tmpfs of its
// own, filled up by another file.
func TestFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("creates three blocks of 1,000,000 units; skipped with -short")
	}
	dir := t.TempDir()
	src, err := servable()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size() + 16<<20
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small file system for the test (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	db := filepath.Join(dir, "full.db")
	servableDB(t, db)
	srv := startServer(t, db, "--auth-per-minute", "0")
	p := newPlayer(t, srv.url, "fiona")
	if st, raw, _ := p.call("POST", "/api/v1/deposits", `{"amount":10000000}`, "dep"); st != 201 {
		t.Fatalf("deposit: %d %s", st, raw)
	}
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	var refused int
	var retryAfter string
	for i := 0; i < 20_000 && refused == 0; i++ {
		req, _ := http.NewRequest("POST", srv.url+"/api/v1/games", strings.NewReader(`{"stake":100,"mode":"auto"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("full-%d", i))
		resp, err := p.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case 201:
		case 503:
			if !strings.Contains(string(body), `"unavailable"`) {
				t.Fatalf("a sale on a full disk: 503 %s", body)
			}
			refused, retryAfter = i, resp.Header.Get("Retry-After")
		default:
			t.Fatalf("a sale on a full disk: %d %s", resp.StatusCode, body)
		}
	}
	if refused == 0 {
		t.Fatal("20,000 sales on a full disk all went through")
	}
	if retryAfter == "" {
		t.Error("503 without Retry-After")
	}
	if st := health(t, srv.url); st != 503 {
		t.Errorf("/healthz on a full disk: %d, want 503", st)
	}
	os.Remove(filler)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, raw, err := p.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, fmt.Sprintf("after-%d", time.Now().UnixNano()))
		if err != nil {
			t.Fatal(err)
		}
		if st == 201 && health(t, srv.url) == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the disk had room again: a sale %d %s, /healthz %d", st, raw, health(t, srv.url))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d sales, then 503 with Retry-After %s s until there was room again", refused, retryAfter)
}

// newPlayer signs a player up on a server and logs it in.
func newPlayer(t *testing.T, base, name string) *player {
	t.Helper()
	p := &player{name: name}
	p.http, p.base = &http.Client{Timeout: 20 * time.Second}, base
	creds := fmt.Sprintf(`{"username":%q,"password":"pw-%s-secret"}`, name, name)
	if st, raw, err := p.call("POST", "/api/v1/players", signUp(creds), ""); err != nil || st != 201 {
		t.Fatalf("register %s: %d %s %v", name, st, raw, err)
	}
	p.login(t, base)
	if err := p.limitsOff(); err != nil {
		t.Fatal(err)
	}
	return p
}

// fill writes a file until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// A database file that cannot be written (immutable, even for root): the server starts and
// answers what it can read, /healthz says 503, and every write is refused with 503 and
// Retry-After, changing nothing.
func TestReadOnlyStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ro.db")
	servableDB(t, db)
	if out, err := exec.Command("chattr", "+i", db).CombinedOutput(); err != nil {
		t.Skipf("cannot make the file immutable (needs root and a file system that has the flag): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", db).Run() })
	srv := startServer(t, db)
	if st := health(t, srv.url); st != 503 {
		t.Errorf("/healthz on a read-only store: %d, want 503", st)
	}
	resp, err := http.Get(srv.url + "/api/v1/emissions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a read on a read-only store: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", srv.url+"/api/v1/players", strings.NewReader(`{"last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01","username":"rolf","password":"rolf-password"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "read-only") {
		t.Fatalf("a sign-up on a read-only store: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}
