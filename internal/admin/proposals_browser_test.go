package admin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"starcolor/internal/admin"
	"starcolor/internal/browsertest"
	"starcolor/internal/lottery"
)

// TestBrowserProposals: in a browser, an emissions operator proposes the emission's withdrawal
// from its page; the proposals page shows it to its proposer without a decision, and to an
// approver with approve and reject; the approver approves; the emission is then withdrawn, and
// the page shows the proposal decided. Every page passes axe-core.
func TestBrowserProposals(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Options{})
	e := newEnv(t, 1)
	english(t, ctx, e)
	bg := context.Background()
	for _, o := range []struct {
		name  string
		roles lottery.Roles
	}{{"eric", lottery.Roles(lottery.Emissions)}, {"anna", lottery.Roles(lottery.Approver)}} {
		if err := admin.CreateOperator(bg, e.db, o.name, opPassword, o.roles, fast, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// login logs in from the login page the browser is on.
	login := func(name string) {
		t.Helper()
		do(t, ctx, chromedp.WaitVisible("#password"), chromedp.SendKeys("#name", name), chromedp.SendKeys("#password", opPassword),
			chromedp.Click("#login"), chromedp.WaitVisible("form.who"))
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/login"))
	login("eric")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI"), chromedp.WaitVisible("#withdraw-reason"))
	browsertest.Axe(t, ctx, "an emission's page, for an emissions operator")
	do(t, ctx, chromedp.SendKeys("#withdraw-reason", "a suspected leak"), chromedp.Click("#withdraw-button"), chromedp.WaitVisible("#open-proposals"))
	if got := text(t, ctx, "#open-proposals tbody tr"); !containsAll(got, "Withdraw MINI", "a suspected leak", "eric") {
		t.Errorf("the proposer's open proposal: %q", got)
	}
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#open-proposals button").length`))
	if err != nil || buttons != 0 {
		t.Errorf("the proposals page shows an operator without approver %d buttons", buttons)
	}
	browsertest.Axe(t, ctx, "the proposals page, for its proposer")
	do(t, ctx, chromedp.Click(`form.who button`))

	login("anna")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/proposals"), chromedp.WaitVisible("#open-proposals button.approve"))
	browsertest.Axe(t, ctx, "the proposals page, for an approver")
	browsertest.Screenshot(t, ctx, "admin-proposals")
	do(t, ctx, chromedp.Click("#open-proposals button.approve"), chromedp.WaitVisible("#decided-proposals"))
	if got := text(t, ctx, "#decided-proposals tbody tr"); !containsAll(got, "Withdraw MINI", "approved", "eric", "anna") {
		t.Errorf("the decided proposal: %q", got)
	}
	if st, err := e.db.EmissionStatuses(bg); err != nil || st["MINI"] != lottery.Withdrawn {
		t.Errorf("the emission after the approval: %q %v", st["MINI"], err)
	}
	browsertest.Axe(t, ctx, "the proposals page, a proposal decided")
	// The proposer sees the emission withdrawn, with its units unsold, and no form to change it.
	do(t, ctx, chromedp.Click(`form.who button`))
	login("eric")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI"), chromedp.WaitVisible("#history"))
	if got := text(t, ctx, ".head .status"); !containsAll(got, "withdrawn", "units unsold") {
		t.Errorf("the emission's status: %q", got)
	}
	if forms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#life form").length`)); err != nil || forms != 0 {
		t.Errorf("a withdrawn emission's page shows %d forms to change it (%v)", forms, err)
	}
	browsertest.Axe(t, ctx, "a withdrawn emission's page")
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
