package admin

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Paris time on a machine without /usr/share/zoneinfo
)

// The back office writes numbers the way its reader's language does. In French: a decimal comma,
// and a narrow no-break space (U+202F) between thousands and before % and € ("1 997,00 €",
// "30,7 %"), so that a line never breaks inside a figure. In English: a point, commas between
// thousands, "€1,997.00" and "30.7%". golang.org/x/text/number was tried and left: its French
// data groups with U+00A0 and writes money as "EUR 1 997,00".

// nnbsp is the narrow no-break space of French typography.
const nnbsp = "\u202f"

// grouped writes a non-negative integer's digits with sep between thousands.
func grouped(digits, sep string) string {
	for i := len(digits) - 3; i > 0; i -= 3 {
		digits = digits[:i] + sep + digits[i:]
	}
	return digits
}

// number writes an integer in a language: "1 997" or "1,997".
func number(lang string, n int64) string {
	sep := ","
	if lang == "fr" {
		sep = nnbsp
	}
	sign := ""
	u := uint64(n)
	if n < 0 {
		sign, u = "-", uint64(-n)
	}
	return sign + grouped(strconv.FormatUint(u, 10), sep)
}

// decimalIn writes x with the given decimals in a language, thousands grouped: "1 632,5" or
// "1,632.5".
func decimalIn(lang string, x float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	sign := ""
	if x < 0 && strings.Trim(s, "0.") != "" {
		sign = "-"
	}
	sep, mark := ",", "."
	if lang == "fr" {
		sep, mark = nnbsp, ","
	}
	out := sign + grouped(whole, sep)
	if frac != "" {
		out += mark + frac
	}
	return out
}

// money writes cents as euros with their two decimals: "1 997,00 €" or "€1,997.00". Integers
// only: money never goes through a float.
func money(lang string, cents int64) string {
	sign := ""
	u := uint64(cents)
	if cents < 0 {
		sign, u = "-", uint64(-cents)
	}
	euros, rest := strconv.FormatUint(u/100, 10), fmt.Sprintf("%02d", u%100)
	if lang == "fr" {
		return sign + grouped(euros, nnbsp) + "," + rest + nnbsp + "€"
	}
	return sign + "€" + grouped(euros, ",") + "." + rest
}

// signedMoney writes an amount with its sign, "+" for a gain.
func signedMoney(lang string, cents int64) string {
	if cents > 0 {
		return "+" + money(lang, cents)
	}
	return money(lang, cents)
}

// pctIn writes a share in percent with the given decimals: "30,7 %" or "30.7%"; "—" when there
// is nothing to divide.
func pctIn(lang string, x float64, decimals int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	if lang == "fr" {
		return decimalIn(lang, 100*x, decimals) + nnbsp + "%"
	}
	return decimalIn(lang, 100*x, decimals) + "%"
}

// unit is the space between a figure and its unit, which never breaks: the narrow one in French.
func unit(lang string) string {
	if lang == "fr" {
		return nnbsp
	}
	return "\u00a0"
}

// seconds writes a duration in seconds to the millisecond: "1,632 s" or "1.632 s".
func seconds(lang string, d time.Duration) string {
	return decimalIn(lang, d.Round(time.Millisecond).Seconds(), 3) + unit(lang) + "s"
}

// span writes a duration as a person reads it, to the second: "42 s", "3 min 05 s",
// "2 h 10 min"; tenths of a second under ten seconds ("1,6 s").
func span(lang string, d time.Duration) string {
	if d < 0 {
		d = 0
	}
	sp := unit(lang)
	switch {
	case d < 10*time.Second:
		return decimalIn(lang, d.Round(100*time.Millisecond).Seconds(), 1) + sp + "s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + sp + "s"
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%d%smin %02d%ss", int(d/time.Minute), sp, int(d%time.Minute/time.Second), sp)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%s%sh %02d%smin", number(lang, int64(d/time.Hour)), sp, int(d%time.Hour/time.Minute), sp)
}

// Paris is the operator's time zone, the back office's and the operator API's: the game is
// French, and so are its books. The binary carries the zone database (time/tzdata), so that
// it does not depend on the machine's.
var Paris = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic("admin: no Europe/Paris in the embedded zone database: " + err.Error())
	}
	return loc
}()

// Every time the back office shows is in Paris time with its zone, one way in both languages:
// "01/12/2026 23:05 CET" (CEST in summer), the day first as both French and British readers
// write it; the zone tells apart the two 02:30 of the night the clocks go back.

// stamp writes a time to the minute, in Paris: "01/12/2026 23:05 CET".
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Paris).Format("02/01/2006 15:04 MST")
}

// stampSeconds writes a time to the second, in Paris, for the log and the ledger: an auditor
// orders actions by it.
func stampSeconds(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Paris).Format("02/01/2006 15:04:05 MST")
}

var (
	frenchMonths     = []string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."}
	frenchMonthsLong = []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	frenchDays       = []string{"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."}
)

// longDate writes a calendar date, such as a birth date, with its month's name: "4 mai 1990",
// "1er mai 1990", "4 May 1990". A date has no zone: it is written as it is kept.
func longDate(lang string, d time.Time) string {
	if lang != "fr" {
		return d.Format("2 January 2006")
	}
	day := strconv.Itoa(d.Day())
	if d.Day() == 1 {
		day = "1er"
	}
	return day + " " + frenchMonthsLong[d.Month()-1] + " " + strconv.Itoa(d.Year())
}

// hourLabel names an hour of Paris, as "30 nov. 15h" or "30 Nov 15h".
func hourLabel(lang string, t time.Time) string {
	t = t.In(Paris)
	if lang != "fr" {
		return t.Format("02 Jan 15h")
	}
	return fmt.Sprintf("%02d %s %02dh", t.Day(), frenchMonths[t.Month()-1], t.Hour())
}

// dayLabel names a day of Paris, as "lun. 30 nov." or "Mon 30 Nov".
func dayLabel(lang string, t time.Time) string {
	t = t.In(Paris)
	if lang != "fr" {
		return t.Format("Mon 02 Jan")
	}
	return fmt.Sprintf("%s %02d %s", frenchDays[t.Weekday()], t.Day(), frenchMonths[t.Month()-1])
}

// one tells whether a count takes the singular: in French for 0 and 1 ("0 compte fermé"), in
// English for 1 alone (CLDR's plural rules, category "one", for integers).
func one(lang string, n int64) bool {
	if lang == "fr" {
		return n == 0 || n == 1
	}
	return n == 1
}

// pluralOf picks the form of a text for a count, by the language's rule, then translates it:
// the singular key for "0 compte fermé" in French, the plural one for "0 accounts closed" in
// English.
func pluralOf(lang string, n int64, singular, plural string) string {
	if one(lang, n) {
		return tr(lang, singular)
	}
	return tr(lang, plural)
}
