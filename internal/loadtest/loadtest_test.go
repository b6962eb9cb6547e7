package loadtest

import (
	"context"
	"errors"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func startFake(t *testing.T, stock int64) (*fakeServer, string) {
	t.Helper()
	fs := newFakeServer(stock)
	srv := httptest.NewServer(fs.handler())
	t.Cleanup(srv.Close)
	return fs, srv.URL
}

func run(t *testing.T, cfg Config) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		t.Log("\n" + res.String())
	}
	return res
}

// balances checks the fake server's books against the tool's: what was deposited, staked and
// won is what the accounts hold.
func balances(t *testing.T, fs *fakeServer, res *Result) {
	t.Helper()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var total int64
	for _, u := range fs.users {
		total += u.balance
	}
	if want := res.Deposited - res.Stakes + res.Prizes; total != want {
		t.Errorf("the accounts hold %d cents, the tool counted %d deposited - %d staked + %d won = %d",
			total, res.Deposited, res.Stakes, res.Prizes, want)
	}
	if res.Prizes != fs.prizes || res.Stakes != fs.sold*res.Config.Stake {
		t.Errorf("tool: stakes %d prizes %d; server: %d sold, prizes %d", res.Stakes, res.Prizes, fs.sold, fs.prizes)
	}
}

func clean(t *testing.T, res *Result) {
	t.Helper()
	if res.Violations != 0 || res.ErrorCount() != 0 || res.Interrupted {
		t.Errorf("violations %d %q, errors %d %q, interrupted %v", res.Violations, res.ViolationSamples,
			res.ErrorCount(), res.ErrorSamples, res.Interrupted)
	}
}

func TestLoadtestAutoCounts(t *testing.T) {
	fs, url := startFake(t, -1)
	// A deposit of three stakes makes the players run short: the 402 path is taken.
	res := run(t, Config{BaseURL: url, Players: 8, Duration: 5 * time.Second, MaxPlays: 400, Stake: 100, Deposit: 300})
	clean(t, res)
	if res.Games != 400 || res.Requests[KindGame].OK != 400 {
		t.Errorf("%d games, %d created, want 400", res.Games, res.Requests[KindGame].OK)
	}
	for _, k := range []Kind{KindRegister, KindLogin} {
		if rs := res.Requests[k]; rs.Count != 8 || rs.OK != 8 {
			t.Errorf("%s: %d sent, %d ok, want 8", k, rs.Count, rs.OK)
		}
	}
	if res.Insufficient == 0 || res.Deposits != 8+res.Insufficient || res.Requests[KindGame].Statuses[402] != res.Insufficient {
		t.Errorf("%d refusals 402, %d deposits: each 402 must be followed by one deposit", res.Insufficient, res.Deposits)
	}
	if res.PlayersReady != 8 || res.Requests[KindColor].Count != 0 || res.WholeGame.N != 0 {
		t.Errorf("ready %d, colour requests %d, whole games %d", res.PlayersReady, res.Requests[KindColor].Count, res.WholeGame.N)
	}
	if l := res.Requests[KindGame].Latency; l.N != 400+int(res.Insufficient) || l.P50 <= 0 || l.P50 > l.P90 || l.P90 > l.P99 || l.P99 > l.Max {
		t.Errorf("latency %+v", l)
	}
	if res.PlaysPerSecond <= 0 || res.Elapsed >= 5*time.Second {
		t.Errorf("%.1f plays/s in %s: the budget, not the duration, should end the run", res.PlaysPerSecond, res.Elapsed)
	}
	balances(t, fs, res)
	report := res.String()
	for _, want := range []string{"POST /games", "plays/s", "no violation", "errors: none", "402"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

func TestLoadtestManual(t *testing.T) {
	fs, url := startFake(t, -1)
	res := run(t, Config{BaseURL: url, Players: 4, Duration: 5 * time.Second, MaxPlays: 80, Mode: "manual", Seed: 7})
	clean(t, res)
	if res.Games != 80 || res.WholeGame.N != 80 || res.Requests[KindColor].OK != 80 {
		t.Errorf("%d games, %d whole, %d colours chosen, want 80", res.Games, res.WholeGame.N, res.Requests[KindColor].OK)
	}
	reveals := res.Requests[KindReveal].OK
	if reveals < 80 || reveals > 7*80 || res.Requests[KindFinish].Count != 0 {
		t.Errorf("%d reveals for 80 games, %d finish", reveals, res.Requests[KindFinish].Count)
	}
	fs.mu.Lock()
	cascaded, bad := fs.cascaded, fs.badClicks
	fs.mu.Unlock()
	if cascaded == 0 || bad != 0 {
		t.Errorf("%d stars of the colour revealed by a milky way, %d refused clicks: the test must show cascades and no click on them", cascaded, bad)
	}
	if reveals+cascaded != 7*80 {
		t.Errorf("%d clicks + %d cascaded stars of the colour, want 7 × 80", reveals, cascaded)
	}
	balances(t, fs, res)
	if !strings.Contains(res.String(), "whole manual game") {
		t.Errorf("no whole-game line:\n%s", res)
	}
}

func TestLoadtestDuration(t *testing.T) {
	_, url := startFake(t, -1)
	res := run(t, Config{BaseURL: url, Players: 4, Duration: 300 * time.Millisecond})
	clean(t, res)
	if res.Games == 0 || res.Elapsed < 300*time.Millisecond || res.Elapsed > 2*time.Second {
		t.Errorf("%d games in %s, for a duration of 300ms", res.Games, res.Elapsed)
	}
}

func TestLoadtestWrongBalance(t *testing.T) {
	fs, url := startFake(t, -1)
	fs.wrongBalanceEvery = 10
	res := run(t, Config{BaseURL: url, Players: 2, MaxPlays: 50})
	if res.Violations == 0 || len(res.ViolationSamples) == 0 || !strings.Contains(res.ViolationSamples[0], "balance") {
		t.Fatalf("a wrong balance went unnoticed: %d violations %q", res.Violations, res.ViolationSamples)
	}
	if res.ErrorCount() != 0 || res.Games != 50 {
		t.Errorf("%d errors, %d games", res.ErrorCount(), res.Games)
	}
	if !strings.Contains(res.String(), "CONSISTENCY VIOLATIONS") {
		t.Errorf("the report hides the violations:\n%s", res)
	}
}

func TestLoadtestSoldOut(t *testing.T) {
	for _, mode := range []string{"auto", "manual"} {
		t.Run(mode, func(t *testing.T) {
			fs, url := startFake(t, 30)
			start := time.Now()
			res := run(t, Config{BaseURL: url, Players: 4, Duration: 5 * time.Second, Mode: mode})
			clean(t, res)
			if res.Games != 30 || res.PlayersSoldOut != 4 || res.SoldOut != 4 {
				t.Errorf("%d games, %d players sold out, %d 503 answers; want 30, 4, 4", res.Games, res.PlayersSoldOut, res.SoldOut)
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("sold out after 30 games, yet the run took %s", time.Since(start))
			}
			balances(t, fs, res)
		})
	}
}

func TestLoadtestRefusesNonLoopback(t *testing.T) {
	for _, u := range []string{
		"http://10.0.0.1:80", "http://example.com", "https://example.com:8080/x", "http://192.168.1.1:8080",
		"http://[2001:db8::1]:8080", "http://0.0.0.0:8080", "http://127.0.0.1.nip.io:8080", "http://localhost.example.com",
		"http://[::ffff:10.0.0.1]:80", "http://169.254.169.254/", "ftp://127.0.0.1/", "http://user:pw@127.0.0.1:8080",
		"http://127.0.0.1:8080?x=1", "127.0.0.1:8080", "http://127.0.0.1:0", "http://[fe80::1%25eth0]:80",
	} {
		start := time.Now()
		res, err := Run(context.Background(), Config{BaseURL: u, Players: 1, MaxPlays: 1})
		if err == nil || res != nil {
			t.Errorf("%s was accepted", u)
			continue
		}
		// The refusal reads the URL alone; a connection tried to 10.0.0.1 would hang for
		// longer. The bound leaves room for a busy machine (CI runs packages at once).
		if time.Since(start) > time.Second {
			t.Errorf("%s: refused only after %s", u, time.Since(start))
		}
		if strings.Contains(u, "example.com") || strings.HasPrefix(u, "http://10.") {
			if !errors.Is(err, ErrNotLoopback) {
				t.Errorf("%s: %v, want ErrNotLoopback", u, err)
			}
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://127.1.2.3:9", "http://[::1]:8080/", "http://localhost:8080", "https://LOCALHOST", "http://[::ffff:127.0.0.1]:80"} {
		if err := CheckBaseURL(context.Background(), u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	// The last guard, on every socket.
	for addr, ok := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "10.0.0.1:80": false, "[2001:db8::1]:80": false, "93.184.216.34:443": false} {
		if err := checkLoopbackSocket("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("socket to %s: %v", addr, err)
		}
	}
}

// A redirect is never followed: it could lead anywhere.
func TestLoadtestNoRedirect(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "http://10.0.0.1:80/api/v1/players", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := Run(context.Background(), Config{BaseURL: srv.URL, Players: 1, MaxPlays: 1})
	if err == nil || !strings.Contains(err.Error(), "307") || hits.Load() != 1 {
		t.Errorf("err %v after %d requests", err, hits.Load())
	}
}

func TestLoadtestCancel(t *testing.T) {
	_, url := startFake(t, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{BaseURL: url, Players: 4, Duration: time.Minute, Mode: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second || !res.Interrupted || res.Games == 0 {
		t.Errorf("after %s: interrupted %v, %d games", time.Since(start), res.Interrupted, res.Games)
	}
	if res.Violations != 0 || res.ErrorCount() != 0 {
		t.Errorf("an interruption is neither a violation nor an error: %q %q", res.ViolationSamples, res.ErrorSamples)
	}
	if !strings.Contains(res.String(), "INTERRUPTED") {
		t.Errorf("the report does not say it was interrupted")
	}
}

func TestLoadtestNoServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := Run(context.Background(), Config{BaseURL: url, Players: 2})
	if err == nil || !strings.Contains(err.Error(), "no player could be set up") {
		t.Errorf("err %v", err)
	}
}

func TestLoadtestConfig(t *testing.T) {
	for _, c := range []Config{
		{Duration: 11 * time.Minute}, {Duration: -time.Second}, {Players: -1}, {Players: MaxPlayers + 1},
		{Mode: "turbo"}, {Stake: -5}, {Stake: 300, Deposit: 200}, {MaxPlays: -1}, {UserPrefix: "a b"},
	} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	c, err := Config{}.withDefaults()
	if err != nil || c.BaseURL != DefaultBaseURL || c.Players != 64 || c.Duration != 10*time.Second ||
		c.Stake != 100 || c.Mode != "auto" || c.Deposit != 100000 || c.MaxPlays != 0 {
		t.Errorf("defaults %+v %v", c, err)
	}
}

func TestLoadtestPercentiles(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var d []time.Duration
	for i := 1; i <= 1000; i++ {
		d = append(d, ms(i))
	}
	mrand.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
	l := Summarize(d)
	if l.N != 1000 || l.Min != ms(1) || l.P50 != ms(500) || l.P90 != ms(900) || l.P99 != ms(990) || l.Max != ms(1000) ||
		l.Mean != 500500*time.Microsecond {
		t.Errorf("1..1000 ms: %+v", l)
	}
	ten := []time.Duration{ms(7), ms(1), ms(10), ms(3), ms(2), ms(9), ms(4), ms(8), ms(6), ms(5)}
	if l := Summarize(ten); l.P50 != ms(5) || l.P90 != ms(9) || l.P99 != ms(10) || l.Max != ms(10) {
		t.Errorf("1..10 ms: %+v", l)
	}
	if l := Summarize([]time.Duration{ms(42)}); l.P50 != ms(42) || l.P99 != ms(42) || l.Min != ms(42) {
		t.Errorf("one value: %+v", l)
	}
	skewed := append(make([]time.Duration, 0, 100), ms(100))
	for range 99 {
		skewed = append(skewed, ms(1))
	}
	if l := Summarize(skewed); l.P99 != ms(1) || l.Max != ms(100) {
		t.Errorf("99 × 1 ms and one 100 ms: p99 %s max %s", l.P99, l.Max)
	}
	if (Summarize(nil) != Latency{}) || Percentile(nil, 50) != 0 {
		t.Error("no data")
	}
	if Percentile([]time.Duration{1, 2, 3}, 0) != 1 || Percentile([]time.Duration{1, 2, 3}, 100) != 3 {
		t.Error("p0 and p100 are the extremes")
	}
}

func TestLoadtestLocalhost(t *testing.T) {
	_, u := startFake(t, -1)
	u = strings.Replace(u, "127.0.0.1", "localhost", 1)
	res := run(t, Config{BaseURL: u, Players: 2, MaxPlays: 10})
	clean(t, res)
	if res.Games != 10 {
		t.Errorf("%d games", res.Games)
	}
}

// The report tells the CPU that the play phase cost: the server's, from the process_cpu_seconds_total
// it publishes at /metrics (the fake's is 2 ms a game sold), and the tool's own.
func TestLoadtestCPU(t *testing.T) {
	fs, url := startFake(t, -1)
	fs.metrics = true
	res := run(t, Config{BaseURL: url, Metrics: url, Players: 4, Duration: 5 * time.Second, MaxPlays: 200, Stake: 100, Deposit: 1_000_000})
	clean(t, res)
	if !res.ServerCPUKnown || (res.ServerCPU-400*time.Millisecond).Abs() > time.Microsecond {
		t.Errorf("server CPU %s (known %v), want 400ms for 200 games", res.ServerCPU, res.ServerCPUKnown)
	}
	if res.ToolCPU <= 0 {
		t.Errorf("tool CPU %s", res.ToolCPU)
	}
	if report := res.String(); !strings.Contains(report, "cpu     server 2000 µs a play (") || !strings.Contains(report, "load tool ") {
		t.Errorf("the report's CPU line:\n%s", report)
	}

	_, url = startFake(t, -1) // publishes no metrics
	res = run(t, Config{BaseURL: url, Metrics: url, Players: 2, Duration: 5 * time.Second, MaxPlays: 20})
	if res.ServerCPUKnown || !strings.Contains(res.String(), "server not known") {
		t.Errorf("without /metrics: known %v, report:\n%s", res.ServerCPUKnown, res)
	}
	res = run(t, Config{BaseURL: url, Players: 2, Duration: 5 * time.Second, MaxPlays: 20})
	if res.ServerCPUKnown {
		t.Errorf("without a metrics URL: known %v", res.ServerCPUKnown)
	}
}

func TestParseProcessCPU(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n", 12.5, true},
		{"process_cpu_seconds_total 3\n", 3, true}, // untyped
		{"# TYPE process_cpu_seconds_total gauge\nprocess_cpu_seconds_total 1e-3\n", 0.001, true},
		{"# TYPE go_goroutines gauge\ngo_goroutines 7\n", 0, false},
		{"process_cpu_seconds_total{a=\"1\"} 1\nprocess_cpu_seconds_total{a=\"2\"} 2\n", 0, false},
		{"<html>not metrics</html>", 0, false},
		{"", 0, false},
	} {
		got, err := parseProcessCPU(strings.NewReader(c.in))
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseProcessCPU(f *testing.F) {
	f.Add("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n")
	f.Add("process_cpu_seconds_total{a=\"1\"} NaN\n")
	f.Fuzz(func(t *testing.T, in string) {
		if v, err := parseProcessCPU(strings.NewReader(in)); err != nil && v != 0 {
			t.Errorf("%q: value %v with error %v", in, v, err)
		}
	})
}
