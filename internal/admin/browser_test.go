package admin_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"starcolor/internal/admin"
	"starcolor/internal/audit"
	"starcolor/internal/browsertest"
	"starcolor/internal/lottery"
	"starcolor/internal/web"
)

// group writes a count as the English pages do, with commas between thousands.
func group(v int64) string {
	s := fmt.Sprint(v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// text reads an element's text once it is visible.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	step, cancel := browsertest.Timeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(step, chromedp.WaitVisible(sel)); err != nil {
		t.Fatalf("waiting for %s: %v", sel, err)
	}
	v, err := chromedp.Run(step, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	step, cancel := browsertest.Timeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(step, steps...); err != nil {
		t.Fatal(err)
	}
}

// poll waits until a script's value is true.
func poll(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	step, cancel := browsertest.Timeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(step, chromedp.Poll[bool](expr)); err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// english makes the browser read the back office in English, as these tests were written.
func english(t *testing.T, ctx context.Context, e *env) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: web.LangCookie, Value: "en", URL: e.url + "/"}); err != nil {
		t.Fatal(err)
	}
}

func loginInBrowser(t *testing.T, ctx context.Context, e *env, shot string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(e.url+"/admin/"), chromedp.WaitVisible("#password"))
	if shot != "" {
		browsertest.Screenshot(t, ctx, shot)
	}
	do(t, ctx,
		chromedp.SendKeys("#name", opName),
		chromedp.SendKeys("#password", opPassword),
		chromedp.Click("#login"),
		chromedp.WaitVisible("#fig-units"),
	)
}

// An operator, in a desktop window, looks at the sales after games played through the API,
// creates an emission and watches it complete, downloads a block's export and checks it, finds a
// player; what the pages show is checked against the database.
func TestBrowserOperatorDesktop(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Options{})
	e := newEnv(t, 2)
	english(t, ctx, e)
	e.player(t, "zoe", 5000, 30)
	e.player(t, "zack", 2000, 12)
	bg := context.Background()

	// A wrong password first: the page says so.
	do(t, ctx, chromedp.Navigate(e.url+"/admin/login"), chromedp.WaitVisible("#password"),
		chromedp.SendKeys("#name", opName), chromedp.SendKeys("#password", "not it at all"), chromedp.Click("#login"))
	if got := text(t, ctx, "#login-error"); got != "Wrong name or password." {
		t.Fatalf("login error %q", got)
	}
	loginInBrowser(t, ctx, e, "admin-desktop-login")

	// Sales: the figures are the database's.
	totals, err := e.db.SalesTotals(bg)
	if err != nil || len(totals) != 1 {
		t.Fatalf("sales totals %v, %v", totals, err)
	}
	if got, want := text(t, ctx, "#fig-units"), group(totals[0].Units); got != want || totals[0].Units != 42 {
		t.Errorf("units sold shown %q, want %q (42)", got, want)
	}
	if got, want := text(t, ctx, "#fig-prizes"), admin.Money("en", totals[0].Prizes); got != want {
		t.Errorf("prizes shown %q, want %q", got, want)
	}
	open, err := e.db.OpenBlockSales(bg)
	if err != nil {
		t.Fatal(err)
	}
	table, _ := e.def.Table(100)
	var liability int64
	for _, b := range open {
		liability += table.Payout() - b.Prizes
	}
	if got, want := text(t, ctx, "#fig-liability"), admin.Money("en", liability); got != want {
		t.Errorf("liability shown %q, want %q", got, want)
	}
	poll(t, ctx, `document.getElementById("sales-chart").complete && document.getElementById("sales-chart").naturalWidth > 0`)
	browsertest.Screenshot(t, ctx, "admin-desktop-sales")

	// Propose an emission of three blocks; another operator approves it and watches it complete.
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions"), chromedp.WaitVisible("#emission-id"),
		chromedp.SetValue("#emission-id", "NEW-1"), chromedp.SetValue("#emission-blocks", "3"))
	browsertest.Screenshot(t, ctx, "admin-desktop-emissions")
	do(t, ctx, chromedp.Click("#create-button"), chromedp.WaitVisible(`#open-proposals tr[data-proposal]`))
	if got := text(t, ctx, "#open-proposals tbody tr"); !containsAll(got, "Create NEW-1: 3 blocks at", opName) {
		t.Errorf("the creation proposed: %q", got)
	}
	if _, err := e.db.Emission(bg, "NEW-1"); err == nil {
		t.Fatal("NEW-1 was made before its approval")
	}
	if err := admin.CreateOperator(bg, e.db, "bob", opPassword, lottery.AllRoles, fast, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Click(`form.who button`), chromedp.WaitVisible("#password"), chromedp.SendKeys("#name", "bob"), chromedp.SendKeys("#password", opPassword),
		chromedp.Click("#login"), chromedp.WaitVisible("form.who"))
	do(t, ctx, chromedp.Navigate(e.url+"/admin/proposals"), chromedp.WaitVisible("#open-proposals button.approve"),
		chromedp.Click("#open-proposals button.approve"), chromedp.WaitVisible(`#job[data-state="done"]`))
	if got := text(t, ctx, "#job-state"); got != "Created." {
		t.Fatalf("creation state %q", got)
	}
	if got := text(t, ctx, "#job-percent"); got != "100" {
		t.Errorf("creation percent %q, want 100", got)
	}
	browsertest.Screenshot(t, ctx, "admin-desktop-created")
	created, err := e.db.Emission(bg, "NEW-1")
	if err != nil || len(created.Blocks) != 3 {
		t.Fatalf("emission NEW-1 in the database: %v", err)
	}
	do(t, ctx, chromedp.Click("#job-next a"), chromedp.WaitVisible("#blocks"))
	roots, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#blocks code.root")].map(c => c.textContent)`))
	if err != nil || len(roots) != 3 {
		t.Fatalf("roots shown %v, %v", roots, err)
	}
	for i, b := range created.Blocks {
		if roots[i] != fmt.Sprintf("%x", b.Root) {
			t.Errorf("block %d root shown %s, stored %x", i, roots[i], b.Root)
		}
	}
	// A block exports once sold out: another player buys the rest of MINI's block 0.
	e.player(t, "yann", 100_000, e.def.BlockUnits-42)
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions"), chromedp.WaitVisible(`#emissions tr[data-id="NEW-1"]`))

	// Download block 0 of MINI through the page's link, and check it on its own.
	dir := t.TempDir()
	mini, err := e.db.Emission(bg, "MINI")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, ctx, `#emissions tr[data-id="MINI"] small`), group(int64(mini.Sold()))+" / "+group(int64(mini.Units())); got != want {
		t.Errorf("MINI sold shown %q, want %q", got, want)
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI"), chromedp.WaitVisible("#blocks"))
	if got, want := text(t, ctx, `#blocks tr[data-block="0"] .remaining`), group(int64(mini.Blocks[0].Units-mini.Blocks[0].Sold)); got != want {
		t.Errorf("block 0 remaining shown %q, want %q", got, want)
	}
	browsertest.Screenshot(t, ctx, "admin-desktop-emission")
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	do(t, ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true)})
		return err
	}), chromedp.Click(`#blocks tr[data-block="0"] a.export`))
	var file string
	deadline := time.After(20 * time.Second)
	for ev, err := range progress {
		if err != nil {
			t.Fatal(err)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			file = filepath.Join(dir, ev.GUID)
			break
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatal("download cancelled")
		}
		select {
		case <-deadline:
			t.Fatal("download did not complete")
		default:
		}
	}
	checkExport(t, file, mini.Blocks[0].Root, mini.Blocks[0].Units)

	// The report, with its charts.
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI/report"), chromedp.WaitVisible("#report-check"))
	if got := text(t, ctx, "#report-check"); got != "exact" {
		t.Errorf("report check %q, want exact", got)
	}
	poll(t, ctx, `[...document.images].every(i => i.complete && i.naturalWidth > 0)`)
	browsertest.Screenshot(t, ctx, "admin-desktop-report")

	// Find a player by the start of the name; then the exact name opens the player.
	do(t, ctx, chromedp.Navigate(e.url+"/admin/players"), chromedp.WaitVisible("#player-q"),
		chromedp.SendKeys("#player-q", "z"), chromedp.Click("#player-find"), chromedp.WaitVisible("#players"))
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#players tbody a")].map(a => a.textContent)`))
	if err != nil || strings.Join(names, ",") != "zack,zoe" {
		t.Fatalf("players found %v, %v", names, err)
	}
	do(t, ctx, chromedp.Click(`#players a`), chromedp.WaitVisible("#player-balance"))
	zack, err := e.db.PlayerByName(bg, "zack")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text(t, ctx, "#player-balance"), admin.Money("en", zack.Balance); got != want {
		t.Errorf("zack's balance shown %q, want %q", got, want)
	}
	transfers, err := e.db.PlayerTransfers(bg, zack, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#transfers tbody tr")].map(r => r.className + " " + r.querySelector(".amount").textContent)`))
	if err != nil || len(rows) != len(transfers) {
		t.Fatalf("transfers shown %d (%v), want %d", len(rows), err, len(transfers))
	}
	for i, tr := range transfers {
		sign := "+"
		if tr.From == zack.AccountID {
			sign = "-"
		}
		if want := tr.Kind + " " + sign + admin.Money("en", tr.Amount); rows[i] != want {
			t.Errorf("transfer %d shown %q, want %q", i, rows[i], want)
		}
	}
	if got := text(t, ctx, "#player-games"); got != "12" {
		t.Errorf("zack's games shown %q, want 12", got)
	}
	browsertest.Screenshot(t, ctx, "admin-desktop-player")

	do(t, ctx, chromedp.Navigate(e.url+"/admin/log"), chromedp.WaitVisible("#log"))
	browsertest.Screenshot(t, ctx, "admin-desktop-log")
	want := []string{"alice operator_created", "alice login_failed", "alice login", "alice proposal_made", "bob operator_created", "alice logout",
		"bob login", "bob proposal_approved", "bob emission_create", "bob emission_created", "bob export", "bob player_viewed"}
	if got := e.actions(t); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("log %q, want %q", got, want)
	}
}

// checkExport reads a downloaded gzip export: its header, and the RFC 6962 root of its lines
// against the block's stored root. (audit.Verify checks exports of the real definitions only;
// TestExportVerifies runs it on a real block.)
func checkExport(t *testing.T, file string, root audit.Hash, units int) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the export is not gzip: %v", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatal("empty export")
	}
	var h audit.Header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		t.Fatalf("header: %v", err)
	}
	var leaves []audit.Hash
	for sc.Scan() {
		if _, err := audit.ParseLine(sc.Bytes()); err != nil {
			t.Fatalf("line %d: %v", len(leaves)+2, err)
		}
		leaves = append(leaves, audit.LeafHash(sc.Bytes()))
	}
	if len(leaves) != units || h.Units != units {
		t.Fatalf("export holds %d units (header %d), want %d", len(leaves), h.Units, units)
	}
	if got := audit.Root(leaves); got != root || h.Root != fmt.Sprintf("%x", root) {
		t.Fatalf("export root %x (header %s), stored %x", got, h.Root, root)
	}
}

// The same operator on a phone-sized window: the pages fit and read.
func TestBrowserOperatorPhone(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Options{Mobile: true})
	e := newEnv(t, 1)
	english(t, ctx, e)
	e.player(t, "yann", 3000, 20)
	loginInBrowser(t, ctx, e, "admin-phone-login")
	for _, page := range []struct{ path, wait, shot string }{
		{"/admin/", "#sales-chart", "admin-phone-sales"},
		{"/admin/emissions", "#emissions", "admin-phone-emissions"},
		{"/admin/emissions/MINI", "#blocks", "admin-phone-emission"},
		{"/admin/players?q=yann", "#player-balance", "admin-phone-player"},
		{"/admin/log", "#log", "admin-phone-log"},
	} {
		do(t, ctx, chromedp.Navigate(e.url+page.path), chromedp.WaitVisible(page.wait))
		poll(t, ctx, `[...document.images].every(i => i.complete)`)
		// Nothing wider than the screen but the tables' own scrolling boxes.
		width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		if err != nil || width > 390 {
			t.Errorf("%s is %d px wide on a 390 px screen (%v)", page.path, width, err)
		}
		browsertest.Screenshot(t, ctx, page.shot)
		if page.wait == "#player-balance" {
			p, _ := e.db.PlayerByName(context.Background(), "yann")
			if got := text(t, ctx, "#player-balance"); got != admin.Money("en", p.Balance) {
				t.Errorf("balance %q, want %q", got, admin.Money("en", p.Balance))
			}
		}
	}
}
