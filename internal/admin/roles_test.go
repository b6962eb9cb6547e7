package admin_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"

	"starcolor/internal/admin"
	"starcolor/internal/lottery"
)

// operatorClient makes an operator with roles and logs them in: their client.
func (e *env) operatorClient(t *testing.T, name string, roles lottery.Roles) *client {
	t.Helper()
	if err := admin.CreateOperator(context.Background(), e.db, name, opPassword, roles, fast, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	if resp, body := c.login(name, opPassword); resp.StatusCode != 303 {
		t.Fatalf("login of %s: %d %s", name, resp.StatusCode, body)
	}
	return c
}

// upload posts a register file to the import form.
func (c *client) uploadRegister(content string) (int, string) {
	c.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	f, _ := w.CreateFormFile("file", "register.csv")
	f.Write([]byte(content))
	w.Close()
	resp, body := c.do("POST", "/admin/exclusions", &b, "Content-Type", w.FormDataContentType())
	return resp.StatusCode, body
}

// TestBackOfficeRoles: each page and action is open to its roles only (403 saying which it
// needs, nothing done), the menu shows an operator only what they may open, the forms only the
// actions they may take, and the header their roles.
func TestBackOfficeRoles(t *testing.T) {
	e := newEnv(t, 1)
	pages := []struct {
		path  string
		roles lottery.Roles
	}{
		{"/admin/", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Finance)},
		{"/admin/sales.csv?by=day", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Finance)},
		{"/admin/emissions", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Emissions)},
		{"/admin/emissions/MINI", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Emissions)},
		{"/admin/players", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Finance) | lottery.Roles(lottery.Compliance)},
		{"/admin/exclusions", lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Compliance)},
		{"/admin/log", lottery.Roles(lottery.Viewer)},
	}
	links := map[string]string{"/admin/": `href="/admin/"`, "/admin/emissions": `href="/admin/emissions"`, "/admin/players": `href="/admin/players"`,
		"/admin/exclusions": `href="/admin/exclusions"`, "/admin/log": `href="/admin/log"`}
	for _, r := range []lottery.Role{lottery.Viewer, lottery.Finance, lottery.Emissions, lottery.Compliance, lottery.Approver, lottery.Admin} {
		c := e.operatorClient(t, "op-"+r.String(), lottery.Roles(r))
		var nav string
		for _, p := range pages {
			resp, body := c.do("GET", p.path, nil)
			allowed := p.roles.Has(r)
			switch {
			case allowed && resp.StatusCode != 200:
				t.Errorf("%s as %s: %d, want 200", p.path, r, resp.StatusCode)
			case !allowed && (resp.StatusCode != 403 || !strings.Contains(body, "it needs one of")):
				t.Errorf("%s as %s: %d, want 403 saying the roles it needs", p.path, r, resp.StatusCode)
			}
			if strings.Contains(body, "<nav") {
				nav = body[strings.Index(body, "<nav"):strings.Index(body, "</nav>")]
				if !strings.Contains(body, `class="roles"`) || !strings.Contains(body, r.String()) {
					t.Errorf("%s as %s: the header does not show the roles", p.path, r)
				}
			}
		}
		for _, p := range pages {
			if link, ok := links[p.path]; ok && strings.Contains(nav, link) != p.roles.Has(r) {
				t.Errorf("the menu of a %s: link to %s shown %v, want %v", r, p.path, strings.Contains(nav, link), p.roles.Has(r))
			}
		}
		if _, body := c.do("GET", "/admin/emissions", nil); strings.Contains(body, `id="create-button"`) != (r == lottery.Emissions) {
			t.Errorf("the emissions page of a %s: the creation form shown %v", r, !(r == lottery.Emissions))
		}
		if _, body := c.do("GET", "/admin/exclusions", nil); strings.Contains(body, `id="register-import"`) != (r == lottery.Compliance) {
			t.Errorf("the register page of a %s: the import form shown %v", r, !(r == lottery.Compliance))
		}
		st, _ := c.uploadRegister("Nom;Prénoms;Date de naissance\nDURAND;Paul;05/05/1980\n")
		if want := map[bool]int{true: 200, false: 403}[r == lottery.Compliance]; st != want {
			t.Errorf("an import by a %s: %d, want %d", r, st, want)
		}
		resp, _ := c.form("/admin/emissions", url.Values{"id": {"E-" + r.String()}, "price": {"100"}, "blocks": {"1"}})
		if want := r == lottery.Emissions; (resp.StatusCode == 403) == want {
			t.Errorf("an emission created by a %s: %d", r, resp.StatusCode)
		}
	}
	_, total, err := e.db.RegisterPersons(context.Background(), "", 10)
	if err != nil || total != 1 {
		t.Errorf("the register after the imports: %d persons (%v), want the compliance operator's only", total, err)
	}
}

// TestBackOfficeEmergencyStop: an operator with emissions suspends the emission from its page,
// giving a reason; the page then says so and keeps the history; a player's purchase is refused
// at once; a viewer sees no form and cannot post one; a resumption sells again.
func TestBackOfficeEmergencyStop(t *testing.T) {
	e := newEnv(t, 1)
	player := e.player(t, "astrid", 10_00, 1)
	op := e.operatorClient(t, "eric", lottery.Roles(lottery.Emissions))
	viewer := e.operatorClient(t, "vera", lottery.Roles(lottery.Viewer))
	page := "/admin/emissions/MINI"
	if _, body := viewer.do("GET", page, nil); strings.Contains(body, `id="suspend-button"`) {
		t.Error("a viewer is shown the suspension form")
	}
	if resp, _ := viewer.form(page+"/suspend", url.Values{"reason": {"no"}}); resp.StatusCode != 403 {
		t.Errorf("a viewer's suspension: %d, want 403", resp.StatusCode)
	}
	if resp, body := op.form(page+"/suspend", url.Values{"reason": {"  "}}); resp.StatusCode != 400 || !strings.Contains(body, `id="status-error"`) {
		t.Errorf("a suspension without a reason: %d", resp.StatusCode)
	}
	player.api(201, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	if resp, _ := op.form(page+"/suspend", url.Values{"reason": {"a display fault"}}); resp.StatusCode != 303 {
		t.Fatalf("the suspension: %d", resp.StatusCode)
	}
	player.api(503, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	_, body := op.do("GET", page, nil)
	for _, want := range []string{`class="tag suspended"`, `id="resume-button"`, "a display fault", "eric"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of the suspended emission does not show %s", want)
		}
	}
	if _, list := viewer.do("GET", "/admin/emissions", nil); !strings.Contains(list, `class="tag suspended"`) {
		t.Error("the emissions list does not show the suspension")
	}
	if _, report := viewer.do("GET", page+"/report", nil); !strings.Contains(report, `id="report-status"`) || !strings.Contains(report, "a display fault") {
		t.Error("the emission's report does not show its status and history")
	}
	if resp, _ := op.form(page+"/suspend", url.Values{"reason": {"again"}}); resp.StatusCode != 409 {
		t.Errorf("a second suspension: %d, want 409", resp.StatusCode)
	}
	if resp, _ := op.form(page+"/resume", url.Values{}); resp.StatusCode != 303 {
		t.Fatalf("the resumption: %d", resp.StatusCode)
	}
	player.api(201, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"})
	acts := e.actions(t)
	if got := strings.Join(acts[len(acts)-2:], ", "); got != "eric emission_suspended, eric emission_resumed" {
		t.Errorf("the log ends with %s", got)
	}
}
