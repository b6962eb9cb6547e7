package httpapi

import (
	"context"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// Metrics are the server's Prometheus metrics: sales, stakes and prizes, the units left in open
// blocks, the write batches, and the latency of every route.
type Metrics struct {
	reg      *prometheus.Registry
	sales    *prometheus.CounterVec
	stakes   prometheus.Counter
	prizes   prometheus.Counter
	prize    *prometheus.HistogramVec // each unit's prize, by stake: its sum against the table's
	requests *prometheus.HistogramVec
}

// prizeBuckets are the prize histogram's bounds, in cents: 0.01, 1, 10, 100, 1,000 and 10,000 €.
// An alert on a big win counts the prizes above one of them (docs/alerts.yml).
var prizeBuckets = []float64{1, 100, 1_000, 10_000, 100_000, 1_000_000}

// StoreStats is what the metrics read of a store at each scrape: the open blocks, the write
// batches, the outbox, the journal.
type StoreStats interface {
	store.Emissions
	store.Health
	store.WalletBooks
	JournalStats
}

// JournalStats is what the metrics read of the journal: its size, how much of it the tree
// covers, its latest checkpoint.
type JournalStats interface {
	JournalState(ctx context.Context) (journal.State, error)
	LatestCheckpoint(ctx context.Context) (c journal.Checkpoint, ok bool, err error)
}

// NewMetrics registers the metrics; the open blocks' remaining units and the write batches are
// read from the store at each scrape. now is the server's clock (nil: time.Now), which dates
// the wallet's calls.
func NewMetrics(db StoreStats, now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		sales: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "starcolor_sales_total", Help: "Units sold, by stake in cents."}, []string{"stake"}),
		stakes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "starcolor_stakes_cents_total", Help: "Stakes debited, in cents."}),
		prizes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "starcolor_prizes_cents_total", Help: "Prizes credited, in cents."}),
		prize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "starcolor_prize_cents", Help: "The prize of each unit sold, in cents, by stake in cents.", Buckets: prizeBuckets}, []string{"stake"}),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "starcolor_http_request_duration_seconds", Help: "Latency of HTTP requests, by route and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}, []string{"route", "status"}),
	}
	m.reg.MustRegister(m.sales, m.stakes, m.prizes, m.prize, m.requests,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&dbCollector{db: db, now: now,
			remaining:  prometheus.NewDesc("starcolor_block_remaining_units", "Units left to sell in each open block.", []string{"emission", "block", "price"}, nil),
			blockUnits: prometheus.NewDesc("starcolor_block_units", "Units of each open block.", []string{"emission", "block", "price"}, nil),
			emissionLeft: prometheus.NewDesc("starcolor_emission_remaining_units",
				"Units left to sell in each emission with units left, whatever its status.", []string{"emission", "price", "status"}, nil),
			emissionUnits:  prometheus.NewDesc("starcolor_emission_units", "Units of each emission with units left.", []string{"emission", "price", "status"}, nil),
			batches:        prometheus.NewDesc("starcolor_write_batches_total", "Write transactions committed.", nil, nil),
			walletPending:  prometheus.NewDesc("starcolor_wallet_calls_pending", "Credits and rollbacks owed to the operator's wallet, not yet acknowledged.", nil, nil),
			walletOldest:   prometheus.NewDesc("starcolor_wallet_calls_oldest_age_seconds", "How long the oldest call not yet acknowledged by the wallet has waited (0: none).", nil, nil),
			walletDisputed: prometheus.NewDesc("starcolor_wallet_calls_disputed", "Calls the wallet refused, to settle by hand.", nil, nil),
			walletOpen:     prometheus.NewDesc("starcolor_wallet_rounds_open", "Rounds debited at the operator's wallet whose game is in play: credited when it finishes.", nil, nil),
			ops:            prometheus.NewDesc("starcolor_write_ops_total", "Write operations committed in those transactions.", nil, nil),
			journalSize:    prometheus.NewDesc("starcolor_journal_entries", "Entries appended to the journal.", nil, nil),
			journalHashed:  prometheus.NewDesc("starcolor_journal_integrated_entries", "Entries of the journal its Merkle tree covers.", nil, nil),
			checkpointSize: prometheus.NewDesc("starcolor_journal_checkpoint_entries", "Entries the latest signed checkpoint covers (absent before the first).", nil, nil),
			checkpointAge: prometheus.NewDesc("starcolor_journal_checkpoint_age_seconds",
				"How long ago the latest checkpoint was signed (absent before the first); one is signed every second or so while the journal grows, so an age above 10 s with entries past the checkpoint is a journal that stopped.", nil, nil),
			writer: prometheus.NewDesc("starcolor_writer_seconds_total",
				"Time the writer of batches spent running statements (phase=statements) and committing (phase=commit); the rest it waits for work.", []string{"phase"}, nil),
		})
	return m
}

// watch adds what the service has found wrong with its store: gauges an alert can fire on.
func (m *Metrics) watch(svc *game.Service) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "starcolor_store_problems",
			Help: "Problems found in the store (units that do not match their commitment, a damaged database file); 0 when sound."},
			func() float64 { return float64(len(svc.Problems())) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "starcolor_corrupt_unit_pages",
			Help: "Pages of units (and block commitments) found not to match their commitment: never sold nor paid."},
			func() float64 { return float64(svc.CorruptUnits()) }))
}

// Table adds the prize tables of the game sold, by stake, as constants an alert compares the
// sales with: a unit's mean prize and its standard deviation (over a block's units), and the
// return to players. Over n units sold, the prizes stray from n × the mean by more than
// 4 × the deviation × √n with a chance below 1 in 15,000 (fewer still, drawn without
// replacement from blocks).
func (m *Metrics) Table(def *gamedef.Definition) {
	mean := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "starcolor_table_mean_prize_cents",
		Help: "A unit's mean prize in the game's table, in cents, by stake in cents."}, []string{"stake"})
	sd := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "starcolor_table_prize_stddev_cents",
		Help: "The standard deviation of a unit's prize in the game's table, in cents, by stake in cents."}, []string{"stake"})
	rtp := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "starcolor_table_return_ratio",
		Help: "The return to players of the game's table: its prizes over its stakes, by stake in cents."}, []string{"stake"})
	for _, t := range def.Tables {
		var units, sumSq float64
		for _, tier := range t.Tiers {
			units += float64(tier.Count)
			sumSq += float64(tier.Count) * float64(tier.Amount) * float64(tier.Amount)
		}
		mu := float64(t.Payout()) / units
		stake := strconv.FormatInt(t.Price, 10)
		mean.WithLabelValues(stake).Set(mu)
		sd.WithLabelValues(stake).Set(math.Sqrt(math.Max(0, sumSq/units-mu*mu)))
		rtp.WithLabelValues(stake).Set(mu / float64(t.Price))
	}
	m.reg.MustRegister(mean, sd, rtp)
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

func (m *Metrics) sale(stake, prize int64) {
	m.sales.WithLabelValues(strconv.FormatInt(stake, 10)).Inc()
	m.prize.WithLabelValues(strconv.FormatInt(stake, 10)).Observe(float64(prize))
	m.stakes.Add(float64(stake))
	m.prizes.Add(float64(prize))
}

func (m *Metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

type dbCollector struct {
	db                      StoreStats
	now                     func() time.Time
	remaining, batches, ops *prometheus.Desc
	blockUnits              *prometheus.Desc
	// Each emission with units left: its units, and those left, by its status.
	emissionLeft, emissionUnits *prometheus.Desc
	writer                      *prometheus.Desc
	// The wallet's outbox (docs/spec/WALLET.md): the calls not yet acknowledged, the oldest's age, the
	// disputed ones.
	walletPending, walletOldest, walletDisputed, walletOpen *prometheus.Desc
	// The journal (docs/spec/API.md 1.2): its size, the tree's, the latest checkpoint's and its age.
	journalSize, journalHashed, checkpointSize, checkpointAge *prometheus.Desc
}

func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.remaining
	ch <- c.blockUnits
	ch <- c.emissionLeft
	ch <- c.emissionUnits
	ch <- c.batches
	ch <- c.ops
	ch <- c.writer
	ch <- c.walletPending
	ch <- c.walletOldest
	ch <- c.walletDisputed
	ch <- c.walletOpen
	ch <- c.journalSize
	ch <- c.journalHashed
	ch <- c.checkpointSize
	ch <- c.checkpointAge
}

func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	es, err := c.db.Emissions(ctx)
	statuses, serr := c.db.EmissionStatuses(ctx)
	if err == nil && serr == nil {
		for _, e := range es {
			price := strconv.FormatInt(e.Price, 10)
			for _, b := range e.Blocks {
				if b.Sold < b.Units {
					ch <- prometheus.MustNewConstMetric(c.remaining, prometheus.GaugeValue, float64(b.Units-b.Sold), e.ID, strconv.Itoa(b.Index), price)
					ch <- prometheus.MustNewConstMetric(c.blockUnits, prometheus.GaugeValue, float64(b.Units), e.ID, strconv.Itoa(b.Index), price)
				}
			}
			if left := e.Units() - e.Sold(); left > 0 {
				status := statuses[e.ID]
				if status == "" {
					status = lottery.OnSale
				}
				ch <- prometheus.MustNewConstMetric(c.emissionLeft, prometheus.GaugeValue, float64(left), e.ID, price, status)
				ch <- prometheus.MustNewConstMetric(c.emissionUnits, prometheus.GaugeValue, float64(e.Units()), e.ID, price, status)
			}
		}
	}
	st := c.db.WriteStats()
	ch <- prometheus.MustNewConstMetric(c.batches, prometheus.CounterValue, float64(st.Batches))
	ch <- prometheus.MustNewConstMetric(c.ops, prometheus.CounterValue, float64(st.Ops))
	ch <- prometheus.MustNewConstMetric(c.writer, prometheus.CounterValue, st.Running.Seconds(), "statements")
	ch <- prometheus.MustNewConstMetric(c.writer, prometheus.CounterValue, st.Committing.Seconds(), "commit")
	if o, err := c.db.OutboxState(ctx, c.now()); err == nil {
		age := 0.0
		if !o.Oldest.IsZero() {
			age = time.Since(o.Oldest).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(c.walletPending, prometheus.GaugeValue, float64(o.Pending))
		ch <- prometheus.MustNewConstMetric(c.walletOldest, prometheus.GaugeValue, age)
		ch <- prometheus.MustNewConstMetric(c.walletDisputed, prometheus.GaugeValue, float64(o.Disputed))
		ch <- prometheus.MustNewConstMetric(c.walletOpen, prometheus.GaugeValue, float64(o.Open))
	}
	if st, err := c.db.JournalState(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(c.journalSize, prometheus.GaugeValue, float64(st.Size))
		ch <- prometheus.MustNewConstMetric(c.journalHashed, prometheus.GaugeValue, float64(st.Hashed))
	}
	if cp, ok, err := c.db.LatestCheckpoint(ctx); err == nil && ok {
		ch <- prometheus.MustNewConstMetric(c.checkpointSize, prometheus.GaugeValue, float64(cp.Size))
		// On the server's clock, the one the checkpoint was dated by.
		ch <- prometheus.MustNewConstMetric(c.checkpointAge, prometheus.GaugeValue, c.now().Sub(cp.SignedAt).Seconds())
	}
}
