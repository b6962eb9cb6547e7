package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// peakRSS reads a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// A storm of concurrent logins does not take the server's memory with it: the password hashes
// at once are bounded (each holds 64 MiB while it runs), the rest wait their turn or are
// refused with 503. Before the bound, 40 logins at once took the server past 2.5 GB; here 500
// (known names, unknown names, right and wrong passwords) must stay within the bound's own
// memory, and each gets an answer: 200, 401, or 503 with Retry-After.
func TestLoginStormMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server, which creates three blocks of 1,000,000 units; skipped with -short")
	}
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("needs Linux's /proc to read a process's peak memory")
	}
	db := filepath.Join(t.TempDir(), "storm.db")
	servableDB(t, db)
	srv := startServer(t, db, "--auth-per-minute", "0")
	p := &player{name: "storm", http: &http.Client{Timeout: time.Minute}, base: srv.url}
	if st, raw, _ := p.call("POST", "/api/v1/players", `{"last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01","username":"storm","password":"storm-password-1"}`, ""); st != 201 {
		t.Fatalf("register: %d %s", st, raw)
	}
	pid := srv.cmd.Process.Pid
	// The peak so far (the emissions' creation) is forgotten: from here, the logins' own.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak memory: %v", err)
	}
	before := peakRSS(t, pid)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 500}, Timeout: 2 * time.Minute}
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := range 500 {
		wg.Go(func() {
			name, pw := "storm", fmt.Sprintf("wrong-%d", i)
			switch i % 3 {
			case 1:
				name = fmt.Sprintf("nobody%d", i)
			case 2:
				pw = "storm-password-1"
			}
			req, _ := http.NewRequest("POST", srv.url+"/api/v1/session", strings.NewReader(fmt.Sprintf(`{"username":%q,"password":%q}`, name, pw)))
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "" {
				t.Error("a 503 without Retry-After")
			}
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	peak := peakRSS(t, pid)
	for st := range statuses {
		if st != 200 && st != 401 && st != 429 && st != 503 {
			t.Errorf("answers %v: want only 200, 401, 429 and 503", statuses)
		}
	}
	// The hashes at once (as passhash.DefaultGate counts them for this machine) of 64 MiB each,
	// four times over for the garbage collector's slack, on top of a quarter GiB.
	slots := int64(max(2, runtime.NumCPU()/2))
	bound := 256<<20 + slots*4*64<<20
	t.Logf("500 concurrent logins: %v; peak resident memory %d MiB (%d MiB before), bound %d MiB", statuses, peak>>20, before>>20, bound>>20)
	if peak > bound {
		t.Fatalf("peak resident memory %d MiB during 500 concurrent logins, more than %d MiB", peak>>20, bound>>20)
	}
}
