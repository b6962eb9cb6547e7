package admin_test

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

// frenchFault is an ordinary space where French typography wants a no-break one: before « : »,
// « ; », « ! », « ? » and « », and after « «, which would let a line break there.
var frenchFault = regexp.MustCompile(`[ \t\n]+[:;!?»]|«[ \t\n]+`)

// tags and what is not text are left out of a page's text.
var (
	codeBlocks = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>`)
	tags       = regexp.MustCompile(`(?s)<[^>]*>`)
)

// The back office's pages in French put no-break spaces where French typography puts them: in
// the texts, and in what the code puts together (the log's details, the register's refusals).
func TestFrenchPunctuation(t *testing.T) {
	e := newEnv(t, 1)
	e.player(t, "rene", 3000, 5)
	c := e.frenchClient(t)
	_, login := c.do("GET", "/admin/login", nil)
	check := func(path, body string) {
		t.Helper()
		text := html.UnescapeString(tags.ReplaceAllString(codeBlocks.ReplaceAllString(body, ""), " "))
		for _, m := range frenchFault.FindAllStringIndex(text, -1) {
			from, to := max(0, m[0]-40), min(len(text), m[1]+20)
			t.Errorf("%s: an ordinary space in %q", path, strings.Join(strings.Fields(text[from:to]), " "))
		}
	}
	check("/admin/login", login)
	c.login(opName, opPassword)
	// A refused register puts a refusal on the page and in the log, worded by the code.
	_, refused := c.upload("liste.csv", "Martin;Jeanne;01/01/1990\nDurand;Paul\nDupont;Jean;31/02/1980\n")
	check("/admin/exclusions (refused)", refused)
	for _, path := range []string{"/admin/", "/admin/emissions", "/admin/emissions/MINI", "/admin/emissions/MINI/report",
		"/admin/players?q=rene", "/admin/exclusions", "/admin/log"} {
		resp, body := c.do("GET", path, nil)
		if resp.StatusCode == 303 { // a player found by name: their page
			path = resp.Header.Get("Location")
			resp, body = c.do("GET", path, nil)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		check(path, body)
	}
}
