package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser starts, loads a page from a local server, runs its script and is read back.
func TestBrowserLoadsLocalPage(t *testing.T) {
	ctx := New(t, Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p id=p>static</p><script>document.getElementById("p").textContent = "scripted " + (6*7)</script>`)
	}))
	defer srv.Close()
	step, cancel := Timeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(step, chromedp.Navigate(srv.URL), chromedp.WaitVisible("#p")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(step, chromedp.Text("#p"))
	if err != nil {
		t.Fatal(err)
	}
	if got != "scripted 42" {
		t.Fatalf("page text %q, want %q", got, "scripted 42")
	}
	Screenshot(t, ctx, "browsertest-smoke")
}
