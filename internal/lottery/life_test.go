package lottery_test

import (
	"testing"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// TestCheckChange: every change of an emission's status against its life (docs/spec/OPERATOR.md):
// exactly these are allowed, every other is fault.InvalidState; only a scheduled emission opens
// by its schedule.
func TestCheckChange(t *testing.T) {
	allowed := map[[2]string]bool{
		{lottery.OnSale, lottery.Suspended}:    true,
		{lottery.Suspended, lottery.OnSale}:    true,
		{lottery.OnSale, lottery.Withdrawn}:    true,
		{lottery.Suspended, lottery.Withdrawn}: true,
		{lottery.Scheduled, lottery.Withdrawn}: true,
	}
	from := []string{lottery.Scheduled, lottery.OnSale, lottery.Suspended, lottery.SoldOut, lottery.Withdrawn}
	to := []string{lottery.OnSale, lottery.Suspended, lottery.Withdrawn}
	for _, f := range from {
		for _, s := range to {
			err := lottery.CheckChange(f, s)
			if allowed[[2]string{f, s}] {
				if err != nil {
					t.Errorf("%s → %s refused: %v", f, s, err)
				}
				continue
			}
			if !fault.Is(err, fault.InvalidState) {
				t.Errorf("%s → %s: %v, want invalid_state", f, s, err)
			}
		}
		if err := lottery.CheckOpening(f); (err == nil) != (f == lottery.Scheduled) {
			t.Errorf("opening a %s emission: %v", f, err)
		}
	}
}
