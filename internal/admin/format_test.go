package admin

import (
	"fmt"
	"testing"
	"time"
)

// Numbers, money, shares and durations the French way and the English way.
func TestNumbersInBothLanguages(t *testing.T) {
	const n = "\u202f" // the narrow no-break space of French figures
	for _, c := range []struct{ got, want string }{
		{money("fr", 199700), "1" + n + "997,00" + n + "€"},
		{money("en", 199700), "€1,997.00"},
		{money("fr", 5), "0,05" + n + "€"},
		{money("en", -150), "-€1.50"},
		{money("fr", -123456789), "-1" + n + "234" + n + "567,89" + n + "€"},
		{signedMoney("en", 250), "+€2.50"},
		{money("fr", -9223372036854775808), "-92" + n + "233" + n + "720" + n + "368" + n + "547" + n + "758,08" + n + "€"},
		{number("fr", 1234567), "1" + n + "234" + n + "567"},
		{number("en", 1234567), "1,234,567"},
		{number("en", -999), "-999"},
		{number("fr", 0), "0"},
		{pctIn("fr", 0.307, 1), "30,7" + n + "%"},
		{pctIn("en", 0.307, 1), "30.7%"},
		{pctIn("fr", 12.5, 0), "1" + n + "250" + n + "%"},
		{pctIn("en", 0.7, 2), "70.00%"},
		{pctIn("fr", -0.0001, 1), "0,0" + n + "%"},
		{seconds("fr", 1632*time.Millisecond), "1,632" + n + "s"},
		{seconds("en", 1632*time.Millisecond), "1.632\u00a0s"},
		{span("fr", 1600*time.Millisecond), "1,6" + n + "s"},
		{span("en", 42*time.Second), "42\u00a0s"},
		{span("fr", 185*time.Second), "3" + n + "min 05" + n + "s"},
		{span("fr", 2*time.Hour+10*time.Minute+20*time.Second), "2" + n + "h 10" + n + "min"},
		{decimalIn("fr", 33.3, -1), "33,3"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

// French takes the singular for 0 and 1, English for 1 alone.
func TestPlurals(t *testing.T) {
	for _, c := range []struct {
		lang string
		n    int64
		want string
	}{
		{"fr", 0, "0 compte fermé"}, {"fr", 1, "1 compte fermé"}, {"fr", 2, "2 comptes fermés"},
		{"en", 0, "0 accounts closed"}, {"en", 1, "1 account closed"}, {"en", 2, "2 accounts closed"},
	} {
		got := pluralOf(c.lang, c.n, "%s account closed", "%s accounts closed")
		if got = replaceVerb(got, c.n); got != c.want {
			t.Errorf("%s %d: %q, want %q", c.lang, c.n, got, c.want)
		}
	}
}

func replaceVerb(format string, n int64) string {
	return fmt.Sprintf(format, number("en", n))
}

// Times in Paris with their zone, the same way in both languages; dates with their month's name.
func TestTimesInParis(t *testing.T) {
	winter := time.Date(2026, 12, 1, 22, 5, 7, 0, time.UTC)
	summer := time.Date(2026, 7, 14, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{stamp(winter), "01/12/2026 23:05 CET"},
		{stampSeconds(winter), "01/12/2026 23:05:07 CET"},
		{stamp(summer), "14/07/2026 10:00 CEST"},
		// The night the clocks go back: two 02:30, told apart by their zone.
		{stamp(time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)), "25/10/2026 02:30 CEST"},
		{stamp(time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)), "25/10/2026 02:30 CET"},
		{stamp(time.Time{}), "—"},
		{longDate("fr", time.Date(1990, 5, 4, 0, 0, 0, 0, time.UTC)), "4 mai 1990"},
		{longDate("fr", time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)), "1er janvier 1990"},
		{longDate("en", time.Date(1990, 5, 4, 0, 0, 0, 0, time.UTC)), "4 May 1990"},
		{dayLabel("fr", time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)), "lun. 30 nov."},
		{hourLabel("fr", time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)), "30 nov. 16h"},
		{hourLabel("en", time.Date(2026, 7, 1, 15, 0, 0, 0, time.UTC)), "01 Jul 17h"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
