package admin

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"starcolor/internal/lottery"
)

// The sales report to download, for the regulator and for the books: the games sold in each hour
// or day at each price, between two dates, as CSV. Money is in integer cents and the return to
// players is worked out from them in integers, so that the file adds up exactly.

// salesReport is what a request for the CSV asks: by hour or day, from a date until a date, both
// whole UTC days and both included.
type salesReport struct {
	by       lottery.Period
	from, to time.Time // midnights, UTC
}

// maxReportDays bounds a report (ten years): beyond that, the dates are surely a mistake.
const maxReportDays = 3660

func (s *Server) salesReportOf(r *http.Request) (salesReport, error) {
	q := r.URL.Query()
	rep := salesReport{by: lottery.Day}
	switch q.Get("by") {
	case "", "day":
	case "hour":
		rep.by = lottery.Hour
	default:
		return rep, fmt.Errorf("by=%q: hour or day", q.Get("by"))
	}
	today := s.now().UTC().Truncate(24 * time.Hour)
	rep.from, rep.to = today.AddDate(0, 0, -29), today
	for _, d := range []struct {
		name string
		dst  *time.Time
	}{{"from", &rep.from}, {"to", &rep.to}} {
		if v := q.Get(d.name); v != "" {
			t, err := time.Parse(time.DateOnly, v)
			if err != nil || t.Year() < 2000 || t.Year() > 9000 {
				return rep, fmt.Errorf("%s=%q: a date like 2026-11-30", d.name, v)
			}
			*d.dst = t
		}
	}
	if rep.to.Before(rep.from) {
		return rep, fmt.Errorf("from %s is after to %s", rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly))
	}
	if rep.to.Sub(rep.from) > maxReportDays*24*time.Hour {
		return rep, fmt.Errorf("from %s to %s: a report covers at most %d days", rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly), maxReportDays)
	}
	return rep, nil
}

// salesCSV writes the sales report.
func (s *Server) salesCSV(w http.ResponseWriter, r *http.Request) {
	rep, err := s.salesReportOf(r)
	if err != nil {
		s.render(w, r, http.StatusBadRequest, "error", s.t(r, "Bad request"), s.t(r, "The sales report: %s.", err.Error()))
		return
	}
	rows, err := s.db.SalesBetween(r.Context(), rep.by, rep.from, rep.to.AddDate(0, 0, 1))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := fmt.Sprintf("starcolor-sales-by-%s-%s-%s.csv", rep.by, rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly))
	if err := s.record(r.Context(), r, "sales_exported", name); err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	out := csv.NewWriter(w)
	out.Write([]string{"period_start_utc", "price_cents", "games", "stakes_cents", "prizes_cents", "winners", "return_percent"})
	var total lottery.Sales
	for _, row := range rows {
		out.Write(salesRecord(row.Period.Format(time.RFC3339), row))
		total.Add(row)
	}
	out.Write(salesRecord("total", total))
	out.Flush()
}

// salesRecord is one line of the report; a total line has no price.
func salesRecord(period string, s lottery.Sales) []string {
	price := ""
	if s.Price > 0 {
		price = strconv.FormatInt(s.Price, 10)
	}
	return []string{period, price, strconv.FormatInt(s.Units, 10), strconv.FormatInt(s.Stakes, 10),
		strconv.FormatInt(s.Prizes, 10), strconv.FormatInt(s.Winners, 10), percent(s.Prizes, s.Stakes)}
}

// percent is 100·a/b with two decimals, rounded half up, in integers (exact while a stays under
// 4.6·10^14 cents); empty when b is 0.
func percent(a, b int64) string {
	if b <= 0 {
		return ""
	}
	hundredths := (a*10000*2 + b) / (2 * b)
	return fmt.Sprintf("%d.%02d", hundredths/100, hundredths%100)
}
