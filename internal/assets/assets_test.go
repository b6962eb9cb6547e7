package assets

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Result(), string(body)
}

func mustSet(t *testing.T, prefix string, files map[string]string) *Set {
	t.Helper()
	m := map[string][]byte{}
	for n, s := range files {
		m[n] = []byte(s)
	}
	s, err := New(prefix, m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A file is served at the address URL gives, cached for a year there; under another version it
// is served but revalidated; with its ETag it is not sent again; compressed to who accepts it.
func TestServedByChecksum(t *testing.T) {
	css := strings.Repeat("body { color: #fff; }\n", 50)
	s := mustSet(t, "/admin/static/", map[string]string{"admin.css": css, "star.svg": "<svg/>"})
	url, err := s.URL("admin.css")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^/admin/static/admin\.css\?v=[0-9a-f]{16}$`).MatchString(url) {
		t.Fatalf("URL %q", url)
	}
	res, body := get(t, s, "GET", url)
	if res.StatusCode != 200 || body != css || res.Header.Get("Content-Type") != "text/css; charset=utf-8" ||
		res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("GET %s: %d %q %q %q", url, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"), res.Header.Get("Vary"))
	}
	etag := res.Header.Get("ETag")
	if res, _ := get(t, s, "GET", url, "If-None-Match", etag); res.StatusCode != http.StatusNotModified {
		t.Errorf("with its ETag %s: %d, want 304", etag, res.StatusCode)
	}
	res, body = get(t, s, "GET", url, "Accept-Encoding", "gzip, br")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not compressed: %v", res.Header)
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != css {
		t.Error("the compressed file differs")
	}
	if res, body := get(t, s, "GET", "/admin/static/admin.css?v=0"); res.StatusCode != 200 || body != css || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("another version: %d %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	if res, body := get(t, s, "HEAD", url); res.StatusCode != 200 || body != "" || res.Header.Get("Content-Length") != "1100" {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %q", res.StatusCode, len(body), res.Header.Get("Content-Length"))
	}
	if res, _ := get(t, s, "GET", "/admin/static/star.svg"); res.Header.Get("Content-Type") != "image/svg+xml" || res.Header.Get("Content-Encoding") != "" {
		t.Errorf("star.svg: %q %q", res.Header.Get("Content-Type"), res.Header.Get("Content-Encoding"))
	}
	for _, p := range []string{"/admin/static/", "/admin/static/nothing.css", "/admin/static/x/admin.css", "/elsewhere/admin.css"} {
		if res, _ := get(t, s, "GET", p); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
	if _, err := s.URL("nothing.css"); err == nil {
		t.Error("a URL for a file the set does not hold")
	}
}

// Modules import each other by their checksummed addresses, in every form of a static import,
// and nothing else in their source is rewritten; a change in a module changes the address of
// every module that imports it, directly or not, and of no other.
func TestModulesImportByChecksum(t *testing.T) {
	files := map[string]string{
		"main.js": "import { a } from './a.js';\nimport {\n  b,\n  c as d,\n} from \"./b.js\";\nimport './c.js';\nconst s = './b.js';\nmain(a, b, d, s);\n",
		"a.js":    "import b, * as all from './b.js';\nexport * from './c.js';\nexport { b };\nexport const a = 1;\n",
		"b.js":    "export default 2;\nexport const b = 2, c = 3;\n// import './nothing.js' is a comment\n",
		"c.js":    "export const e = 4;\n",
		"d.js":    "export const lone = 5;\n",
	}
	s := mustSet(t, "/static/", files)
	v := func(s *Set, name string) string { f, _ := s.File(name); return f.ETag }
	_, main := get(t, s, "GET", "/static/main.js")
	want := "import { a } from './a.js?v=" + v(s, "a.js") + "';\nimport {\n  b,\n  c as d,\n} from \"./b.js?v=" + v(s, "b.js") +
		"\";\nimport './c.js?v=" + v(s, "c.js") + "';\nconst s = './b.js';\nmain(a, b, d, s);\n"
	if main != want {
		t.Errorf("main.js served as\n%s\nwant\n%s", main, want)
	}
	_, a := get(t, s, "GET", "/static/a.js")
	if want := "import b, * as all from './b.js?v=" + v(s, "b.js") + "';\nexport * from './c.js?v=" + v(s, "c.js") + "';\nexport { b };\n"; !strings.HasPrefix(a, want) {
		t.Errorf("a.js served as\n%s", a)
	}
	if _, b := get(t, s, "GET", "/static/b.js"); b != files["b.js"] {
		t.Errorf("b.js, which imports nothing, served as\n%s", b)
	}
	if f, _ := s.File("main.js"); !bytes.Equal(f.Raw, []byte(main)) || NewFile("main.js", []byte(main)).ETag != f.ETag {
		t.Error("main.js's version is not the checksum of what is served")
	}

	files["c.js"] = "export const e = 40;\n"
	s2 := mustSet(t, "/static/", files)
	for name, changed := range map[string]bool{"c.js": true, "a.js": true, "main.js": true, "b.js": false, "d.js": false} {
		if (v(s, name) != v(s2, name)) != changed {
			t.Errorf("c.js changed: the version of %s changed %v, want %v", name, !changed, changed)
		}
	}
}

// A set is refused whose modules import in a circle, or import what is not one of its modules.
func TestModulesRefused(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		err   string
	}{
		{map[string]string{"a.js": "import './b.js';\n", "b.js": "import { a } from './c.js';\n", "c.js": "export * from './a.js';\n"},
			"circle: a.js → b.js → c.js → a.js"},
		{map[string]string{"a.js": "import './a.js';\n"}, "circle: a.js → a.js"},
		{map[string]string{"a.js": "import './b.js';\n"}, `a.js imports "./b.js"`},
		{map[string]string{"a.js": "import x from 'lodash';\n"}, `a.js imports "lodash"`},
		{map[string]string{"a.js": "import x from '/static/b.js';\n", "b.js": ""}, `a.js imports "/static/b.js"`},
		{map[string]string{"a.js": "import x from '../b.js';\n", "b.js": ""}, `a.js imports "../b.js"`},
		{map[string]string{"a.js": "import s from './b.css';\n", "b.css": ""}, `a.js imports "./b.css"`},
	} {
		m := map[string][]byte{}
		for n, s := range c.files {
			m[n] = []byte(s)
		}
		if _, err := New("/static/", m); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want one with %q", c.files, err, c.err)
		}
	}
}
