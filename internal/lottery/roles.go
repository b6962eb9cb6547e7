package lottery

import (
	"strings"

	"starcolor/internal/fault"
)

// Role is what an operator may do (docs/spec/OPERATOR.md, « Operators, roles, tokens »). A call
// or a page asks for one role; an operator holds a set of them.
type Role uint8

// The roles, in the order OPERATOR.md names them and Roles.String writes them.
const (
	Viewer     Role = 1 << iota // reads everything
	Finance                     // reports, players' money
	Emissions                   // proposes emissions, suspends and resumes them
	Compliance                  // the register of excluded persons, a player's restrictions
	Approver                    // approves or rejects proposals
	Admin                       // operators and their roles
)

// roleNames are the roles' names, bit by bit.
var roleNames = [...]string{"viewer", "finance", "emissions", "compliance", "approver", "admin"}

// Roles is a set of roles.
type Roles uint8

// AllRoles is every role: what an operator made before roles existed keeps.
const AllRoles Roles = 1<<len(roleNames) - 1

// Has says whether the set holds r.
func (rs Roles) Has(r Role) bool { return rs&Roles(r) != 0 }

// String is the set as OPERATOR.md writes it, comma-separated in the roles' order; "" if empty.
func (rs Roles) String() string {
	var b strings.Builder
	for i, n := range roleNames {
		if rs&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(n)
		}
	}
	return b.String()
}

// Names are the set's roles by name, in the roles' order.
func (rs Roles) Names() []string {
	var out []string
	for i, n := range roleNames {
		if rs&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String is the role's name.
func (r Role) String() string { return Roles(r).String() }

// ParseRoles reads a set written as R[,R…]: at least one role, each a name of OPERATOR.md
// exactly (lower case, no space), none twice. Anything else is fault.Invalid and names what is
// wrong: a set of roles given is never read as something else.
func ParseRoles(s string) (Roles, error) {
	if s == "" {
		return 0, fault.Errorf(fault.Invalid, "no role given: want one or more of %s, separated by commas", AllRoles)
	}
	var rs Roles
	for _, name := range strings.Split(s, ",") {
		r, ok := roleNamed(name)
		if !ok {
			return 0, fault.Errorf(fault.Invalid, "%q is not a role: want one or more of %s, separated by commas", name, AllRoles)
		}
		if rs.Has(r) {
			return 0, fault.Errorf(fault.Invalid, "the role %s is given twice", name)
		}
		rs |= Roles(r)
	}
	return rs, nil
}

func roleNamed(name string) (Role, bool) {
	for i, n := range roleNames {
		if n == name {
			return Role(1 << i), true
		}
	}
	return 0, false
}

// The changes an admin makes to an operator alone (four eyes are for their roles only).
const (
	OperatorDisable     = "disable"
	OperatorEnable      = "enable"
	OperatorNewPassword = "password"
	OperatorEndSessions = "sessions"
)
