package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"starcolor/internal/admin"
	"starcolor/internal/browsertest"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
	"starcolor/internal/storetest"
	"starcolor/internal/web"
)

// The back office as a new operator finds it (issue 10): in French by default with an English
// switch, the emissions' queue said, a player's whole history reachable, the log drawn right, and
// no serious accessibility fault on any page. One Chromium, a tab (its own cookies) per flow.
func TestBrowserBackOffice(t *testing.T) {
	browser := browsertest.New(t, browsertest.Options{})
	for _, f := range []struct {
		name string
		run  func(*testing.T, context.Context)
	}{
		{"FrenchByDefault", testFrenchByDefault},
		{"QueuedEmission", testQueuedEmission},
		{"PlayerPaging", testPlayerPaging},
		{"LogTags", testLogTags},
		{"Accessibility", testBackOfficeAccessibility},
	} {
		t.Run(f.name, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
			t.Cleanup(cancel)
			// The tab opens with no timeout: a timeout on its first action would close it after.
			if err := chromedp.Do(ctx); err != nil {
				t.Fatalf("open a tab: %v", err)
			}
			f.run(t, ctx)
		})
	}
}

// pageText is the visible text of the page, its spaces made plain.
func pageText(t *testing.T, ctx context.Context) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.body || document.documentElement).textContent`))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\u202f", " ", "\u00a0", " ").Replace(v)), " ")
}

// Item 16: the back office speaks French by default, with the same English switch as the
// player's page; the charts too.
func testFrenchByDefault(t *testing.T, ctx context.Context) {
	e := newEnv(t, 1)
	e.player(t, "rene", 3000, 5)
	do(t, ctx, chromedp.Navigate(e.url+"/admin/"), chromedp.WaitVisible("#password"))
	if got := pageText(t, ctx); !strings.Contains(got, "Connexion des opérateurs") || !strings.Contains(got, "Mot de passe") {
		t.Fatalf("the login page is not in French: %q", got)
	}
	do(t, ctx, chromedp.SendKeys("#name", opName), chromedp.SendKeys("#password", opPassword), chromedp.Click("#login"), chromedp.WaitVisible("#fig-units"))
	english := []string{"Units sold", "Liability", "Return to players", "Sales report", "Remaining", "Blocks", "Operator log",
		"Find", "Balance", "Ledger transfers", "Games", "Every operator action", "Create an emission", "on sale", "Report of"}
	for _, page := range []struct{ path, wait, french string }{
		{"/admin/", "#fig-units", "Unités vendues"},
		{"/admin/emissions", "#emissions", "Créer une émission"},
		{"/admin/emissions/MINI", "#blocks", "Export d'audit"},
		{"/admin/emissions/MINI/report", "#report-check", "Rangs face au tableau"},
		{"/admin/players?q=rene", "#player-balance", "Mouvements du grand livre"},
		{"/admin/log", "#log", "Journal des opérateurs"},
		{"/admin/operators", "#operators", "Changer les rôles"},
	} {
		do(t, ctx, chromedp.Navigate(e.url+page.path), chromedp.WaitVisible(page.wait))
		got := pageText(t, ctx)
		if !strings.Contains(got, page.french) {
			t.Errorf("%s: no %q in %q", page.path, page.french, got)
		}
		for _, w := range english {
			if strings.Contains(got, w) {
				t.Errorf("%s: English %q on the French page", page.path, w)
			}
		}
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI/report.svg"), chromedp.WaitReady("svg"))
	if got := pageText(t, ctx); !strings.Contains(got, "Sommes révélées par unité") || strings.Contains(got, "Amounts revealed") {
		t.Errorf("the report's chart is not in French: %.200q", got)
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/sales.svg?by=day"), chromedp.WaitReady("svg"))
	if got := pageText(t, ctx); !strings.Contains(got, "Unités vendues par jour") {
		t.Errorf("the sales chart is not in French: %.200q", got)
	}
	// The switch: English, on the same page, then French again; the choice is the player page's.
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions"), chromedp.WaitVisible("#emissions"), chromedp.Click(`.top .lang button`))
	afterLoad(t, ctx, `document.documentElement.lang === 'en' && !!document.querySelector('#emissions')`)
	if got := pageText(t, ctx); !strings.Contains(got, "Create an emission") || eval[string](t, ctx, `location.pathname`) != "/admin/emissions" {
		t.Errorf("after the switch to English: %q at %s", got, eval[string](t, ctx, `location.pathname`))
	}
	// The choice is kept in the player's page's cookie, for the whole site.
	if c := eval[string](t, ctx, `document.cookie`); !strings.Contains(c, web.LangCookie+"=en") {
		t.Errorf("after the switch to English, the cookies are %q", c)
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions"), chromedp.WaitVisible("#emissions"), chromedp.Click(`.top .lang button`))
	afterLoad(t, ctx, `document.documentElement.lang === 'fr' && !!document.querySelector('#emissions')`)
	if got := pageText(t, ctx); !strings.Contains(got, "Créer une émission") {
		t.Errorf("after the switch back to French: %q", got)
	}
}

// afterLoad waits until a condition holds on the page a click is loading: while it loads, the
// page evaluated may go away under the check, which is then made again.
func afterLoad(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", cond, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// Item 13: an emission waiting behind an older open one at its price says so, and which sells.
func testQueuedEmission(t *testing.T, ctx context.Context) {
	e := newEnv(t, 1)
	storetest.CreateEmission(t, e.db, gamedeftest.Mini(t), "MINI-NEXT", 100, 1, 9)
	english(t, ctx, e)
	loginInBrowser(t, ctx, e, "")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions"), chromedp.WaitVisible("#emissions"))
	if got := text(t, ctx, `#emissions tr[data-id="MINI"] .status`); got != "on sale" {
		t.Errorf("the emission selling now: %q", got)
	}
	got := strings.Join(strings.Fields(text(t, ctx, `#emissions tr[data-id="MINI-NEXT"] .status`)), " ")
	if got != "queued after MINI, on sale now" {
		t.Errorf("the emission waiting its turn: %q, want it queued after MINI", got)
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/emissions/MINI-NEXT"), chromedp.WaitVisible("#blocks"))
	if got := strings.Join(strings.Fields(text(t, ctx, `h1 .status`)), " "); !strings.HasPrefix(got, "queued after MINI") {
		t.Errorf("the waiting emission's own page: %q", got)
	}
	browsertest.Screenshot(t, ctx, "admin-queued")
}

// Item 14: a player's page pages through all their transfers and games, and finds a game by its
// number, from the player's page or the players' one.
func testPlayerPaging(t *testing.T, ctx context.Context) {
	e := newEnv(t, 1)
	e.player(t, "paula", 30_000, 230)
	english(t, ctx, e)
	loginInBrowser(t, ctx, e, "")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/players?q=paula"), chromedp.WaitVisible("#player-balance"))
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the games' pages do not end")
		}
		ids = append(ids, eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#games tbody tr td:first-child'), td => td.textContent)`)...)
		if eval[bool](t, ctx, `!document.querySelector('#games-older')`) {
			break
		}
		do(t, ctx, chromedp.Click("#games-older"), chromedp.WaitVisible("#games"))
	}
	if len(ids) != 230 || ids[0] == ids[len(ids)-1] {
		t.Errorf("paged through %d games, want all 230", len(ids))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("game %s listed twice", id)
		}
		seen[id] = true
	}
	var transfers int
	do(t, ctx, chromedp.Click("#games-newest"), chromedp.WaitVisible("#transfers"))
	for pages := 0; ; pages++ {
		if pages > 8 {
			t.Fatal("the transfers' pages do not end")
		}
		transfers += eval[int](t, ctx, `document.querySelectorAll('#transfers tbody tr').length`)
		if eval[bool](t, ctx, `!document.querySelector('#transfers-older')`) {
			break
		}
		do(t, ctx, chromedp.Click("#transfers-older"), chromedp.WaitVisible("#transfers"))
	}
	p, _ := e.db.PlayerByName(context.Background(), "paula")
	all, _ := e.db.PlayerTransfers(context.Background(), p, 100_000, 0)
	if transfers != len(all) {
		t.Errorf("paged through %d transfers, the ledger holds %d for the player", transfers, len(all))
	}
	// A game by its number: the old one in the middle of the list.
	want := ids[150]
	do(t, ctx, chromedp.Navigate(e.url+"/admin/players"), chromedp.WaitVisible("#game-q"),
		chromedp.SendKeys("#game-q", want), chromedp.Click("#game-find"), chromedp.WaitVisible("#games"))
	found := eval[[]string](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector('#game-%s'); return r ? [r.className, String(r.getBoundingClientRect().top < innerHeight)] : []; })()`, want))
	if len(found) != 2 || found[0] != "found" {
		t.Errorf("game %s found by its number: %v", want, found)
	}
	browsertest.Screenshot(t, ctx, "admin-game-found")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/games?id=999999"), chromedp.WaitVisible(".alert"))
	if got := text(t, ctx, ".alert"); !strings.Contains(got, "No game 999999") {
		t.Errorf("an unknown game number: %q", got)
	}
}

// Item 15: the log draws each action as a small tag, a login's as any other's.
func testLogTags(t *testing.T, ctx context.Context) {
	e := newEnv(t, 1)
	english(t, ctx, e)
	loginInBrowser(t, ctx, e, "")
	do(t, ctx, chromedp.Navigate(e.url+"/admin/log"), chromedp.WaitVisible("#log"))
	sizes := eval[[][]float64](t, ctx, `Array.from(document.querySelectorAll('#log tbody tr'), r => {
		const tag = r.querySelector('.tag').getBoundingClientRect();
		return [tag.width, tag.height, r.getBoundingClientRect().height];
	})`)
	classes := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#log tbody tr'), r => r.className)`)
	if len(sizes) < 2 {
		t.Fatalf("log rows %v", classes)
	}
	for i, sz := range sizes {
		if sz[1] > 30 || sz[0] > 200 || sz[2] > 60 {
			t.Errorf("log row %s: tag %.0fx%.0f px, row %.0f px high", classes[i], sz[0], sz[1], sz[2])
		}
	}
	browsertest.Screenshot(t, ctx, "admin-log")
}

// Item 12: axe-core finds no serious or critical fault on the back office's pages.
func testBackOfficeAccessibility(t *testing.T, ctx context.Context) {
	e := newEnv(t, 1)
	e.player(t, "axelle", 3000, 5)
	// Open proposals of each kind, for the proposals page and the emissions page's own table.
	alice, err := e.db.OperatorByName(context.Background(), opName)
	if err != nil {
		t.Fatal(err)
	}
	by := lottery.OperatorAction{OperatorID: alice.ID, Name: alice.Name, CreatedAt: e.clock.Now()}
	if _, err := admin.ProposeCreation(context.Background(), e.db, e.def, admin.Creation{ID: "AXE", Price: 100, Blocks: 2, OnSaleAt: e.clock.Now().Add(time.Hour)}, by); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ProposeRoles(context.Background(), e.db, alice.ID, lottery.Roles(lottery.Viewer), by); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate(e.url+"/admin/"), chromedp.WaitVisible("#password"))
	browsertest.Axe(t, ctx, "the back office's login")
	do(t, ctx, chromedp.SendKeys("#name", opName), chromedp.SendKeys("#password", opPassword), chromedp.Click("#login"), chromedp.WaitVisible("#fig-units"))
	for _, page := range []struct{ path, wait string }{
		{"/admin/", "#fig-units"},
		{"/admin/emissions", "#emissions"},
		{"/admin/emissions/MINI", "#blocks"},
		{"/admin/emissions/MINI/report", "#report-check"},
		{"/admin/players", "#player-q"},
		{"/admin/players?q=axelle", "#player-balance"},
		{"/admin/log", "#log"},
		{"/admin/operators", "#operators"},
		{"/admin/proposals", "#open-proposals"},
		{"/admin/games/1/replay", "#replay-facts"},
		{"/admin/emissions/NOPE", ".alert"},
	} {
		do(t, ctx, chromedp.Navigate(e.url+page.path), chromedp.WaitVisible(page.wait))
		browsertest.Axe(t, ctx, "the back office's "+page.path)
	}
}
