package lottery

import (
	"time"

	"starcolor/internal/fault"
)

// The statuses of an emission's life (docs/spec/OPERATOR.md, « An emission's life »):
//
//  1. proposed: its creation is an open proposal; generating: approved, its units being made;
//     neither is in the emissions' table yet;
//  2. scheduled: made, waiting for its on_sale_at; on sale, suspended, withdrawn: by its latest
//     change of status, on sale when it has none;
//  3. sold out once its units are all sold, whatever its status was, unless it was withdrawn.
const (
	Proposed   = "proposed"
	Generating = "generating"
	Scheduled  = "scheduled"
	OnSale     = "on_sale"
	Suspended  = "suspended"
	SoldOut    = "sold_out"
	Withdrawn  = "withdrawn"
)

// BySchedule names the server that opens a scheduled emission at its on_sale_at, in its history
// and the journal: no operator does it.
const BySchedule = "schedule"

// EmissionChange is a change of an emission's status, as its history keeps it.
type EmissionChange struct {
	ID       int64
	Emission string
	Status   string // the status it takes
	Reason   string // why, as the operator gave it ("" for a resumption)
	By       string // the operator's name, or ByCommandLine
	At       time.Time
}

// MaxReason bounds the reason given for a change, in bytes.
const MaxReason = 500

// CheckChange says whether an emission in status from may take status to: a suspension of an
// emission on sale, a resumption of a suspended one, a withdrawal of either. Anything else is
// fault.InvalidState. A scheduled emission may be withdrawn; it opens by its schedule only
// (CheckOpening).
func CheckChange(from, to string) error {
	switch {
	case from == OnSale && to == Suspended, from == Suspended && to == OnSale:
		return nil
	case (from == OnSale || from == Suspended || from == Scheduled) && to == Withdrawn:
		return nil
	case from == Scheduled:
		return fault.Errorf(fault.InvalidState, "the emission is scheduled: it goes on sale at its on_sale_at, and can only be withdrawn before")
	case from == Withdrawn:
		return fault.Errorf(fault.InvalidState, "the emission is withdrawn: it never sells again")
	case from == SoldOut:
		return fault.Errorf(fault.InvalidState, "the emission is sold out: it can be neither suspended, resumed nor withdrawn")
	case from == to:
		return fault.Errorf(fault.InvalidState, "the emission is %s already", from)
	}
	return fault.Errorf(fault.InvalidState, "an emission %s cannot become %s", from, to)
}

// CheckOpening says whether an emission in status from opens now by its schedule: only a
// scheduled one does.
func CheckOpening(from string) error {
	if from != Scheduled {
		return fault.Errorf(fault.InvalidState, "the emission is %s, not scheduled", from)
	}
	return nil
}
