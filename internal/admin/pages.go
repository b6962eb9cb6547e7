package admin

import (
	"bytes"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"path"
	"strings"
	"sync"

	"starcolor/internal/assets"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// static is the back office's style sheet, script and icon, served by checksum under
// /admin/static/ (internal/assets).
var static = func() *assets.Set {
	files, err := assets.Dir(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	set, err := assets.New("/admin/static/", files)
	if err != nil {
		panic(err)
	}
	return set
}()

// pages are the parsed templates, each page with the layout, in each language, for each set of
// roles: a page shows an operator only what their roles allow (the "can" function). A set is
// parsed the first time an operator holding it is served, and kept; every role's is parsed at
// start, so that a template error stops the server there.
type pages struct {
	names []string
	mu    sync.Mutex
	m     map[pageSet]map[string]*template.Template
}

// funcs are the template functions that are the same in every language; langFuncs has the
// others, and pages.get "can".
var funcs = template.FuncMap{
	"asset":   static.URL,
	"ratio":   ratio,
	"hex":     func(b []byte) string { return hex.EncodeToString(b) },
	"time":    stamp,
	"seconds": stampSeconds,
	"sub":     func(a, b int) int { return a - b },
	"cents":   func(x float64) int64 { return int64(math.Round(x)) },
	"add":     func(a, b int) int { return a + b },
	// seq is 0 to n-1; cell the board's cell at a row and a column; color a colour's name in
	// the regulation's words (a game's boards, replayed).
	"seq": func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	},
	"cell":  func(row, col, cols int) int { return row*cols + col },
	"color": func(c rules.Color) string { return c.String() },
}

// pageSet is what a set of parsed pages is for.
type pageSet struct {
	lang  string
	roles lottery.Roles
}

func mustPages() *pages {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	p := &pages{names: names, m: map[pageSet]map[string]*template.Template{}}
	for _, lang := range languages {
		p.get(lang, lottery.AllRoles, "login")
	}
	return p
}

// get is the page parsed for a language and a set of roles.
func (p *pages) get(lang string, roles lottery.Roles, page string) *template.Template {
	p.mu.Lock()
	defer p.mu.Unlock()
	set := pageSet{lang, roles}
	m := p.m[set]
	if m == nil {
		m = map[string]*template.Template{}
		// can says whether the operator holds one of the roles named, R[,R…].
		can := func(names string) bool {
			rs, err := lottery.ParseRoles(names)
			if err != nil {
				panic(fmt.Sprintf("admin: a template asks for the roles %q: %v", names, err))
			}
			return roles&rs != 0
		}
		for _, name := range p.names {
			base := strings.TrimSuffix(path.Base(name), ".html")
			if base == "layout" || base == "status" {
				continue
			}
			// Every page has the layout, and the parts more than one page draws.
			t := template.New("layout.html").Funcs(funcs).Funcs(langFuncs(lang)).Funcs(template.FuncMap{"can": can})
			m[base] = template.Must(t.ParseFS(templateFiles, "templates/layout.html", "templates/status.html", name))
		}
		p.m[set] = m
	}
	return m[page]
}

// view is what the layout needs, with the page's own data.
type view struct {
	Title    string
	Nav      string // the page's section, to highlight in the menu
	Operator string
	Roles    string // the operator's roles, in words
	Lang     string
	Here     string // the page's address, to come back to after switching languages
	Data     any
}

// render writes a page in the request's language; the whole page is rendered before anything is
// sent, so that a template error becomes a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page, title string, data any) {
	lang := langOf(r)
	o := operator(r)
	t := s.pages.get(lang, o.Roles, page)
	here := safeNext(r.URL.RequestURI())
	if page == "login" {
		here = "/admin/login" // its return address stays in its own form
	}
	v := view{Title: title, Nav: page, Operator: o.Name, Roles: rolesText(lang, o.Roles), Lang: lang, Here: here, Data: data}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		s.log.Error("back office: rendering", "page", page, "err", err)
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
