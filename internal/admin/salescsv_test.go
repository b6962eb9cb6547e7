package admin_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The sales report adds up. Each day's (or hour's) line holds the games the player API sold then,
// the total line holds their sum, and the return is worked out from the cents. Bad dates are
// refused and leave no trace in the log; a download does.
func TestSalesReport(t *testing.T) {
	e := newEnv(t, 1)
	day1 := e.clock.Now().UTC()
	p := e.player(t, "rita", 100_000, 30)
	e.clock.Advance(25 * time.Hour)
	day2 := e.clock.Now().UTC()
	p.api(200, "POST", "/api/v1/session", map[string]any{"username": "rita", "password": "secret-rita"}) // a day later: a new session
	for range 20 {
		p.api(201, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	}
	// What the player was sold, day by day and hour by hour, from the API's history.
	byDay, byHour := map[string]*sums{}, map[string]*sums{}
	var all sums
	history := p.api(200, "GET", "/api/v1/games?limit=100", nil)["games"].([]any)
	if len(history) != 50 {
		t.Fatalf("%d games in the history, want 50", len(history))
	}
	for _, g := range history {
		g := g.(map[string]any)
		at, err := time.Parse(time.RFC3339, g["created_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*sums{day(byDay, at.Format(time.DateOnly)+"T00:00:00Z"), day(byHour, at.Truncate(time.Hour).Format(time.RFC3339)), &all} {
			s.add(g)
		}
	}

	c := e.client(t)
	c.login(opName, opPassword)
	for _, by := range []string{"day", "hour"} {
		want := byDay
		if by == "hour" {
			want = byHour
		}
		resp, body := c.do("GET", "/admin/sales.csv?format=en&by="+by+"&from="+day1.Format(time.DateOnly)+"&to="+day2.Format(time.DateOnly), nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "starcolor-sales-by-"+by+"-") {
			t.Fatalf("by %s: %d %v", by, resp.StatusCode, resp.Header)
		}
		records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(records[0], ",") != "period_start_utc,price_cents,games,stakes_cents,prizes_cents,winners,return_percent" {
			t.Fatalf("header %q", records[0])
		}
		if len(records) != len(want)+2 {
			t.Fatalf("by %s: %d lines, want %d periods and a total:\n%s", by, len(records)-2, len(want), body)
		}
		for _, r := range records[1 : len(records)-1] {
			s := want[r[0]]
			if s == nil || r[1] != "100" || r[2] != itoa(s.games) || r[3] != itoa(s.stakes) || r[4] != itoa(s.prizes) || r[5] != itoa(s.winners) {
				t.Errorf("by %s: line %q, the API sold %+v then", by, r, s)
			}
		}
		// The English format is the one the report always had, byte for byte: no byte-order
		// mark, commas, LF line ends, nothing quoted.
		var lines []string
		for _, r := range records {
			lines = append(lines, strings.Join(r, ","))
		}
		if want := strings.Join(lines, "\n") + "\n"; body != want || strings.ContainsAny(body, "\"\r\ufeff") {
			t.Errorf("by %s: the English CSV is not the one it was:\n%q\nwant\n%q", by, body, want)
		}
		total := records[len(records)-1]
		if total[0] != "total" || total[1] != "" || total[2] != "50" || total[3] != "5000" || total[4] != itoa(all.prizes) || total[5] != itoa(all.winners) {
			t.Errorf("by %s: total %q, want 50 games, 5000 cents, prizes %d", by, total, all.prizes)
		}
	}
	// Only day 2: the first day's games are left out.
	_, body := c.do("GET", "/admin/sales.csv?format=en&from="+day2.Format(time.DateOnly)+"&to="+day2.Format(time.DateOnly), nil)
	if !strings.Contains(body, "\ntotal,,20,2000,") {
		t.Errorf("day 2 alone:\n%s", body)
	}

	logged := len(e.actions(t))
	for _, q := range []string{"format=xls", "by=week", "from=2026-13-01", "to=yesterday", "from=2026-11-30&to=2026-11-01", "from=2000-01-01&to=2026-01-01", "from=9999-12-01&to=9999-12-31", "from=1999-12-31"} {
		resp, body := c.do("GET", "/admin/sales.csv?"+q, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "The sales report: ") {
			t.Errorf("%s: %d, want 400 with the reason", q, resp.StatusCode)
		}
	}
	actions := e.actions(t)
	if len(actions) != logged || actions[logged-1] != "alice sales_exported" {
		t.Errorf("log %q: want the downloads logged, the refusals not", actions)
	}
	frenchReport(t, e, history, day1, day2)
	if actions := e.actions(t); len(actions) != logged+3 || actions[logged+2] != "alice sales_exported" {
		t.Errorf("log %q: want the downloads logged, the refusals not", actions)
	}
}

// frenchReport checks the default report, made for a French spreadsheet: a byte-order mark, ';',
// French headers, Paris days and hours with their zone, and euros with a decimal comma. Its sums
// are those of the API's history gathered by Paris day. An operator who reads English gets the
// same file as one who reads French: the file is French either way.
func frenchReport(t *testing.T, e *env, history []any, day1, day2 time.Time) {
	t.Helper()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*sums{}
	var all sums
	for _, g := range history {
		g := g.(map[string]any)
		at, _ := time.Parse(time.RFC3339, g["created_at"].(string))
		for _, s := range []*sums{day(want, at.In(paris).Format("02/01/2006")), &all} {
			s.add(g)
		}
	}
	c := e.frenchClient(t)
	c.login(opName, opPassword)
	from, to := day1.In(paris).Format(time.DateOnly), day2.In(paris).Format(time.DateOnly)
	resp, body := c.do("GET", "/admin/sales.csv?from="+from+"&to="+to, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename="starcolor-ventes-par-jour-`+from+"-"+to+`.csv"` {
		t.Fatalf("the French report: %d %v", resp.StatusCode, resp.Header)
	}
	if !strings.HasPrefix(body, "\ufeff") || !strings.Contains(body, "\r\n") {
		t.Fatalf("the French report has no byte-order mark or no CRLF: %q", body[:min(len(body), 80)])
	}
	cr := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff")))
	cr.Comma = ';'
	records, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records[0], "|"); got != "Jour (heure de Paris)|Fuseau|Mise (€)|Parties|Mises (€)|Lots (€)|Parties gagnantes|Taux de retour (%)" {
		t.Fatalf("French headers %q", got)
	}
	if len(records) != len(want)+2 {
		t.Fatalf("%d days, want %d and a total:\n%s", len(records)-2, len(want), body)
	}
	for _, r := range records[1 : len(records)-1] {
		s := want[r[0]]
		if s == nil || (r[1] != "CET" && r[1] != "CEST") || r[2] != "1,00" || r[3] != itoa(s.games) || r[4] != eurosOf(s.stakes) || r[5] != eurosOf(s.prizes) || r[6] != itoa(s.winners) {
			t.Errorf("the line %q, the API sold %+v that Paris day", r, s)
		}
	}
	total := records[len(records)-1]
	rtp := float64(all.prizes) / float64(all.stakes) * 100
	if total[0] != "Total" || total[2] != "" || total[3] != "50" || total[4] != "50,00" || total[5] != eurosOf(all.prizes) ||
		total[7] != strings.Replace(strconv.FormatFloat(rtp, 'f', 2, 64), ".", ",", 1) {
		t.Errorf("the total %q, want 50 games, 50,00 €, prizes %d cents, return %.2f", total, all.prizes, rtp)
	}
	// By hour: each line an hour of Paris with its zone.
	_, body = c.do("GET", "/admin/sales.csv?by=hour&from="+from+"&to="+to, nil)
	cr = csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff")))
	cr.Comma = ';'
	records, err = cr.ReadAll()
	if err != nil || records[0][0] != "Heure (heure de Paris)" {
		t.Fatalf("by hour: %v %q", err, body)
	}
	for _, r := range records[1 : len(records)-1] {
		if _, err := time.ParseInLocation("02/01/2006 15:04", r[0], paris); err != nil {
			t.Errorf("an hour %q: %v", r[0], err)
		}
	}
}

// eurosOf writes cents as the French report does.
func eurosOf(cents int64) string { return fmt.Sprintf("%d,%02d", cents/100, cents%100) }

// sums are games sold, added up.
type sums struct{ games, stakes, prizes, winners int64 }

// add adds a game of the API's history.
func (s *sums) add(g map[string]any) {
	prize := int64(g["prize"].(float64))
	s.games++
	s.stakes += int64(g["stake"].(float64))
	s.prizes += prize
	if prize > 0 {
		s.winners++
	}
}

// day is the sums under k, made on first use.
func day(m map[string]*sums, k string) *sums {
	if m[k] == nil {
		m[k] = &sums{}
	}
	return m[k]
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
