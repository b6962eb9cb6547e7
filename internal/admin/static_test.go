package admin_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The back office's files are served as the player's page's are (internal/assets): at the
// address its pages link, cached for a year, with an ETag a browser revalidates with, and
// compressed for a browser that accepts it; an unknown file is not found.
func TestStaticFiles(t *testing.T) {
	e := newEnv(t, 1)
	c := e.client(t)
	_, page := c.do("GET", "/admin/login", nil)
	links := regexp.MustCompile(`/admin/static/[a-z.]+\?v=[0-9a-f]{16}`).FindAllString(page, -1)
	if len(links) != 3 { // the style sheet, and the star twice (the icon and the header's)
		t.Fatalf("links %v in the login page, want the style sheet and the icon", links)
	}
	types := map[string]string{".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
	for _, link := range links {
		resp, body := c.do("GET", link, nil)
		ext := link[strings.LastIndex(link, "."):strings.Index(link, "?")]
		if resp.StatusCode != 200 || body == "" || resp.Header.Get("Content-Type") != types[ext] ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %q %q", link, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
		}
		etag := resp.Header.Get("ETag")
		if again, _ := c.do("GET", link, nil, "If-None-Match", etag); etag == "" || again.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag %q: %d, want 304", link, etag, again.StatusCode)
		}
	}
	css := links[0]
	if resp, _ := c.do("GET", css, nil, "Accept-Encoding", "gzip"); resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("%s is not compressed", css)
	}
	for _, p := range []string{"/admin/static/nothing.css", "/admin/static/"} {
		if resp, _ := c.do("GET", p, nil); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}
