package admin

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// asset is an embedded static file and the first bytes of its SHA-256, which name its version in
// its URL so that browsers may keep it forever.
type asset struct {
	body []byte
	hash string
	typ  string
}

var assets = func() map[string]asset {
	m := map[string]asset{}
	entries, _ := fs.ReadDir(staticFiles, "static")
	for _, e := range entries {
		body, _ := staticFiles.ReadFile("static/" + e.Name())
		sum := sha256.Sum256(body)
		typ := "application/octet-stream"
		switch path.Ext(e.Name()) {
		case ".css":
			typ = "text/css; charset=utf-8"
		case ".js":
			typ = "text/javascript; charset=utf-8"
		case ".svg":
			typ = "image/svg+xml"
		}
		m[e.Name()] = asset{body: body, hash: hex.EncodeToString(sum[:6]), typ: typ}
	}
	return m
}()

// assetURL is the versioned URL of a static file.
func assetURL(name string) (string, error) {
	a, ok := assets[name]
	if !ok {
		return "", fmt.Errorf("no static file %q", name)
	}
	return "/admin/static/" + a.hash + "/" + name, nil
}

func serveStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("name")]
	if !ok || a.hash != r.PathValue("hash") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.typ)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Write(a.body)
}

// pages are the parsed templates, each page with the layout, in each language.
type pages struct {
	m map[string]map[string]*template.Template
}

// funcs are the template functions that are the same in every language; langFuncs has the
// others.
var funcs = template.FuncMap{
	"asset":   assetURL,
	"ratio":   ratio,
	"hex":     func(b []byte) string { return hex.EncodeToString(b) },
	"time":    stamp,
	"seconds": stampSeconds,
	"sub":     func(a, b int) int { return a - b },
}

func mustPages() *pages {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	p := &pages{m: map[string]map[string]*template.Template{}}
	for _, lang := range languages {
		p.m[lang] = map[string]*template.Template{}
		for _, name := range names {
			base := strings.TrimSuffix(path.Base(name), ".html")
			if base == "layout" || base == "status" {
				continue
			}
			// Every page has the layout, and the parts more than one page draws.
			t := template.New("layout.html").Funcs(funcs).Funcs(langFuncs(lang))
			p.m[lang][base] = template.Must(t.ParseFS(templateFiles, "templates/layout.html", "templates/status.html", name))
		}
	}
	return p
}

// view is what the layout needs, with the page's own data.
type view struct {
	Title    string
	Nav      string // the page's section, to highlight in the menu
	Operator string
	Lang     string
	Here     string // the page's address, to come back to after switching languages
	Data     any
}

// render writes a page in the request's language; the whole page is rendered before anything is
// sent, so that a template error becomes a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page, title string, data any) {
	lang := langOf(r)
	t := s.pages.m[lang][page]
	here := safeNext(r.URL.RequestURI())
	if page == "login" {
		here = "/admin/login" // its return address stays in its own form
	}
	v := view{Title: title, Nav: page, Operator: operator(r).Name, Lang: lang, Here: here, Data: data}
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
