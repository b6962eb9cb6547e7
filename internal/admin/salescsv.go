package admin

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/lottery"
)

// The sales report to download, for the regulator and for the books: the games sold in each hour
// or day at each price, between two dates, as CSV. Money is in integer cents and the return to
// players is worked out from them in integers, so that the file adds up exactly.

// salesReport is what a request for the CSV asks: by hour or day, from a date until a date, both
// included, and in which form:
//   - "fr" (the default), for a French spreadsheet: Paris days and hours, ';', decimal commas,
//     euros;
//   - "en", as it always was: UTC days and hours, ',', cents.
type salesReport struct {
	by       lottery.Period
	from, to time.Time // midnights, UTC in English, Paris in French
	format   string
}

// maxReportDays bounds a report (ten years): beyond that, the dates are surely a mistake.
const maxReportDays = 3660

// reportProblem is a request for the report that cannot be answered: an error whose text is a
// key of the dictionary, worded in the operator's language at the page.
type reportProblem struct {
	format string
	args   []any
}

func (p reportProblem) Error() string { return fmt.Sprintf(p.format, p.args...) }

func (s *Server) salesReportOf(r *http.Request) (salesReport, error) {
	q := r.URL.Query()
	rep := salesReport{by: lottery.Day, format: "fr"}
	switch q.Get("format") {
	case "", "fr":
	case "en":
		rep.format = "en"
	default:
		return rep, reportProblem{"the format is fr or en, not “%s”", []any{q.Get("format")}}
	}
	switch q.Get("by") {
	case "", "day":
	case "hour":
		rep.by = lottery.Hour
	default:
		return rep, reportProblem{"the period is hour or day, not “%s”", []any{q.Get("by")}}
	}
	zone := time.UTC
	if rep.format == "fr" {
		zone = Paris
	}
	now := s.now().In(zone)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, zone)
	rep.from, rep.to = today.AddDate(0, 0, -29), today
	for _, d := range []struct {
		name string
		dst  *time.Time
	}{{"from", &rep.from}, {"to", &rep.to}} {
		if v := q.Get(d.name); v != "" {
			t, err := time.ParseInLocation(time.DateOnly, v, zone)
			if err != nil || t.Year() < 2000 || t.Year() > 9000 {
				return rep, reportProblem{"the date “%s” is not a date like 2026-11-30", []any{v}}
			}
			*d.dst = t
		}
	}
	if rep.to.Before(rep.from) {
		return rep, reportProblem{"the first day, %s, is after the last, %s", []any{rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly)}}
	}
	if rep.to.Sub(rep.from) > maxReportDays*24*time.Hour {
		return rep, reportProblem{"from %s to %s: a report covers at most %d days", []any{rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly), maxReportDays}}
	}
	return rep, nil
}

// salesCSV writes the sales report.
func (s *Server) salesCSV(w http.ResponseWriter, r *http.Request) {
	rep, err := s.salesReportOf(r)
	if err != nil {
		var p reportProblem
		errors.As(err, &p)
		s.render(w, r, http.StatusBadRequest, "error", s.t(r, "Bad request"), s.t(r, "The sales report: %s.", s.t(r, p.format, p.args...)))
		return
	}
	if rep.format == "fr" {
		s.frenchSalesCSV(w, r, rep)
		return
	}
	rows, err := s.db.SalesBetween(r.Context(), rep.by, rep.from, rep.to.AddDate(0, 0, 1))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := fmt.Sprintf("starcolor-sales-by-%s-%s-%s.csv", rep.by, rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly))
	if !s.startCSV(w, r, rep, name) {
		return
	}
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

// startCSV logs a download and sends its headers; false if it could not be logged (answered).
func (s *Server) startCSV(w http.ResponseWriter, r *http.Request, rep salesReport, name string) bool {
	d := logDetail{By: string(rep.by), From: rep.from.Format(time.DateOnly), To: rep.to.Format(time.DateOnly), Format: rep.format}
	if err := s.record(r.Context(), r, "sales_exported", d); err != nil {
		s.fail(w, r, err)
		return false
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	return true
}

// frenchSalesCSV writes the report for a French spreadsheet (LibreOffice, Excel):
//   - a byte-order mark, so that it reads UTF-8;
//   - ';' between fields, since ',' is the decimal mark;
//   - French headers;
//   - euros with a decimal comma and no grouping (a spreadsheet reads "1 997,00" as text);
//   - the return in percent without its sign, so that it is a number;
//   - Paris days and hours, each with its zone, so that the two 02:00 of the night the clocks go
//     back are told apart.
func (s *Server) frenchSalesCSV(w http.ResponseWriter, r *http.Request, rep salesReport) {
	until := rep.to.AddDate(0, 0, 1)
	hours, err := s.db.SalesBetween(r.Context(), lottery.Hour, rep.from, until)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := parisPeriods(hours, rep.by)
	name := fmt.Sprintf("starcolor-ventes-par-%s-%s-%s.csv", map[lottery.Period]string{lottery.Day: "jour", lottery.Hour: "heure"}[rep.by],
		rep.from.Format(time.DateOnly), rep.to.Format(time.DateOnly))
	if !s.startCSV(w, r, rep, name) {
		return
	}
	io.WriteString(w, "\ufeff")
	out := csv.NewWriter(w)
	out.Comma, out.UseCRLF = ';', true
	first := "Jour"
	if rep.by == lottery.Hour {
		first = "Heure"
	}
	out.Write([]string{first + " (heure de Paris)", "Fuseau", "Mise (€)", "Parties", "Mises (€)", "Lots (€)", "Parties gagnantes", "Taux de retour (%)"})
	layout := "02/01/2006"
	if rep.by == lottery.Hour {
		layout = "02/01/2006 15:04"
	}
	var total lottery.Sales
	for _, row := range rows {
		t := row.Period.In(Paris)
		out.Write(frenchSalesRecord(t.Format(layout), t.Format("MST"), row))
		total.Add(row)
	}
	out.Write(frenchSalesRecord("Total", "", total))
	out.Flush()
}

// parisPeriods groups hours of sales (UTC, oldest first, by price) into Paris hours or days. A
// Paris day is 23, 24 or 25 hours, and starts at 23:00 or 22:00 UTC.
func parisPeriods(hours []lottery.Sales, by lottery.Period) []lottery.Sales {
	var out []lottery.Sales
	at := map[[2]int64]int{} // (period start, price) → index in out
	for _, h := range hours {
		start := h.Period
		if by == lottery.Day {
			t := h.Period.In(Paris)
			start = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, Paris)
		}
		k := [2]int64{start.Unix(), h.Price}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, lottery.Sales{Period: start, Price: h.Price})
		}
		out[i].Add(h)
	}
	// Hours come by hour then price; days gather hours of several prices, so sort again.
	slices.SortStableFunc(out, func(a, b lottery.Sales) int {
		if c := a.Period.Compare(b.Period); c != 0 {
			return c
		}
		return cmp.Compare(a.Price, b.Price)
	})
	return out
}

// frenchSalesRecord is one line of the French report; a total line has no price.
func frenchSalesRecord(period, zone string, s lottery.Sales) []string {
	price := ""
	if s.Price > 0 {
		price = euros(s.Price)
	}
	return []string{period, zone, price, strconv.FormatInt(s.Units, 10), euros(s.Stakes), euros(s.Prizes),
		strconv.FormatInt(s.Winners, 10), strings.Replace(percent(s.Prizes, s.Stakes), ".", ",", 1)}
}

// euros writes cents as euros for a spreadsheet: "1997,00", "-0,50".
func euros(cents int64) string {
	sign := ""
	u := uint64(cents)
	if cents < 0 {
		sign, u = "-", uint64(-cents)
	}
	return fmt.Sprintf("%s%d,%02d", sign, u/100, u%100)
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
