package journal

import (
	"encoding/json"
)

// The operators' log is private: its details name players by their usernames, persons by their
// names and birth dates, and hold what operators typed (a reason, a note). The journal is
// public and names no person (docs/spec/API.md 1.2). So an operator's entry carries of its
// line's detail only the fields below, none of which can name a person: codes, counts, ids,
// amounts, dates of the operator's own acts, and operators' names, which the journal names
// anyway. Any other field, and a detail that is not a JSON object (the prose of older lines),
// stays in the private log alone. A field is public only once it is added here.
var publicDetail = map[string]bool{
	"token": true, "via": true, "roles": true, "reason": true, "wait_s": true,
	"game": true, "amount": true, "emission": true, "operator": true, "for": true,
	"on_sale_at": true, "proposal": true, "proposed": true, "blocks": true, "price": true,
	"elapsed_ms": true, "failure": true, "block": true, "gzip": true, "by": true,
	"from": true, "to": true, "format": true, "problem": true, "limit_mib": true,
	"csv_at": true, "counts": true,
}

// PublicField says whether a field of an operator's detail goes to the public journal.
func PublicField(name string) bool { return publicDetail[name] }

// PublicDetail is what the public journal keeps of a detail of the operators' log: its public
// fields (PublicField), as a JSON object in the order of their names; "" when none is left.
func PublicDetail(detail string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(detail), &fields) != nil {
		return ""
	}
	for name := range fields {
		if !publicDetail[name] {
			delete(fields, name)
		}
	}
	if len(fields) == 0 {
		return ""
	}
	b, err := json.Marshal(fields) // a map's keys are sorted: the same detail, the same bytes
	if err != nil {
		return ""
	}
	return string(b)
}
