package admin

import (
	"context"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// LifeStore is what a change of an emission's status needs of a store.
type LifeStore interface {
	ChangeEmissionStatus(ctx context.Context, c lottery.EmissionChange, log lottery.OperatorAction) (lottery.EmissionChange, error)
}

// ChangeStatus suspends (status lottery.Suspended, with a reason) or resumes (lottery.OnSale)
// the emission id, as by's operator from by's address, at by's time. It serves the back office
// and the operator API alike. The store writes the change with its line in the operators' log
// and its entry in the journal, or nothing.
func ChangeStatus(ctx context.Context, db LifeStore, id, status, reason string, by lottery.OperatorAction) (lottery.EmissionChange, error) {
	if status != lottery.Suspended && status != lottery.OnSale {
		return lottery.EmissionChange{}, fault.Errorf(fault.Invalid, "an emission is suspended or resumed here")
	}
	reason, err := oneLine(reason, status == lottery.Suspended)
	if err != nil {
		return lottery.EmissionChange{}, err
	}
	line := lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "emission_suspended",
		Detail: logDetail{Emission: id, Why: reason}.encode(), Remote: by.Remote, CreatedAt: by.CreatedAt}
	if status == lottery.OnSale {
		line.Action = "emission_resumed"
	}
	return db.ChangeEmissionStatus(ctx, lottery.EmissionChange{Emission: id, Status: status, Reason: reason, By: by.Name, At: by.CreatedAt}, line)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
