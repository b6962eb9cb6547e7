package admin

import (
	"context"
	"strings"
	"unicode/utf8"

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
	reason = strings.TrimSpace(reason)
	switch {
	case status == lottery.Suspended && reason == "":
		return lottery.EmissionChange{}, fault.Errorf(fault.Invalid, "a suspension says why")
	case status != lottery.Suspended && status != lottery.OnSale:
		return lottery.EmissionChange{}, fault.Errorf(fault.Invalid, "an emission is suspended or resumed")
	case len(reason) > lottery.MaxReason || !utf8.ValidString(reason) || strings.ContainsFunc(reason, isControl):
		return lottery.EmissionChange{}, fault.Errorf(fault.Invalid, "the reason is one line of text, %d bytes at most", lottery.MaxReason)
	}
	line := lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "emission_suspended",
		Detail: logDetail{Emission: id, Why: reason}.encode(), Remote: by.Remote, CreatedAt: by.CreatedAt}
	if status == lottery.OnSale {
		line.Action = "emission_resumed"
	}
	return db.ChangeEmissionStatus(ctx, lottery.EmissionChange{Emission: id, Status: status, Reason: reason, By: by.Name, At: by.CreatedAt}, line)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
