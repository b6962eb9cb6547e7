package httpapi

import (
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/strictjson"
	"starcolor/internal/wallet"
)

// The operator opens the game for one of its players (seamless wallet mode,
// docs/spec/WALLET.md 1.1):
//  1. The operator sends a signed POST /api/v1/launch, stamped within 300 s of this server's
//     clock, with a nonce never used before.
//  2. The answer gives a link good once, for 60 seconds.
//  3. Opening the link sets the session cookie and goes to the game page.
//
// Every answer is signed as the answer to its request.

// EnableLaunch serves the launch call, signed with secret and checked on the clock now; the
// links are on publicURL (empty: the address the call came to).
func (s *Server) EnableLaunch(secret []byte, publicURL string, now func() time.Time) {
	s.launchKey, s.publicURL, s.launchNow = wallet.NewKey(secret), publicURL, now
	s.handle("POST "+wallet.LaunchPath, s.launch)
}

func (s *Server) launch(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return s.signedError(w, r, fault.Errorf(fault.TooLarge, "the body is larger than %d bytes", maxBody))
		}
		return s.signedError(w, r, fault.Errorf(fault.Invalid, "the body could not be read"))
	}
	// The signature binds the call: a body signed for another call (a debit, say), for another
	// time or by another secret is refused before it is read.
	if err := s.launchKey.CheckRequest(r, body, s.launchNow()); err != nil {
		return s.signed(w, r, http.StatusUnauthorized, errorBody(wallet.CodeBadSignature, err.Error()))
	}
	var b wallet.LaunchRequest
	if err := strictjson.Decode(body, &b); err != nil {
		return s.signedError(w, r, fault.Errorf(fault.InvalidRequest, "%v", err))
	}
	if b.Player == "" || b.Currency != wallet.Currency {
		return s.signedError(w, r, fault.Errorf(fault.Invalid, `the body is {"player", "operator_session", "currency": "EUR", "nonce"}`))
	}
	token, err := s.svc.Launch(r.Context(), b.Player, b.OperatorSession, b.Nonce)
	if err != nil {
		return s.signedError(w, r, err)
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
	return s.signed(w, r, http.StatusCreated, raw)
}

// signed writes a JSON answer to r with its signature, which binds it to r (the operator checks
// it).
func (s *Server) signed(w http.ResponseWriter, r *http.Request, status int, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	s.launchKey.StampAnswer(w.Header(), r, body, s.launchNow())
	w.WriteHeader(status)
	w.Write(body)
	return nil
}

// signedError writes an error as the answer to r, as writeError does, signed; an error of the
// server's own is logged.
func (s *Server) signedError(w http.ResponseWriter, r *http.Request, err error) error {
	if fault.CodeOf(err) == fault.Internal {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	status, body := errorOf(w.Header(), err)
	return s.signed(w, r, status, body)
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
		if r.URL.Path != "/" || token == "" || s.launchKey == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
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
