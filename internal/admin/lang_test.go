package admin_test

import (
	"net/url"
	"strings"
	"testing"
)

// The back office and the player's page keep one language choice: English chosen in the back
// office serves the page in English, and French chosen again serves both in French. The back
// office names the cookie itself, without importing the page (cmd/starcolor's
// TestProductionImports), so this is what holds the two names together.
func TestLanguageSharedWithThePage(t *testing.T) {
	e := newEnv(t, 1)
	c := e.frenchClient(t)
	lang := func(path string) string {
		t.Helper()
		_, body := c.do("GET", path, nil)
		_, rest, ok := strings.Cut(body, `<html lang="`)
		if !ok {
			t.Fatalf("%s: no <html lang>: %.200s", path, body)
		}
		return rest[:2]
	}
	if p, o := lang("/"), lang("/admin/login"); p != "fr" || o != "fr" {
		t.Fatalf("by default, the page in %q and the back office in %q; want French", p, o)
	}
	for _, want := range []string{"en", "fr"} {
		if res, _ := c.form("/admin/lang", url.Values{"lang": {want}, "next": {"/admin/login"}}); res.StatusCode != 303 {
			t.Fatalf("choosing %s: %s", want, res.Status)
		}
		if p, o := lang("/"), lang("/admin/login"); p != want || o != want {
			t.Errorf("%s chosen in the back office: the page in %q, the back office in %q", want, p, o)
		}
	}
}
