package admin

import "testing"

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		a, b int64
		want string
	}{
		{7000, 10000, "70.00"}, {1, 3, "33.33"}, {2, 3, "66.67"}, {1, 8, "12.50"}, {1, 80000, "0.00"}, {1, 20000, "0.01"},
		{0, 5, "0.00"}, {5, 0, ""}, {123456, 100, "123456.00"}, {7_562_960_00, 10_800_000_00, "70.03"},
	} {
		if got := percent(c.a, c.b); got != c.want {
			t.Errorf("percent(%d, %d) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
