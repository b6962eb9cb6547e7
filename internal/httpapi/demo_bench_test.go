package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/game"
	"starcolor/internal/httpapi"
	"starcolor/internal/lottery"
	"starcolor/internal/throttle"
)

// BenchmarkAutoGame measures what an « Auto » game costs the server, a real one and a demo one.
// Both go through the same handler stack: the whole application's handler, as serve runs it,
// without the network. It measures the game's time and its CPU: the process's, user and system,
// from getrusage, the writer and its commits included. Run it alone on a quiet machine:
//
//	go test ./internal/httpapi -run XXX -bench AutoGame -benchtime 2000x -count 3
//
// (on PostgreSQL too with STARCOLOR_TEST_STORE=postgres and $STARCOLOR_TEST_POSTGRES).
func BenchmarkAutoGame(b *testing.B) {
	if walletSuite {
		b.Skip("the wallet's calls are another cost, measured by the load tool")
	}
	for _, parallel := range []bool{false, true} {
		for _, kind := range []string{"real", "demo"} {
			name := kind
			if parallel {
				name += "/16-at-once"
			}
			b.Run(name, func(b *testing.B) { benchAuto(b, kind == "demo", parallel) })
		}
	}
}

func benchAuto(b *testing.B, demo, parallel bool) {
	env := apptest.Start(b, apptest.Options{Blocks: (b.N + 1 + 999) / 1000, Configure: func(cfg *game.Config) {
		cfg.Demo.Rate, cfg.Demo.MoveRate, cfg.Demo.MaxGames = throttle.Rate{}, throttle.Rate{}, 1<<30
		cfg.Demo.Balance = 1 << 40
	}})
	h := env.App.Handler()
	send := func(method, path, token, body, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		if token != "" {
			req.AddCookie(&http.Cookie{Name: httpapi.CookieName, Value: token})
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	token := ""
	if demo {
		rec := send("POST", "/api/v1/demo", "", "", "")
		token = strings.TrimPrefix(strings.Split(rec.Header().Get("Set-Cookie"), ";")[0], httpapi.CookieName+"=")
	} else {
		ctx := context.Background()
		if _, err := env.App.Game.Register(ctx, game.Registration{Username: "bench", Password: "secret-bench", LastName: "Martin",
			FirstNames: "Jeanne", BirthDate: "1990-01-01"}, "192.0.2.1"); err != nil {
			b.Fatal(err)
		}
		var err error
		if token, _, err = env.App.Game.Login(ctx, "bench", "secret-bench", "192.0.2.1"); err != nil {
			b.Fatal(err)
		}
		send("PUT", "/api/v1/me/limits", token, fmt.Sprintf(`{"deposit_weekly":%d,"stake_weekly":%d}`, lottery.MaxLimit, lottery.MaxLimit), "")
		for i := range int64(b.N+1)*100/game.DefaultConfig.MaxDeposit + 1 {
			if rec := send("POST", "/api/v1/deposits", token, fmt.Sprintf(`{"amount":%d}`, game.DefaultConfig.MaxDeposit), fmt.Sprint("dep-", i)); rec.Code != 201 {
				b.Fatalf("deposit: %d %s", rec.Code, rec.Body)
			}
		}
	}
	var n atomic.Int64
	play := func() {
		if rec := send("POST", "/api/v1/games", token, `{"stake":100,"mode":"auto"}`, fmt.Sprint("g-", n.Add(1))); rec.Code != 201 {
			b.Fatalf("play: %d %s", rec.Code, rec.Body)
		}
	}
	play() // the first reads the emission's first page, the last the writer's statements
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	if parallel {
		b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0))) // 16 requests at once
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				play()
			}
		})
	} else {
		for range b.N {
			play()
		}
	}
	b.StopTimer()
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}
