package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"

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
			writeError(w, err)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: session, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
			SameSite: http.SameSiteLaxMode, MaxAge: int(s.svc.Config().SessionLifetime.Seconds())})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
}
