// Package fill fills a database with a year of real sales, for measuring what grows with the
// history: ledger check, the rows' bytes, the back office's pages, the sale rate on a full
// database (docs/PERFORMANCE.md).
//
// Every sale goes through the store's own sale path (game.Service.SaleRequest, then Store.Sell,
// the batched writer), without HTTP. So the rows, the totals and the journal's entries are
// exactly those a server writes, and the result passes ledger check. Only the clock is the
// fill's: the sales are spread evenly over a year that ended two days ago. So no sale's answer is
// kept under its key (lottery.SaleRequest.Unkept): a server's sweep of old keys would delete
// each at once, and the database ends as it would with them.
package fill

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"starcolor/internal/app"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// Defaults of a fill.
const (
	DefaultPlayers = 1000
	DefaultHeavy   = 4
	// heavyShare is the percentage of the games the heavy players play between them.
	heavyShare = 40
	// manualEvery makes one game in this many « Jouer »; the server's sweep finishes them, as
	// it finishes a player's abandoned game.
	manualEvery = 50
	// inFlight is the sales waiting for the writer at once: enough for its largest batches.
	inFlight = 2048
	// blocksPerEmission bounds an emission's blocks: a block being built holds its units.
	blocksPerEmission = 4
	// deposits, in cents: a regular player's and a heavy player's, at the start and whenever
	// their balance runs short.
	regularDeposit = 100_000    // 1,000 €
	heavyDeposit   = 10_000_000 // 100,000 €
)

// Config is one fill.
type Config struct {
	Games   int64 // the sales to make
	Players int   // regular players (DefaultPlayers)
	Heavy   int   // very heavy players, who play heavyShare % of the games between them (DefaultHeavy)
	// From and To are the span the sales' times are spread over: the year to two days ago, by
	// default, so that every « Jouer » game is abandoned and every key old enough for the sweeps.
	From, To time.Time
	// Seed chooses who plays each game (0: 1). Colours are drawn as the server draws them.
	Seed uint64
	// Progress is told the sales made so far, now and then; nil for none.
	Progress func(done, total int64)
}

// Result is what a fill made.
type Result struct {
	Games, Manual, Deposits int64
	Players                 int
	Heavy                   []int64 // the heavy players' ids
	Emissions               []string
	Selling                 time.Duration // the sales alone, without the emissions' creation
	Elapsed                 time.Duration
}

// Rate is the sales made per second of selling.
func (r Result) Rate() float64 { return float64(r.Games) / r.Selling.Seconds() }

// Run fills a's store. It creates the emissions the sales need, the players, and then makes the
// sales; the journal is kept as a server keeps it, and the sweeps a server runs are run.
func Run(ctx context.Context, a *app.App, cfg Config) (Result, error) {
	start := time.Now()
	if cfg.Games <= 0 {
		return Result{}, errors.New("fill: no games to make")
	}
	if cfg.Players <= 0 {
		cfg.Players = DefaultPlayers
	}
	if cfg.Heavy <= 0 {
		cfg.Heavy = DefaultHeavy
	}
	if cfg.To.IsZero() {
		cfg.To = time.Now().UTC().Add(-48 * time.Hour)
	}
	if cfg.From.IsZero() {
		cfg.From = cfg.To.AddDate(-1, 0, 0)
	}
	if !cfg.From.Before(cfg.To) {
		return Result{}, fmt.Errorf("fill: the span %s to %s is empty", cfg.From, cfg.To)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	def := a.Game.Config().Definition // the one on sale
	now := time.Now().UTC()
	f := &filler{a: a, cfg: cfg, run: now.Format("20060102150405") + fmt.Sprintf("%03d", now.Nanosecond()/1e6)}
	for _, t := range def.Tables {
		f.prices = append(f.prices, t.Price)
	}
	slices.Sort(f.prices)
	if err := f.emissions(ctx, def); err != nil {
		return Result{}, err
	}
	if err := f.players(ctx); err != nil {
		return Result{}, err
	}
	sold := time.Now()
	if err := f.sell(ctx); err != nil {
		return Result{}, err
	}
	res := Result{Games: f.done.Load(), Manual: f.manual.Load(), Deposits: f.deposits.Load(), Players: len(f.people),
		Emissions: f.made, Selling: time.Since(sold)}
	for _, p := range f.people[cfg.Players:] {
		res.Heavy = append(res.Heavy, p.ID)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

type filler struct {
	a      *app.App
	cfg    Config
	run    string  // names this fill's players and emissions apart from another's
	prices []int64 // increasing
	made   []string
	people []*player // the regular players, then the heavy ones

	done, manual, deposits atomic.Int64
}

// player is a fill's player, with what its deposits stand at.
type player struct {
	game.Player
	heavy bool

	mu       sync.Mutex
	deposits int // made so far: a sale refused for its balance deposits once, however many were
}

// price is the stake of game i: half the games at the lowest, then fewer at each higher stake
// (5, 3, 2 in ten with three stakes).
func (f *filler) price(i int64) int64 {
	if len(f.prices) == 3 {
		return f.prices[[10]int{0, 0, 0, 0, 0, 1, 1, 1, 2, 2}[i%10]]
	}
	return f.prices[i%int64(len(f.prices))]
}

// emissions creates, at each stake, the blocks its sales will take beyond the units left in an
// earlier fill's emissions (on sale since: no operator runs on a filled database), in emissions
// of at most blocksPerEmission blocks.
func (f *filler) emissions(ctx context.Context, def *gamedef.Definition) error {
	counts := map[int64]int64{}
	for i := range int64(10) {
		counts[f.price(i)] += f.cfg.Games / 10
	}
	for i := f.cfg.Games / 10 * 10; i < f.cfg.Games; i++ {
		counts[f.price(i)]++
	}
	open, err := f.a.Store.OpenBlockSales(ctx)
	if err != nil {
		return err
	}
	for _, b := range open {
		if strings.HasPrefix(b.Emission, "fill-") {
			counts[b.Price] -= int64(b.Units - b.Sold)
		}
	}
	per := int64(def.BlockUnits)
	for _, price := range f.prices {
		blocks := int((max(counts[price], 0) + per - 1) / per)
		for k := 0; blocks > 0; k++ {
			n := min(blocks, blocksPerEmission)
			blocks -= n
			id := fmt.Sprintf("fill-%s-%deur-%d", f.run, price/100, k)
			_, err := emission.Create(ctx, store.EmissionWrite(f.a.Store, lottery.ByServer, false), emission.Order{
				ID: id, Definition: def, Price: price, Blocks: n, Seed: emission.NewSeed(), CreatedAt: f.cfg.From})
			if err != nil {
				return fmt.Errorf("fill: creating emission %s: %w", id, err)
			}
			f.made = append(f.made, id)
		}
	}
	return nil
}

// players makes the players, each with limits as high as they go and a first deposit.
func (f *filler) players(ctx context.Context) error {
	hash := f.a.Game.Config().Argon2.Hash("fill-" + f.run) // one hash for all: no one logs in
	n := f.cfg.Players + f.cfg.Heavy
	f.people = make([]*player, n)
	return parallel(ctx, n, 16, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("fill%s%06d", f.run, i)
		p, err := f.a.Store.CreatePlayer(ctx, name, hash, nil, f.cfg.From)
		if err != nil {
			return fmt.Errorf("fill: player %s: %w", name, err)
		}
		high := int64(lottery.MaxLimit)
		if _, err := f.a.Store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &high, Stake: &high}, "server", f.cfg.From); err != nil {
			return err
		}
		pl := &player{Player: game.Player{ID: p.ID, Username: name, AccountID: p.AccountID}, heavy: i >= f.cfg.Players}
		f.people[i] = pl
		return f.deposit(ctx, pl, 0, f.cfg.From)
	})
}

// deposit pays a player's deposit, unless another sale paid one since the caller read seen, the
// count of the player's deposits.
func (f *filler) deposit(ctx context.Context, p *player, seen int, at time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deposits != seen {
		return nil
	}
	amount := int64(regularDeposit)
	if p.heavy {
		amount = heavyDeposit
	}
	if _, err := f.a.Store.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: amount}, at); err != nil {
		return fmt.Errorf("fill: deposit of %s: %w", p.Username, err)
	}
	p.deposits++
	f.deposits.Add(1)
	return nil
}

// who plays game i: a heavy player heavyShare % of the time, else any regular player.
func (f *filler) who(i int64) *player {
	h := splitmix(f.cfg.Seed ^ uint64(i)*0x9e3779b97f4a7c15)
	if int(h%100) < heavyShare {
		return f.people[f.cfg.Players+int(h>>32)%f.cfg.Heavy]
	}
	return f.people[int(h>>32)%f.cfg.Players]
}

// splitmix is SplitMix64's finaliser: who plays is spread evenly, the same for the same seed.
func splitmix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// sell makes the sales, inFlight at a time, while the server's background work runs beside them:
// the journal's sequencer and tree, the finishing of « Jouer » games left, the sweep of old keys.
func (f *filler) sell(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	span := f.cfg.To.Sub(f.cfg.From)
	bg := f.background(ctx)
	err := parallel(ctx, inFlight, inFlight, func(ctx context.Context, _ int) error {
		for {
			i := next.Add(1) - 1
			if i >= f.cfg.Games {
				return nil
			}
			at := f.cfg.From.Add(time.Duration(float64(span) * float64(i) / float64(f.cfg.Games)))
			if err := f.sale(ctx, i, at); err != nil {
				return err
			}
			if d := f.done.Add(1); f.cfg.Progress != nil && d%100_000 == 0 {
				f.cfg.Progress(d, f.cfg.Games)
			}
		}
	})
	cancel()
	if bgErr := bg(); err == nil {
		err = bgErr
	}
	if err != nil {
		return err
	}
	return f.finish(context.WithoutCancel(ctx))
}

// sale makes game i at its time.
func (f *filler) sale(ctx context.Context, i int64, at time.Time) error {
	p := f.who(i)
	mode := lottery.Auto
	if i%manualEvery == manualEvery/3 {
		mode = lottery.Manual
	}
	price := f.price(i)
	body := fmt.Appendf(nil, `{"stake":%d,"mode":%q}`, price, mode)
	req, err := f.a.Game.SaleRequest(p.Player, game.Request{Key: fmt.Sprintf("fill-%s-%d", f.run, i), Call: "POST /api/v1/games", Body: body}, price, mode)
	if err != nil {
		return err
	}
	// Its answer is older than a server keeps any: kept, it would be written only for the
	// sweep of old keys to delete it (a third of the writer's work, on SQLite).
	req.Unkept = true
	for range 3 {
		p.mu.Lock()
		seen := p.deposits
		p.mu.Unlock()
		_, err := f.a.Store.Sell(ctx, req, at)
		if fault.CodeOf(err) == fault.InsufficientFunds {
			if err := f.deposit(ctx, p, seen, at); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("fill: game %d: %w", i, err)
		}
		if mode == lottery.Manual {
			f.manual.Add(1)
		}
		return nil
	}
	return fmt.Errorf("fill: game %d: %s's balance stays short after deposits", i, p.Username)
}

// background runs the server's background work until ctx ends, and returns its wait.
func (f *filler) background(ctx context.Context) func() error {
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	loop := func(every time.Duration, step func(context.Context) error) {
		wg.Go(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				if err := step(ctx); err != nil && ctx.Err() == nil {
					errs <- err
					return
				}
			}
		})
	}
	loop(200*time.Millisecond, f.a.StepJournal)
	loop(time.Second, f.finishGames)
	loop(time.Second, func(ctx context.Context) error { _, err := f.a.Game.ForgetOldKeys(ctx); return err })
	return func() error {
		wg.Wait()
		close(errs)
		return <-errs
	}
}

// finishGames finishes the « Jouer » games left, as the server's sweep does, until none is left.
func (f *filler) finishGames(ctx context.Context) error {
	for {
		n, err := f.a.Game.FinishAbandoned(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
}

// finish does what the background left: the games, the old keys, the journal up to the last sale.
func (f *filler) finish(ctx context.Context) error {
	if err := f.finishGames(ctx); err != nil {
		return err
	}
	if _, err := f.a.Game.ForgetOldKeys(ctx); err != nil {
		return err
	}
	return f.a.StepJournal(ctx)
}

// parallel runs do(0) … do(n-1), at most width at a time, and returns the first error; the
// others then see their context cancelled, and no more start.
func parallel(ctx context.Context, n, width int, do func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(width)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		g.Go(func() error { return do(ctx, i) })
	}
	return g.Wait()
}
