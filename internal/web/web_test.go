package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"starcolor/internal/gamedef"
)

func TestRulesOfTheRegulation(t *testing.T) {
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	tables := Rules(def)
	if len(tables) != 3 {
		t.Fatalf("%d tables, want 1, 2 and 3 €", len(tables))
	}
	for i, pt := range tables {
		if pt.Return != "70" {
			t.Errorf("table at %s €: return %s %%, want 70", pt.Euros, pt.Return)
		}
		if pt.Winners != 243_912 || pt.Odds != "4,1" {
			t.Errorf("table at %s €: %d winners, 1 in %s", pt.Euros, pt.Winners, pt.Odds)
		}
		top := pt.Rows[0]
		if top.Amount != int64(i+1)*2_000_000 || top.Odds != "1\u202f000\u202f000" || !top.Composite {
			t.Errorf("table at %s €: top tier %+v", pt.Euros, top)
		}
		// The regulation's TOTAL column, and each block's total: 700 000, 1 400 000, 2 100 000 €.
		if want := []string{"700\u202f000", "1\u202f400\u202f000", "2\u202f100\u202f000"}[i]; pt.Total != want {
			t.Errorf("table at %s €: block total %q, want %q", pt.Euros, pt.Total, want)
		}
		if want := []string{"289\u202f200", "578\u202f400", "867\u202f600"}[i]; pt.Rows[3].Total != want {
			t.Errorf("table at %s €: total of the 12 € tier %q, want %q", pt.Euros, pt.Rows[3].Total, want)
		}
		if want := []string{"20\u202f000", "40\u202f000", "60\u202f000"}[i]; pt.Top != want {
			t.Errorf("table at %s €: top prize %q, want %q", pt.Euros, pt.Top, want)
		}
		// 24,100 units in a million: 1 in 41.5.
		if r := pt.Rows[3]; r.Count != 24_100 || r.Odds != "41,5" || !r.Composite {
			t.Errorf("table at %s €: tier %+v", pt.Euros, r)
		}
	}
}

func get(t *testing.T, h http.Handler, path string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestAssetsAreCachedByChecksum(t *testing.T) {
	s := Default(Options{})
	res := get(t, s, "/")
	page, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("no content security policy: %q", res.Header.Get("Content-Security-Policy"))
	}
	if !strings.Contains(string(page), `<html lang="fr">`) || !strings.Contains(string(page), "Jouer") {
		t.Error("the page is not in French by default")
	}
	links := regexp.MustCompile(`/static/[a-z.]+\?v=[0-9a-f]+`).FindAllString(string(page), -1)
	if len(links) != 2 {
		t.Fatalf("asset links %v, want the script and the style sheet", links)
	}
	for _, link := range links {
		res := get(t, s, link)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || len(body) == 0 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d, Cache-Control %q", link, res.StatusCode, res.Header.Get("Cache-Control"))
		}
		etag := res.Header.Get("ETag")
		if again := get(t, s, link, "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", link, again.StatusCode)
		}
		gz := get(t, s, link, "Accept-Encoding", "gzip")
		if gz.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s is not compressed", link)
			continue
		}
		zr, err := gzip.NewReader(gz.Body)
		if err != nil {
			t.Fatal(err)
		}
		if unzipped, _ := io.ReadAll(zr); string(unzipped) != string(body) {
			t.Errorf("%s: the compressed asset differs", link)
		}
	}
	// An old address (another checksum) is served, but not to be kept.
	if res := get(t, s, "/static/main.js?v=0"); res.StatusCode != 200 || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("stale address: %d %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	for _, p := range []string{"/nothing", "/static/nothing.js", "/static/"} {
		if res := get(t, s, p); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
}

// The page's script is ES modules by concern, loaded from one module script; each imports the
// others by their checksummed address, so that each is cached for a year and a change in any
// reaches the page's address of main.js; none imports another by a name without its version.
func TestModulesByChecksum(t *testing.T) {
	s := Default(Options{})
	page, _ := io.ReadAll(get(t, s, "/").Body)
	m := regexp.MustCompile(`<script type="module" src="(/static/main\.js\?v=[0-9a-f]{16})"></script>`).FindStringSubmatch(string(page))
	if m == nil || strings.Count(string(page), "<script") != 1 {
		t.Fatalf("the page does not load main.js as its one module script")
	}
	// A static import ends its line: `… from './x.js';` or `import './x.js';`.
	specifier := regexp.MustCompile(`(?m)(?:^import|\sfrom)\s*['"]([^'"]+)['"];$`)
	// Only main.js hands something to the console (window.starcolor).
	globals := regexp.MustCompile(`\b(?:window|globalThis|self)\.[\w$]+\s*=[^=]`)
	seen := map[string]bool{}
	var visit func(url string)
	visit = func(url string) {
		if seen[url] {
			return
		}
		seen[url] = true
		res := get(t, s, url)
		src, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: %d %q %q", url, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
			return
		}
		if !strings.HasSuffix(url, "?v="+strings.Trim(res.Header.Get("ETag"), `"`)) {
			t.Errorf("%s is served with the ETag %s", url, res.Header.Get("ETag"))
		}
		if globals.Match(src) && !strings.HasPrefix(url, "/static/main.js") {
			t.Errorf("%s sets a global: modules share what they export, nothing else", url)
		}
		for _, imp := range specifier.FindAllStringSubmatch(string(src), -1) {
			if !regexp.MustCompile(`^\./[a-z0-9]+\.js\?v=[0-9a-f]{16}$`).MatchString(imp[1]) {
				t.Errorf("%s imports %q, not a module's checksummed address", url, imp[1])
				continue
			}
			visit("/static/" + strings.TrimPrefix(imp[1], "./"))
		}
	}
	visit(m[1])
	var names []string
	for url := range seen {
		names = append(names, url[len("/static/"):strings.Index(url, "?")])
	}
	slices.Sort(names)
	want := []string{"account.js", "api.js", "board.js", "card.js", "effects.js", "game.js", "history.js", "i18n.js", "limits.js",
		"main.js", "messages.js", "page.js", "proof.js", "sound.js", "state.js", "sync.js"}
	if !slices.Equal(names, want) {
		t.Errorf("the page loads the modules %v, want %v", names, want)
	}
}

func TestEnglishFromTheCookie(t *testing.T) {
	res := get(t, Default(Options{}), "/", "Cookie", LangCookie+"=en")
	page, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(page), `<html lang="en">`) {
		t.Error("the language cookie is not followed")
	}
}

// In wallet mode the page is marked so, and leaves out what the operator does: sign-up and login,
// deposits, limits, self-exclusion and closure; the page of the mode without a wallet has them,
// and nothing of the wallet's.
func TestWalletModePageServed(t *testing.T) {
	operators := []string{`id="login-form"`, `id="signup-form"`, `id="deposit-form"`, `id="limits-open"`, `id="limits"`,
		`id="exclusion"`, `id="closure"`, "Argent fictif", `id="demo-offer"`, `id="demo-info"`}
	wallets := []string{`data-wallet="yes"`, `id="wallet-launch"`, `id="wallet-info"`, "Terminer la session"}
	for _, c := range []struct {
		wallet      bool
		has, hasNot []string
	}{{true, wallets, operators}, {false, operators, wallets}} {
		res := get(t, Default(Options{Wallet: c.wallet}), "/")
		raw, _ := io.ReadAll(res.Body)
		page := string(raw)
		for _, s := range c.has {
			if !strings.Contains(page, s) {
				t.Errorf("wallet %v: the page lacks %s", c.wallet, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(page, s) {
				t.Errorf("wallet %v: the page has %s", c.wallet, s)
			}
		}
	}
}

// The whole page stays light: under 300 KB for the HTML, the script and the style sheet.
func TestPageWeight(t *testing.T) {
	if w := Default(Options{}).Weight(); w > 300<<10 {
		t.Errorf("the page weighs %d bytes, over 300 KB", w)
	} else {
		t.Logf("page weight: %d bytes", w)
	}
}

// An unknown address gets a page, not Go's plain text: 404, in the player's language, with the
// site's style sheet and a link back to the game. Other methods on the game's address get 405.
func TestUnknownAddress(t *testing.T) {
	s := Default(Options{})
	for _, c := range []struct{ cookie, lang, words string }{
		{"", "fr", "Cette page n'existe pas"}, {LangCookie + "=en", "en", "This page does not exist"}, {LangCookie + "=xx", "fr", "Retour au jeu"},
	} {
		res := get(t, s, "/jeu/inconnu?x=1", "Cookie", c.cookie)
		body, _ := io.ReadAll(res.Body)
		page := string(body)
		if res.StatusCode != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("cookie %q: %d %s", c.cookie, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if !strings.Contains(page, `<html lang="`+c.lang+`">`) || !strings.Contains(page, c.words) ||
			!strings.Contains(page, `<a id="home" href="/">`) || !strings.Contains(page, `href="/static/app.css?v=`) {
			t.Errorf("cookie %q: the page is not the %s one with a way home:\n%s", c.cookie, c.lang, page)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("cookie %q: Content-Security-Policy %q", c.cookie, csp)
		}
	}
	req := httptest.NewRequest("POST", "/", nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	if res := get(t, s, "/static/nothing.js"); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown asset: %d", res.StatusCode)
	}
}

// The message French law asks of a gambling site, with the 18+ mark, at the foot of every page:
// the game (in both languages) and an unknown address.
func TestLegalFooter(t *testing.T) {
	const msg = "Jouer comporte des risques : endettement, isolement, dépendance. Pour être aidé, appelez le 09 74 75 13 13 (appel non surtaxé)."
	for _, c := range []struct{ path, cookie string }{{"/", ""}, {"/", LangCookie + "=en"}, {"/regles", ""}, {"/nulle-part", ""}} {
		res := get(t, Default(Options{}), c.path, "Cookie", c.cookie)
		body, _ := io.ReadAll(res.Body)
		page := string(body)
		// The page's French typography puts a no-break space before the colon: the same words.
		foot := strings.NewReplacer("\u00a0", " ", "\u202f", " ").Replace(page[max(0, strings.Index(page, `<footer class="legal">`)):])
		if !strings.Contains(page, `<footer class="legal">`) || !strings.Contains(foot, msg) || !strings.Contains(foot, ">18+</span>") {
			t.Errorf("%s (%s): no legal footer with the message and 18+", c.path, c.cookie)
		}
	}
}
