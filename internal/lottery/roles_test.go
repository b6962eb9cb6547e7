package lottery

import "testing"

func TestRoles(t *testing.T) {
	rs, err := ParseRoles("approver,viewer")
	if err != nil || !rs.Has(Viewer) || !rs.Has(Approver) || rs.Has(Admin) || rs.String() != "viewer,approver" {
		t.Fatalf("approver,viewer: %v %v", rs, err)
	}
	if AllRoles.String() != "viewer,finance,emissions,compliance,approver,admin" {
		t.Fatalf("every role: %s", AllRoles)
	}
	for _, bad := range []string{"", ",", "viewer,", "viewer,,admin", "Viewer", " viewer", "viewer ,admin", "root", "viewer,viewer", "vіewer"} {
		if _, err := ParseRoles(bad); err == nil {
			t.Errorf("%q read as roles", bad)
		}
	}
}

// FuzzParseRoles: what reads as roles is one set, written back the same way up to order.
func FuzzParseRoles(f *testing.F) {
	f.Add("viewer,finance")
	f.Add("admin")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseRoles(s)
		if err != nil {
			return
		}
		again, err := ParseRoles(rs.String())
		if err != nil || again != rs || rs == 0 || rs&^AllRoles != 0 {
			t.Fatalf("%q read as %v, written %q, read again %v %v", s, rs, rs.String(), again, err)
		}
	})
}
