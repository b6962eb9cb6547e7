// Package web serves the player's page of « Star Color » at "/":
//   - one HTML page, rendered once per language from html/template: the prize tables of the game
//     definition are written into it, and its words come from internal/i18n;
//   - its style sheet;
//   - its script, ES modules by concern (static/*.js, wired by main.js), with the catalogue as
//     one more, messages.js.
//
// They are embedded in the binary and served by internal/assets, named by their checksum so that
// browsers may keep them forever. The page plays on the player API of docs/spec/API.md
// (internal/httpapi, mounted under /api/). This package holds no game logic and no access to the
// store.
package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"starcolor/internal/assets"
	"starcolor/internal/gamedef"
	"starcolor/internal/i18n"
)

//go:embed static templates
var files embed.FS

// Languages are the page's languages, French first: the regulation's own words.
var Languages = i18n.Languages

// LangCookie remembers the player's language, so that the page is served in it at once.
const LangCookie = "starcolor_lang"

// Site is the player's page and its assets.
type Site struct {
	words  *i18n.Catalog
	assets *assets.Set
	pages  map[string]*assets.File // the index page per language
	lost   map[string]*assets.File // the page of unknown addresses per language
	mux    *http.ServeMux
}

// Options say how the server the page plays on runs.
type Options struct {
	// Wallet is seamless wallet mode (docs/spec/WALLET.md): the operator keeps its players' accounts, money
	// and protection, and opens the game for them with a launch link. The page then has no
	// sign-up or login, no deposit and no player-protection screens, and says so. It is told
	// once, in the page itself, so that a page opened without a session says it too.
	Wallet bool
}

// Default is the page for the game definition that new emissions use (gamedef.Default). It panics
// if that embedded definition cannot be read, which the tests of gamedef rule out.
func Default(o Options) *Site {
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		panic(err)
	}
	s, err := New(def, o)
	if err != nil {
		panic(err)
	}
	return s
}

// New builds the page for a game definition: its prize tables are the ones the rules page shows.
func New(def *gamedef.Definition, o Options) (*Site, error) {
	s := &Site{pages: map[string]*assets.File{}, lost: map[string]*assets.File{}, mux: http.NewServeMux()}
	words, err := i18n.Page()
	if err != nil {
		return nil, err
	}
	s.words = words
	static, err := assets.Dir(files, "static")
	if err != nil {
		return nil, err
	}
	if static["messages.js"], err = messages(words); err != nil {
		return nil, err
	}
	if s.assets, err = assets.New("/static/", static); err != nil {
		return nil, err
	}
	tmpl, err := template.New("index.html").Funcs(template.FuncMap{
		"asset": s.assets.URL,
		"t":     s.both,
		"text":  s.text,
		"langs": func() []string { return Languages },
	}).ParseFS(files, "templates/index.html", "templates/notfound.html")
	if err != nil {
		return nil, err
	}
	rules := Rules(def)
	for _, lang := range Languages {
		var b bytes.Buffer
		if err := tmpl.Execute(&b, map[string]any{"Lang": lang, "Rules": rules, "Wallet": o.Wallet}); err != nil {
			return nil, err
		}
		a := assets.NewFile("index.html", b.Bytes())
		a.ETag = lang + "-" + a.ETag
		s.pages[lang] = a
		var lost bytes.Buffer // a buffer of its own: the asset keeps the bytes
		if err := tmpl.ExecuteTemplate(&lost, "notfound.html", map[string]any{"Lang": lang}); err != nil {
			return nil, err
		}
		s.lost[lang] = assets.NewFile("notfound.html", lost.Bytes())
	}
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.Handle("GET /static/{name}", s.assets)
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// messages is the page's catalogue as a module for its script, both languages: the page
// switches language at once, without asking the server.
func messages(words *i18n.Catalog) ([]byte, error) {
	all := map[string]map[string]string{}
	for _, lang := range Languages {
		all[lang] = words.Texts(lang)
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "// The page's texts (internal/i18n/page.*.json), written by the server.\nexport default %s;\n", b), nil
}

// text writes the text of key in lang for an element's content, its placeholders filled with
// args (name, value, …). A key ending in _html holds markup of the catalogue's own (<b>,
// <strong>): it is written as it is, and only the values are escaped.
func (s *Site) text(lang, key string, args ...any) (template.HTML, error) {
	text, ok := s.words.Text(lang, key)
	if !ok {
		return "", fmt.Errorf("web: no text %q", key)
	}
	if len(args)%2 != 0 {
		return "", fmt.Errorf("web: the values of %q are not in pairs: %v", key, args)
	}
	markup := strings.HasSuffix(key, "_html")
	values := map[string]string{}
	for i := 0; i < len(args); i += 2 {
		v := fmt.Sprint(args[i+1])
		if markup {
			v = escapeText(v)
		}
		values[fmt.Sprint(args[i])] = v
	}
	out, err := i18n.Format(text, values)
	if err != nil {
		return "", err
	}
	if !markup {
		out = escapeText(out)
	}
	return template.HTML(out), nil
}

// both writes the text of key in every language, each in a span of its language's class: the
// style sheet shows the page's language only (html[lang=fr] .en is not displayed).
func (s *Site) both(key string, args ...any) (template.HTML, error) {
	var b strings.Builder
	for _, lang := range Languages {
		text, err := s.text(lang, key, args...)
		if err != nil {
			return "", err
		}
		b.WriteString(`<span class="` + lang + `">` + string(text) + `</span>`)
	}
	return template.HTML(b.String()), nil
}

// escapeText escapes what would be read as markup in an element's content; quotes need no
// escape there, and are left as the texts write them.
var escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// ServeHTTP serves the page, its assets, and 404 for everything else under "/".
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	s.mux.ServeHTTP(w, r)
}

// Weight is the number of bytes a browser downloads for the whole page (uncompressed): the HTML
// of the largest language and every asset.
func (s *Site) Weight() int {
	n := 0
	for _, p := range s.pages {
		n = max(n, len(p.Raw))
	}
	return n + s.assets.Weight()
}

// lang is the language the player chose (the cookie), or French.
func (s *Site) lang(r *http.Request) string {
	if c, err := r.Cookie(LangCookie); err == nil && s.pages[c.Value] != nil {
		return c.Value
	}
	return Languages[0]
}

func (s *Site) index(w http.ResponseWriter, r *http.Request) {
	lang := s.lang(r)
	h := w.Header()
	// The script, the style sheet and the SVG symbols are all the page's own: nothing else runs.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Cookie, Accept-Encoding")
	assets.Serve(w, r, s.pages[lang])
}

// notFound answers any other address with a page in the player's language that leads back to
// the game, and any other method on the game's own address with 405.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a := s.lost[s.lang(r)]
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("Content-Type", a.Type)
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", fmt.Sprint(len(a.Raw)))
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		w.Write(a.Raw)
	}
}
