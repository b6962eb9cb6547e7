package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"starcolor/internal/admin"
	"starcolor/internal/lottery"
)

// TestOperatorsPage: an admin runs the operators, and a second pair of eyes their roles.
//
//  1. A viewer reads the page without a form, and is refused every action (403, nothing done).
//  2. A change of roles is a proposal; once an approver approves it, the roles are theirs.
//  3. A disabled operator's session ends at once, their login is refused saying so, and their
//     API token is refused; enabled again, they log in.
//  4. A new password is shown once: the old one no longer works, the new one does, and the
//     sessions ended. Ending the sessions ends them.
//  5. An admin cannot disable themselves. Each action is in the log, with whom it changed.
func TestOperatorsPage(t *testing.T) {
	e := newEnv(t, 1)
	bg := context.Background()
	boss := e.client(t)
	if resp, _ := boss.login(opName, opPassword); resp.StatusCode != 303 {
		t.Fatal("the admin's login failed")
	}
	olga := e.operatorClient(t, "olga", lottery.Roles(lottery.Viewer))
	ann := e.operatorClient(t, "ann", lottery.Roles(lottery.Approver))
	o, err := e.db.OperatorByName(bg, "olga")
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/admin/operators/%d", o.ID)

	if resp, body := olga.do("GET", "/admin/operators", nil); resp.StatusCode != 200 || !strings.Contains(body, `data-operator="olga"`) || strings.Contains(body, path+"/disable") {
		t.Errorf("the page for a viewer: %d, forms shown %v", resp.StatusCode, strings.Contains(body, path+"/disable"))
	}
	for _, action := range []string{"/roles", "/disable", "/password", "/sessions"} {
		if resp, _ := olga.form(path+action, url.Values{"role": {"admin"}}); resp.StatusCode != 403 {
			t.Errorf("a viewer's %s: %d, want 403", action, resp.StatusCode)
		}
	}
	if got, _ := e.db.OperatorByName(bg, "olga"); got.Roles != o.Roles || got.Disabled || got.PasswordHash != o.PasswordHash {
		t.Fatalf("refused actions changed olga: %+v", got)
	}

	if resp, _ := boss.form(path+"/roles", url.Values{"role": {"viewer", "finance"}}); resp.StatusCode != 303 {
		t.Fatalf("roles proposed: %d", resp.StatusCode)
	}
	if resp, _ := boss.form(path+"/roles", url.Values{"role": {"viewer", "finance"}}); resp.StatusCode != 409 {
		t.Errorf("the same change proposed again: %d, want 409", resp.StatusCode)
	}
	if resp, _ := boss.form(path+"/roles", url.Values{"role": {"nobody"}}); resp.StatusCode != 400 {
		t.Errorf("an unknown role proposed: %d, want 400", resp.StatusCode)
	}
	if got, _ := e.db.OperatorByName(bg, "olga"); got.Roles != o.Roles {
		t.Fatalf("roles changed before the approval: %s", got.Roles)
	}
	open, err := e.db.Proposals(bg, lottery.ProposalOpen, e.clock.Now(), 10)
	if err != nil || len(open) != 1 || open[0].Action != lottery.ProposeRoles || open[0].TargetName != "olga" {
		t.Fatalf("the open proposals: %+v %v", open, err)
	}
	if _, body := ann.do("GET", "/admin/proposals", nil); !strings.Contains(body, "Give olga the roles: viewer, finance") {
		t.Errorf("the proposals page does not say the change: %s", body)
	}
	if resp, _ := ann.form(fmt.Sprintf("/admin/proposals/%d/approve", open[0].ID), nil); resp.StatusCode != 303 {
		t.Fatalf("the approval: %d", resp.StatusCode)
	}
	if got, _ := e.db.OperatorByName(bg, "olga"); got.Roles != lottery.Roles(lottery.Viewer)|lottery.Roles(lottery.Finance) {
		t.Errorf("olga's roles after the approval: %s", got.Roles)
	}

	token, _, err := admin.MakeToken(bg, e.db, "olga", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	api := func() int {
		req, _ := http.NewRequest("GET", e.url+"/api/operator/v1/emissions", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := api(); st != 200 {
		t.Fatalf("olga's token before: %d", st)
	}
	if resp, _ := boss.form(path+"/disable", nil); resp.StatusCode != 200 {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	if resp, _ := olga.do("GET", "/admin/log", nil); resp.StatusCode != 303 {
		t.Errorf("a disabled operator's session: %d, want 303 to the login", resp.StatusCode)
	}
	if resp, body := e.client(t).login("olga", opPassword); resp.StatusCode != 403 || !strings.Contains(body, "This operator is disabled") {
		t.Errorf("a disabled operator's login: %d", resp.StatusCode)
	}
	if st := api(); st != 401 {
		t.Errorf("a disabled operator's token: %d, want 401", st)
	}
	if resp, _ := boss.form(path+"/disable", nil); resp.StatusCode != 409 {
		t.Errorf("disabled twice: %d, want 409", resp.StatusCode)
	}
	if resp, _ := boss.form(path+"/enable", nil); resp.StatusCode != 200 {
		t.Fatalf("enable: %d", resp.StatusCode)
	}
	olga = e.client(t)
	if resp, _ := olga.login("olga", opPassword); resp.StatusCode != 303 {
		t.Fatalf("olga's login once enabled: %d", resp.StatusCode)
	}

	resp, body := boss.form(path+"/password", nil)
	m := regexp.MustCompile(`id="password-shown">([A-Za-z0-9_-]{24})<`).FindStringSubmatch(body)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("a new password: %d, shown %v", resp.StatusCode, m)
	}
	if resp, _ := olga.do("GET", "/admin/log", nil); resp.StatusCode != 303 {
		t.Errorf("olga's session after a new password: %d, want 303", resp.StatusCode)
	}
	if resp, _ := e.client(t).login("olga", opPassword); resp.StatusCode == 303 {
		t.Error("the old password still logs in")
	}
	olga = e.client(t)
	if resp, _ := olga.login("olga", m[1]); resp.StatusCode != 303 {
		t.Fatalf("the new password: %d", resp.StatusCode)
	}
	if resp, _ := boss.form(path+"/sessions", nil); resp.StatusCode != 200 {
		t.Fatalf("end the sessions: %d", resp.StatusCode)
	}
	if resp, _ := olga.do("GET", "/admin/log", nil); resp.StatusCode != 303 {
		t.Errorf("olga's session once ended: %d, want 303", resp.StatusCode)
	}

	me, _ := e.db.OperatorByName(bg, opName)
	if resp, _ := boss.form(fmt.Sprintf("/admin/operators/%d/disable", me.ID), nil); resp.StatusCode != 409 {
		t.Errorf("an admin disables themselves: %d, want 409", resp.StatusCode)
	}
	lines, err := e.db.OperatorLog(bg, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l.Action, "operator_") && l.Action != "operator_created" {
			got = append([]string{l.Name + " " + l.Action + " " + l.Detail}, got...)
		}
	}
	want := []string{`alice operator_disabled {"operator":"olga"}`, `alice operator_enabled {"operator":"olga"}`,
		`alice operator_password_reset {"operator":"olga"}`, `alice operator_sessions_ended {"operator":"olga"}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the log: %q, want %q", got, want)
	}
}
