package httpapi

import (
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/wallet"
)

// The operator opens the game for one of its players (seamless wallet mode, WALLET.md): a signed
// POST /api/v1/launch gives a link good once for 60 seconds; opening it sets the session cookie
// and goes to the game page.

// EnableLaunch serves the launch call, signed with secret; the links are on publicURL (empty: the
// address the call came to).
func (s *Server) EnableLaunch(secret []byte, publicURL string) {
	s.launchSecret, s.publicURL = secret, publicURL
	s.handle("POST /api/v1/launch", s.launch)
}

func (s *Server) launch(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return fault.Errorf(fault.Invalid, "the body could not be read")
	}
	if !wallet.Verify(s.launchSecret, body, r.Header.Get(wallet.SignatureHeader)) {
		return s.signed(w, http.StatusUnauthorized, errorBody(wallet.CodeBadSignature, "the signature (X-Signature) is missing or wrong"))
	}
	var b struct {
		Player          string `json:"player"`
		OperatorSession string `json:"operator_session"`
		Currency        string `json:"currency"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Player == "" || b.Currency != wallet.Currency {
		return s.signed(w, http.StatusBadRequest, errorBody(string(fault.Invalid), `the body is {"player", "operator_session", "currency": "EUR"}`))
	}
	token, err := s.svc.Launch(r.Context(), b.Player, b.OperatorSession)
	if err != nil {
		return err
	}
	base := s.publicURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	link := base + "/?launch=" + url.QueryEscape(token)
	raw, _ := json.Marshal(map[string]string{"url": link})
	return s.signed(w, http.StatusCreated, raw)
}

// signed writes a JSON answer with its signature (the operator checks it).
func (s *Server) signed(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(wallet.SignatureHeader, wallet.Sign(s.launchSecret, body))
	w.WriteHeader(status)
	w.Write(body)
	return nil
}

func errorBody(code, message string) []byte {
	raw, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	return raw
}

// Launches opens the launch links (/?launch=TOKEN): the session cookie, then the game page; page
// serves everything else.
func (s *Server) Launches(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("launch")
		if r.URL.Path != "/" || token == "" || s.launchSecret == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			page.ServeHTTP(w, r)
			return
		}
		session, err := s.svc.OpenLaunch(r.Context(), token)
		if err != nil {
			if strings.Contains(r.Header.Get("Accept"), "text/html") {
				writeLaunchPage(w, err) // a player's browser: a page, with the same status
				return
			}
			writeError(w, err)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: session, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
			SameSite: http.SameSiteLaxMode, MaxAge: int(s.svc.Config().SessionLifetime.Seconds())})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
}

// launchPage is what a browser shows for a launch link that does not open: used already,
// expired, or the server unable to open it now. In French, then English, as the game page.
var launchPage = template.Must(template.New("launch").Parse(`<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Star Color</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1d1d2c}h1{font-size:1.4rem}</style>
</head><body><main>
<h1>Star Color</h1>
{{if .Used}}<p>Ce lien de jeu a déjà servi ou a expiré.</p>{{else}}<p>Le jeu n’a pas pu s’ouvrir pour l’instant.</p>{{end}}
<p>Rouvrez Star Color depuis le site de votre opérateur.</p>
<p lang="en">{{if .Used}}This game link was used already, or has expired.{{else}}The game could not open just now.{{end}} Open Star Color again from your operator’s site.</p>
</main></body></html>
`))

func writeLaunchPage(w http.ResponseWriter, err error) {
	code := fault.CodeOf(err)
	if wait := fault.RetryAfter(err); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// Nothing in the page comes from the request: its own style only.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.WriteHeader(statusOf[code])
	launchPage.Execute(w, struct{ Used bool }{code == fault.NotLoggedIn})
}
