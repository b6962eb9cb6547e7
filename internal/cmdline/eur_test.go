package cmdline

import (
	"strconv"
	"testing"
)

func TestParseEUR(t *testing.T) {
	for in, want := range map[string]int64{"1": 100, "2": 200, "3": 300, "2.5": 250, "2,50": 250, "0.01": 1, " 3 ": 300} {
		if got, err := ParseEUR(in); err != nil || got != want {
			t.Errorf("ParseEUR(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1.234", "1e2", "abc", "1.-5", "+2", "99999999999", "1.5.5", "0x10"} {
		if got, err := ParseEUR(in); err == nil {
			t.Errorf("ParseEUR(%q) = %d, want an error", in, got)
		}
	}
}

// FuzzParseEUR: a price either fails or is a positive number of cents that reads back the same.
func FuzzParseEUR(f *testing.F) {
	for _, s := range []string{"1", "2,50", "0.01", "-3", "1e9", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cents, err := ParseEUR(s)
		if err != nil {
			return
		}
		if cents <= 0 {
			t.Fatalf("ParseEUR(%q) = %d", s, cents)
		}
		back, err := ParseEUR(strconv.FormatInt(cents/100, 10) + "." + strconv.FormatInt(100+cents%100, 10)[1:])
		if err != nil || back != cents {
			t.Fatalf("ParseEUR(%q) = %d does not read back (%d, %v)", s, cents, back, err)
		}
	})
}
