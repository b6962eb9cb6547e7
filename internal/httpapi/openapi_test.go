package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"starcolor/internal/game"
	"starcolor/internal/journal"
	"starcolor/internal/sqlite"
	"starcolor/internal/storetest"
)

// The OpenAPI tests keep openapi.json in step with the server: the same operations as the routes
// New registers, every $ref resolving, a success answer per operation, the shared error answers,
// and the session cookie declared exactly on the calls that answer 401 without one.

// methods are the OpenAPI path item fields that are operations.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

type operation struct {
	route string // "METHOD /path", as the server's patterns
	path  string
	op    map[string]any
}

// loadOpenAPI parses the embedded document into generic JSON.
func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(OpenAPI()))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	if dec.More() {
		t.Fatal("openapi.json holds more than one JSON value")
	}
	return doc
}

// operations lists the document's operations, sorted by route.
func operations(t *testing.T, doc map[string]any) []operation {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok || len(paths) == 0 {
		t.Fatal("openapi.json has no paths")
	}
	var ops []operation
	for path, v := range paths {
		item, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("path %s is not an object", path)
		}
		for _, m := range methods {
			if o, ok := item[m]; ok {
				op, ok := o.(map[string]any)
				if !ok {
					t.Fatalf("%s %s is not an object", m, path)
				}
				ops = append(ops, operation{route: strings.ToUpper(m) + " " + path, path: path, op: op})
			}
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.route, b.route) })
	return ops
}

// routeServer is a server built only to list its routes: New registers handlers and does not
// touch the service or the database, and the metrics read the database only at a scrape. It
// serves the operator's launch call too, as a server in wallet mode does (EnableLaunch only
// registers it), and the journal's calls, as every server does (EnableJournal only registers
// them): openapi.json describes every call a server may serve.
func routeServer() *Server {
	s := New(nil, nil, slog.New(slog.DiscardHandler), NewMetrics(nil, nil))
	s.EnableLaunch([]byte("secret"), "", time.Now)
	s.EnableJournal(nil, "")
	s.EnableOperators(OperatorConfig{})
	return s
}

func TestOpenAPIRoutesMatchServer(t *testing.T) {
	routes := routeServer().Routes()
	if slices.Contains(routes, "GET /metrics") {
		t.Fatal("the player API lists GET /metrics: the metrics have a listener of their own")
	}
	if !slices.Contains(routes, "POST /api/v1/launch") {
		t.Fatal("a server in wallet mode does not list POST /api/v1/launch")
	}
	if slices.Contains(New(nil, nil, slog.New(slog.DiscardHandler), nil).Routes(), "POST /api/v1/launch") {
		t.Error("a server without a wallet lists POST /api/v1/launch")
	}
	want := map[string]bool{}
	for _, r := range routes {
		if want[r] {
			t.Errorf("Routes() lists %q twice", r)
		}
		want[r] = true
	}
	got := map[string]bool{}
	for _, o := range operations(t, loadOpenAPI(t)) {
		got[o.route] = true
		if !want[o.route] {
			t.Errorf("openapi.json describes %q, which the server does not serve", o.route)
		}
	}
	for r := range want {
		if !got[r] {
			t.Errorf("the server serves %q, which openapi.json does not describe", r)
		}
	}
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadOpenAPI(t)
	if v, _ := doc["openapi"].(string); !regexp.MustCompile(`^3\.1\.\d+$`).MatchString(v) {
		t.Errorf("openapi is %q, want 3.1.x", v)
	}
	info, _ := doc["info"].(map[string]any)
	if s, _ := info["title"].(string); s == "" {
		t.Error("info.title is missing")
	}
	if s, _ := info["version"].(string); s == "" {
		t.Error("info.version is missing")
	}

	// Every $ref is local and resolves.
	walk(doc, "#", func(where string, node map[string]any) {
		ref, ok := node["$ref"]
		if !ok {
			return
		}
		s, ok := ref.(string)
		if !ok || !strings.HasPrefix(s, "#/components/") {
			t.Errorf("%s: $ref %v is not a local component", where, ref)
			return
		}
		if _, err := resolve(doc, s); err != nil {
			t.Errorf("%s: $ref %s: %v", where, s, err)
		}
	})

	pathParam := regexp.MustCompile(`\{([^}]+)\}`)
	ids := map[string]string{}
	for _, o := range operations(t, doc) {
		for _, field := range []string{"summary", "description", "operationId"} {
			if s, _ := o.op[field].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s: no %s", o.route, field)
			}
		}
		if id, _ := o.op["operationId"].(string); id != "" {
			if other, dup := ids[id]; dup {
				t.Errorf("%s: operationId %q is also %s's", o.route, id, other)
			}
			ids[id] = o.route
		}

		responses, _ := o.op["responses"].(map[string]any)
		success := false
		for status, r := range responses {
			code, err := strconv.Atoi(status)
			if err != nil || code < 100 || code > 599 {
				t.Errorf("%s: response key %q is not an HTTP status", o.route, status)
				continue
			}
			success = success || code/100 == 2
			resp := deref(t, doc, r)
			if s, _ := resp["description"].(string); s == "" {
				t.Errorf("%s %d: the response has no description", o.route, code)
			}
			if code >= 400 {
				if ref, _ := r.(map[string]any)["$ref"].(string); !strings.HasPrefix(ref, "#/components/responses/") {
					t.Errorf("%s %d: an error answer should reference a shared response", o.route, code)
				}
				if schemaRef(resp) != "#/components/schemas/Error" {
					t.Errorf("%s %d: an error answer's body should be the Error schema", o.route, code)
				}
			}
		}
		if !success {
			t.Errorf("%s: no 2xx response", o.route)
		}

		// Every {name} of the path is a declared, required path parameter.
		declared := map[string]bool{}
		item := doc["paths"].(map[string]any)[o.path].(map[string]any)
		for _, list := range []any{item["parameters"], o.op["parameters"]} {
			ps, _ := list.([]any)
			for _, p := range ps {
				param := deref(t, doc, p)
				if param["in"] == "path" {
					if param["required"] != true {
						t.Errorf("%s: path parameter %v is not required", o.route, param["name"])
					}
					declared[fmt.Sprint(param["name"])] = true
				}
			}
		}
		for _, m := range pathParam.FindAllStringSubmatch(o.path, -1) {
			if !declared[m[1]] {
				t.Errorf("%s: path parameter {%s} is not declared", o.route, m[1])
			}
			delete(declared, m[1])
		}
		for name := range declared {
			t.Errorf("%s: declares path parameter %q, which the path does not have", o.route, name)
		}
	}

	// The money-moving POSTs take a required Idempotency-Key of 1 to 255 characters.
	for _, route := range []string{"POST /api/v1/deposits", "POST /api/v1/withdrawals", "POST /api/v1/games"} {
		found := false
		for _, o := range operations(t, doc) {
			if o.route != route {
				continue
			}
			ps, _ := o.op["parameters"].([]any)
			for _, p := range ps {
				param := deref(t, doc, p)
				if param["in"] == "header" && param["name"] == "Idempotency-Key" && param["required"] == true {
					schema, _ := param["schema"].(map[string]any)
					found = fmt.Sprint(schema["minLength"]) == "1" && fmt.Sprint(schema["maxLength"]) == "255"
				}
			}
		}
		if !found {
			t.Errorf("%s: no required Idempotency-Key header of 1 to 255 characters", route)
		}
	}
}

// TestOpenAPISecurity checks that the calls declaring the session cookie or the operator's token
// are exactly those the server answers 401 without one, probing a server with a real (empty)
// database.
func TestOpenAPISecurity(t *testing.T) {
	doc := loadOpenAPI(t)
	components, _ := doc["components"].(map[string]any)
	schemes, _ := components["securitySchemes"].(map[string]any)
	cookie := ""
	for name, v := range schemes {
		s, _ := v.(map[string]any)
		if s["type"] == "apiKey" && s["in"] == "cookie" && s["name"] == CookieName {
			cookie = name
		}
	}
	if cookie == "" {
		t.Fatalf("no security scheme for the %s cookie (apiKey in cookie)", CookieName)
	}
	if doc["security"] != nil {
		t.Error("the document declares a top-level security requirement; declare it per operation")
	}

	ctx := t.Context()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "starcolor.db"), storetest.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log := slog.New(slog.DiscardHandler)
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(game.New(db, game.DefaultConfig, time.Now, log), db, log, NewMetrics(db, nil))
	srv.EnableJournal(journal.NewLog(db, key), key.VerifierKey)
	srv.EnableOperators(OperatorConfig{Store: db})
	h := srv.Handler()

	for _, o := range operations(t, doc) {
		method, path, _ := strings.Cut(o.route, " ")
		// No cookie and no body: an authenticated call refuses before reading anything.
		req := httptest.NewRequestWithContext(ctx, method, strings.ReplaceAll(path, "{id}", "1"), nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		needsSession := rec.Code == http.StatusUnauthorized

		declares := false
		reqs, _ := o.op["security"].([]any)
		for _, r := range reqs {
			if m, _ := r.(map[string]any); m != nil {
				_, ok := m[cookie]
				_, token := m["operatorToken"]
				declares = declares || ok || token
			}
		}
		responses, _ := o.op["responses"].(map[string]any)
		_, lists401 := responses["401"]
		switch {
		case needsSession && !declares:
			t.Errorf("%s needs a session (401 without a cookie) but does not declare the %s security", o.route, cookie)
		case needsSession && !lists401:
			t.Errorf("%s needs a session but lists no 401 answer", o.route)
		case !needsSession && declares:
			t.Errorf("%s declares the %s security but answers %d without a session", o.route, cookie, rec.Code)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := routeServer().Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/openapi.json", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") ||
		rec.Header().Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("GET /api/openapi.json: %d %s %q", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	}
	if !bytes.Equal(rec.Body.Bytes(), OpenAPI()) {
		t.Error("GET /api/openapi.json does not serve openapi.json")
	}
}

// walk calls f on every JSON object of v, with its JSON pointer.
func walk(v any, where string, f func(where string, node map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(where, v)
		for k, c := range v {
			walk(c, where+"/"+escapePointer(k), f)
		}
	case []any:
		for i, c := range v {
			walk(c, where+"/"+strconv.Itoa(i), f)
		}
	}
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// resolve follows a local JSON pointer ("#/a/b") in doc.
func resolve(doc map[string]any, ref string) (any, error) {
	var cur any = doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not inside an object", tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return cur, nil
}

// deref is v, or what its $ref points at.
func deref(t *testing.T, doc map[string]any, v any) map[string]any {
	t.Helper()
	m, _ := v.(map[string]any)
	for i := 0; m != nil && i < 8; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		target, err := resolve(doc, ref)
		if err != nil {
			t.Errorf("$ref %s: %v", ref, err)
			return map[string]any{}
		}
		m, _ = target.(map[string]any)
	}
	if m == nil {
		return map[string]any{}
	}
	return m
}

// schemaRef is the $ref of a response's application/json schema.
func schemaRef(resp map[string]any) string {
	content, _ := resp["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	ref, _ := schema["$ref"].(string)
	return ref
}
