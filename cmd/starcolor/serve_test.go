package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// server is a starcolor serve process (the test binary standing in for the real one).
type server struct {
	cmd     *exec.Cmd
	url     string
	metrics string // the base URL of its metrics' own listener
	logs    *syncBuffer
}

func startServer(t *testing.T, db string, args ...string) *server {
	t.Helper()
	srv, err := launch(db, args...)
	if srv != nil {
		t.Cleanup(srv.kill)
	}
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// launch starts a server and waits until it serves; unlike startServer it may run on any
// goroutine. The caller kills it.
func launch(db string, args ...string) (*server, error) {
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "STARCOLOR_TEST_MAIN=1")
	logs := &syncBuffer{}
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &server{cmd: cmd, logs: logs}
	lines := bufio.NewScanner(out)
	ready := make(chan string, 1)
	metrics := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if url, ok := strings.CutPrefix(lines.Text(), "Star Color is served at "); ok {
				ready <- url
			}
			if url, ok := strings.CutPrefix(lines.Text(), "Metrics are served at "); ok {
				metrics <- strings.TrimSuffix(url, "/metrics")
			}
		}
	}()
	select {
	case srv.url = <-ready:
		// Said before the server's own address.
		select {
		case srv.metrics = <-metrics:
		default:
		}
		return srv, nil
	case <-time.After(60 * time.Second):
		return srv, fmt.Errorf("the server did not start: %s", logs)
	}
}

func (s *server) kill() { s.cmd.Process.Kill(); s.cmd.Wait() }

// syncBuffer is a bytes.Buffer a process writes its log to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// limitsOff sets a player's weekly limits as high as they go, out of the way of a test about
// something else (internal/httpapi tests the limits).
func (p *player) limitsOff() error {
	if st, raw, err := p.call("PUT", "/api/v1/me/limits", `{"deposit_weekly":100000000,"stake_weekly":100000000}`, ""); err != nil || st != 200 {
		return fmt.Errorf("set the limits of %s: %d %s %v", p.name, st, raw, err)
	}
	return nil
}

// signUp is a sign-up's body: credentials, as a login sends them, and an adult's identity.
func signUp(creds string) string {
	return `{"last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01",` + creds[1:]
}

// checkAcked finds every game a server acknowledged to a player in the player's history, as
// acknowledged, and finishes the unfinished ones. A colour sent as a server died may have been
// stored without its answer arriving: such a game may be further on than acknowledged.
func checkAcked(t *testing.T, p *player, acked map[int64]ackGame) {
	t.Helper()
	found, err := history(p)
	if err != nil {
		t.Fatal(err)
	}
	for id, g := range acked {
		h, ok := found[id]
		if !ok {
			t.Fatalf("%s: acknowledged game %d is not in the history", p.name, id)
		}
		inFlight := g.Status == "choose_color" && h.Status == "playing"
		if h.Prize != g.Prize || h.Unit != g.Unit || (h.Status != g.Status && !inFlight) || len(h.Events) != len(g.Events) {
			t.Fatalf("%s: game %d was %+v, is %+v", p.name, id, g, h)
		}
		if h.Status != "finished" {
			st, raw, _ := p.call("POST", fmt.Sprintf("/api/v1/games/%d/finish", id), "", "")
			if st != 200 || !strings.Contains(string(raw), `"status":"finished"`) {
				t.Fatalf("%s: finishing game %d: %d %s", p.name, id, st, raw)
			}
		}
	}
}

type player struct {
	name string
	http *http.Client
	base string
	// lastRetryAfter is the Retry-After header of the last answer.
	lastRetryAfter string
}

func (p *player) call(method, path, body, key string) (int, []byte, error) {
	req, _ := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	p.lastRetryAfter = resp.Header.Get("Retry-After")
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// history is every game of a player's history, by id.
func history(p *player) (map[int64]ackGame, error) {
	found := map[int64]ackGame{}
	before := ""
	for {
		st, raw, err := p.call("GET", "/api/v1/games?limit=100"+before, "", "")
		if err != nil || st != 200 {
			return nil, fmt.Errorf("%s: history: %d %s %v", p.name, st, raw, err)
		}
		var list struct{ Games []ackGame }
		json.Unmarshal(raw, &list)
		for _, g := range list.Games {
			found[g.ID] = g
		}
		if len(list.Games) < 100 {
			return found, nil
		}
		before = fmt.Sprintf("&before=%d", list.Games[len(list.Games)-1].ID)
	}
}

func (p *player) login(t *testing.T, base string) {
	jar, _ := cookiejar.New(nil)
	p.http = &http.Client{Jar: jar, Timeout: 20 * time.Second}
	p.base = base
	creds := fmt.Sprintf(`{"username":%q,"password":"pw-%s-secret"}`, p.name, p.name)
	if st, raw, err := p.call("POST", "/api/v1/session", creds, ""); err != nil || st != 200 {
		t.Fatalf("login %s: %d %s %v", p.name, st, raw, err)
	}
}

type ackGame struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Prize  int64  `json:"prize"`
	Events []any  `json:"events"`
	Unit   struct {
		Block, Index int
	} `json:"unit"`
}

// The server killed with SIGKILL in the middle of a load loses nothing it acknowledged: after a
// restart every acknowledged game is in its player's history, unfinished games resume where they
// stopped, no unit is sold twice and the books balance. The batch it died in left no entry of the
// journal without its change, and no change without its entry.
func TestServerKilledUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server, which creates three blocks of 1,000,000 units; skipped with -short")
	}
	t.Parallel() // a long one: see TestMain
	db := filepath.Join(t.TempDir(), "crash.db")
	servableDB(t, db)
	srv := startServer(t, db)
	players := make([]*player, 12)
	for i := range players {
		p := &player{name: fmt.Sprintf("crash%02d", i)}
		jar, _ := cookiejar.New(nil)
		p.http, p.base = &http.Client{Jar: jar, Timeout: 20 * time.Second}, srv.url
		creds := fmt.Sprintf(`{"username":%q,"password":"pw-%s-secret"}`, p.name, p.name)
		if st, raw, _ := p.call("POST", "/api/v1/players", signUp(creds), ""); st != 201 {
			t.Fatalf("register: %d %s", st, raw)
		}
		p.login(t, srv.url)
		if err := p.limitsOff(); err != nil {
			t.Fatal(err)
		}
		if st, raw, _ := p.call("POST", "/api/v1/deposits", `{"amount":1000000}`, "dep-"+p.name); st != 201 {
			t.Fatalf("deposit: %d %s", st, raw)
		}
		players[i] = p
	}
	var mu sync.Mutex
	acked := map[string]map[int64]ackGame{} // by player, the games the server acknowledged
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i, p := range players {
		acked[p.name] = map[int64]ackGame{}
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				mode, body := "auto", `{"stake":100,"mode":"auto"}`
				if (i+n)%5 == 0 {
					mode, body = "manual", `{"stake":200,"mode":"manual"}`
				}
				st, raw, err := p.call("POST", "/api/v1/games", body, fmt.Sprintf("%s-%d", p.name, n))
				if err != nil || st != 201 {
					return // the server is gone
				}
				var g ackGame
				json.Unmarshal(raw, &g)
				if mode == "manual" {
					// Leave it unfinished, a colour chosen.
					if st, raw, err := p.call("POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), `{"color":1}`, ""); err == nil && st == 200 {
						json.Unmarshal(raw, &g)
					}
				}
				mu.Lock()
				acked[p.name][g.ID] = g
				mu.Unlock()
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	srv.cmd.Process.Signal(syscall.SIGKILL)
	srv.cmd.Wait()
	close(stop)
	wg.Wait()

	total := 0
	for _, gs := range acked {
		total += len(gs)
	}
	if total < 50 {
		t.Fatalf("only %d games acknowledged before the kill", total)
	}
	srv = startServer(t, db)
	for _, p := range players {
		p.login(t, srv.url)
		checkAcked(t, p, acked[p.name])
	}
	// A graceful stop, then the books.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("graceful stop: %v\n%s", err, srv.logs)
	}
	t.Logf("%d games acknowledged before SIGKILL, all found after the restart; %s; %s", total, ledgerOK(t, db), journalOK(t, db))
}

// A second server on the same database file stops at once, naming the first; once the first is
// gone, even killed, a server starts again.
func TestOneServerPerDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("creates an emission of 3,000,000 units at start; skipped with -short")
	}
	db := filepath.Join(t.TempDir(), "one.db")
	first := startServer(t, db)
	start := time.Now()
	r := cli("serve", "--db", db, "--addr", "127.0.0.1:0")
	want := fmt.Sprintf("already served by process %d: one server per database file", first.cmd.Process.Pid)
	if r.code != 1 || !strings.Contains(r.stderr, want) || time.Since(start) > 5*time.Second {
		t.Fatalf("a second server: exit %d after %s, %q; want 1 at once and %q", r.code, time.Since(start), r.stderr, want)
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	again := startServer(t, db)
	if res, err := http.Get(again.url + "/healthz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("the server after the first was killed: %v %v", res, err)
	}
}

// The profiler listens on loopback only, and the metrics and the profiler each on a listener of
// their own whose failure stops serve at once, before any store is opened (issue 19).
func TestServeSideListeners(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--debug-addr", "0.0.0.0:6060"}, 2, "not a loopback address"},
		{[]string{"--debug-addr", ":6060"}, 2, "not a loopback address"},
		{[]string{"--debug-addr", "[::]:6060"}, 2, "not a loopback address"},
		{[]string{"--debug-addr", "192.0.2.1:6060"}, 2, "not a loopback address"},
		{[]string{"--debug-addr", "example.com:6060"}, 2, "not a loopback address"},
		{[]string{"--debug-addr", "127.0.0.1"}, 2, "missing port"},
		{[]string{"--debug-addr", taken.Addr().String(), "--metrics-addr", "off"}, 1, "--debug-addr: listen tcp " + taken.Addr().String()},
		{[]string{"--metrics-addr", taken.Addr().String()}, 1, "--metrics-addr: listen tcp " + taken.Addr().String()},
	} {
		db := filepath.Join(t.TempDir(), "never.db")
		start := time.Now()
		r := cli(append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || time.Since(start) > 5*time.Second {
			t.Errorf("serve %v: exit %d after %s, %q; want %d at once and %q", c.args, r.code, time.Since(start), r.stderr, c.code, c.want)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("serve %v created the database", c.args)
		}
	}
}
