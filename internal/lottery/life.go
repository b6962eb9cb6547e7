package lottery

import (
	"time"

	"starcolor/internal/fault"
)

// The statuses of an emission's life (docs/spec/OPERATOR.md, « An emission's life ») that are
// built: on sale, suspended, sold out, withdrawn. An emission without a change of status is on
// sale from its creation; one whose units are all sold is sold out, whatever its status was,
// unless it was withdrawn before.
const (
	OnSale    = "on_sale"
	Suspended = "suspended"
	SoldOut   = "sold_out"
	Withdrawn = "withdrawn"
)

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
// fault.InvalidState.
func CheckChange(from, to string) error {
	switch {
	case from == OnSale && to == Suspended, from == Suspended && to == OnSale:
		return nil
	case (from == OnSale || from == Suspended) && to == Withdrawn:
		return nil
	case from == Withdrawn:
		return fault.Errorf(fault.InvalidState, "the emission is withdrawn: it never sells again")
	case from == SoldOut:
		return fault.Errorf(fault.InvalidState, "the emission is sold out: it can be neither suspended, resumed nor withdrawn")
	case from == to:
		return fault.Errorf(fault.InvalidState, "the emission is %s already", from)
	}
	return fault.Errorf(fault.InvalidState, "an emission %s cannot become %s", from, to)
}
