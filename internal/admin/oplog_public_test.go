package admin

import (
	"reflect"
	"strings"
	"testing"

	"starcolor/internal/journal"
)

// TestLogDetailPublic: each field of the log's detail is either one the public journal keeps
// (journal.PublicField) or one it leaves out, named here. A new field must be put on one side,
// so that no new field can carry a username, a person or an operator's words into the journal
// unnoticed.
func TestLogDetailPublic(t *testing.T) {
	private := map[string]string{
		"player":   "a username",
		"why":      "what an operator typed",
		"note":     "what an operator typed",
		"file":     "a file's name, chosen by whoever made it",
		"lines":    "a register's lines, with dates as written",
		"closed":   "usernames",
		"accounts": "usernames",
		"name":     "a person's names",
		"born":     "a person's birth date",
		"until":    "a person's self-exclusion",
	}
	typ := reflect.TypeFor[logDetail]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		_, hidden := private[name]
		switch public := journal.PublicField(name); {
		case public && hidden:
			t.Errorf("the detail's field %q (%s) goes to the public journal", name, private[name])
		case !public && !hidden:
			t.Errorf("the detail's field %q is neither public (journal.PublicField) nor named private here", name)
		}
	}
}
