package httpapi_test

import (
	"io"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"

	"starcolor/internal/gamedef/gamedeftest"
)

// TestAlertRules loads docs/alerts.yml with Prometheus's own rule parser (every expression is
// valid PromQL, every field one Prometheus knows), then checks that each metric a rule reads is
// one a real server exports, each bucket bound it names one the histogram has, and that the
// table's constants are the table's.
func TestAlertRules(t *testing.T) {
	groups, errs := rulefmt.ParseFile("../../docs/alerts.yml", false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		t.Fatalf("docs/alerts.yml: %v", errs)
	}
	srv := newTestServer(t, 1)
	c := srv.client(t)
	c.signUp("alma", 1000)
	for range 3 {
		c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	// The checkpoint's metrics appear with the first checkpoint the journal signs.
	go srv.app.RunJournal(t.Context())
	var scraped string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(srv.metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if scraped = string(body); strings.Contains(scraped, "starcolor_journal_checkpoint_age_seconds") || time.Now().After(deadline) {
			break
		}
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z_:]+)[{ ]`).FindAllStringSubmatch(scraped, -1) {
		exported[m[1]] = true
	}
	p := parser.NewParser(parser.Options{})
	alerts := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			expr, err := p.ParseExpr(r.Expr)
			if err != nil {
				t.Fatalf("%s: %v", r.Alert, err)
			}
			for _, sel := range parser.ExtractSelectors(expr) {
				for _, m := range sel {
					if m.Name == model.MetricNameLabel && !exported[m.Value] {
						t.Errorf("%s reads %s, which the server does not export", r.Alert, m.Value)
					}
					if m.Name == "le" && !strings.Contains(scraped, `le="`+m.Value+`"`) {
						t.Errorf("%s reads the bucket le=%q, which the histogram does not have", r.Alert, m.Value)
					}
				}
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("%s has no severity or no summary", r.Alert)
			}
		}
	}
	if alerts < 8 {
		t.Errorf("%d alerts, want the 8 the operator's guide names", alerts)
	}
	// The constants the drift compares with, for the 1 € table of the test game.
	table, err := gamedeftest.Mini(t).Table(100)
	if err != nil {
		t.Fatal(err)
	}
	var units, sq float64
	for _, tier := range table.Tiers {
		units += float64(tier.Count)
		sq += float64(tier.Count) * float64(tier.Amount) * float64(tier.Amount)
	}
	mean := float64(table.Payout()) / units
	if got := labelled(t, scraped, "starcolor_table_mean_prize_cents", "100"); math.Abs(got-mean) > 1e-6*mean {
		t.Errorf("the table's mean prize %v, want %v", got, mean)
	}
	if got, want := labelled(t, scraped, "starcolor_table_prize_stddev_cents", "100"), math.Sqrt(sq/units-mean*mean); math.Abs(got-want) > 1e-6*want {
		t.Errorf("the table's standard deviation %v, want %v", got, want)
	}
	if got := labelled(t, scraped, "starcolor_prize_cents_count", "100"); got != 3 {
		t.Errorf("the prizes counted at 1 €: %v, want 3", got)
	}
}

// labelled is the value of a metric's series for a stake in a scrape (NaN: absent).
func labelled(t *testing.T, scraped, name, stake string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\{stake="` + stake + `"\} (\S+)$`).FindStringSubmatch(scraped)
	if m == nil {
		t.Errorf("no %s{stake=%q} in the scrape", name, stake)
		return math.NaN()
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
