package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/lottery"
)

// limitsJSON is a player's limits as docs/spec/API.md 1.1 says them.
type limitsJSON struct {
	DepositWeekly *int64        `json:"deposit_weekly"`
	StakeWeekly   *int64        `json:"stake_weekly"`
	Deposited7d   int64         `json:"deposited_7d"`
	Staked7d      int64         `json:"staked_7d"`
	Pending       []pendingJSON `json:"pending"`
	RealityCheck  *int          `json:"reality_check_minutes"`
}

type pendingJSON struct {
	Limit       string `json:"limit"`
	Amount      int64  `json:"amount"`
	EffectiveAt string `json:"effective_at"`
}

func limitsOf(l lottery.Limits) limitsJSON {
	out := limitsJSON{Deposited7d: l.Deposited, Staked7d: l.Staked, Pending: []pendingJSON{}}
	for _, x := range []struct {
		kind  string
		limit lottery.Limit
		to    **int64
	}{{lottery.DepositWeekly, l.Deposit, &out.DepositWeekly}, {lottery.StakeWeekly, l.Stake, &out.StakeWeekly}} {
		if x.limit.Set {
			*x.to = &x.limit.Amount
		}
		if p := x.limit.Pending; p != nil {
			out.Pending = append(out.Pending, pendingJSON{Limit: x.kind, Amount: p.Amount, EffectiveAt: p.EffectiveAt.UTC().Format(time.RFC3339)})
		}
	}
	if l.RealityCheck != 0 {
		out.RealityCheck = &l.RealityCheck
	}
	return out
}

func (s *Server) limits(w http.ResponseWriter, r *http.Request, p game.Player) error {
	l, err := s.svc.Limits(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, limitsOf(l))
}

// setLimits changes any of the player's limits (docs/spec/API.md 1.1): a limit is a whole number of cents
// (it cannot be unset once set); reality_check_minutes is 15 to 120, or null for none.
func (s *Server) setLimits(w http.ResponseWriter, r *http.Request, p game.Player) error {
	var b struct {
		DepositWeekly jsontext.Value `json:"deposit_weekly"` // raw, to tell null from absent
		StakeWeekly   jsontext.Value `json:"stake_weekly"`
		RealityCheck  jsontext.Value `json:"reality_check_minutes"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return err
	}
	var c lottery.LimitsChange
	for _, x := range []struct {
		name string
		raw  jsontext.Value
		to   **int64
	}{{lottery.DepositWeekly, b.DepositWeekly, &c.Deposit}, {lottery.StakeWeekly, b.StakeWeekly, &c.Stake}} {
		if x.raw == nil {
			continue
		}
		var n int64
		if err := json.Unmarshal(x.raw, &n); err != nil || bytes.Equal(x.raw, []byte("null")) {
			return fault.Errorf(fault.Invalid, "%s is a whole number of cents from 0 to %d (a limit cannot be removed once set)", x.name, lottery.MaxLimit)
		}
		*x.to = &n
	}
	if b.RealityCheck != nil {
		c.SetRealityCheck = true
		if !bytes.Equal(b.RealityCheck, []byte("null")) {
			if err := json.Unmarshal(b.RealityCheck, &c.RealityCheck); err != nil || c.RealityCheck == 0 {
				return fault.Errorf(fault.Invalid, "reality_check_minutes is %d to %d, or null for none", lottery.MinRealityCheck, lottery.MaxRealityCheck)
			}
		}
	}
	if c.Deposit == nil && c.Stake == nil && !c.SetRealityCheck {
		return fault.Errorf(fault.Invalid, "give any of deposit_weekly, stake_weekly, reality_check_minutes")
	}
	l, err := s.svc.SetLimits(r.Context(), p, c)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, limitsOf(l))
}
