package gamedef

import (
	"fmt"
	"slices"

	"starcolor/internal/rules"
)

// CheckUnit verifies a canonical unit against the table. It checks:
//
//  1. every rule of rules.Unit.Check;
//  2. that the claimed prize is what the boards reveal, and a tier of the table;
//  3. that a composite tier is reached by at least two gains;
//  4. that every amount shown is one the table allows under a star, so never a composite tier's
//     value.
func (t *Table) CheckUnit(u *rules.Unit, prize int64) (rules.UnitOutcome, error) {
	o, err := u.Check()
	if err != nil {
		return o, err
	}
	if o.Prize != prize {
		return o, fmt.Errorf("the boards reveal %s but the prize is %s", FormatEUR(o.Prize), FormatEUR(prize))
	}
	tier, ok := t.Tier(prize)
	if !ok {
		return o, fmt.Errorf("prize %s is not a tier of the table", FormatEUR(prize))
	}
	if tier.Composite && o.Gains < 2 {
		return o, fmt.Errorf("prize %s is composite only but the unit reveals %d gain", FormatEUR(prize), o.Gains)
	}
	boards := []*rules.Board{&u.B1}
	if u.HasB2 {
		boards = append(boards, &u.B2)
	}
	for n, b := range boards {
		for i := range b {
			if b[i].Kind == rules.Amount {
				if _, found := slices.BinarySearch(t.Amounts, b[i].Amount); !found {
					return o, fmt.Errorf("board %d cell %d shows %s, which is not an amount of the table", n+1, i, FormatEUR(b[i].Amount))
				}
			}
		}
	}
	return o, nil
}
