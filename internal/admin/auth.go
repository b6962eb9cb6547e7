package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$`)

// MinPassword is the shortest operator password accepted.
const MinPassword = 10

// CreateOperator registers an operator of the back office, and logs it. A name already taken is
// fault.UsernameTaken; a name or password that does not qualify is fault.Invalid.
func CreateOperator(ctx context.Context, db *sqlite.DB, name, password string, a passhash.Argon2, now time.Time) error {
	if !namePattern.MatchString(name) {
		return fault.Errorf(fault.Invalid, "an operator's name is 3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	if err := (passhash.Policy{MinRunes: MinPassword}).Check(name, password); err != nil {
		return fault.Errorf(fault.Invalid, "an operator's password: %v", err)
	}
	if a == (passhash.Argon2{}) {
		a = passhash.Default
	}
	hash := a.Hash(password)
	return db.Update(ctx, func(tx *sqlite.Tx) error {
		o, err := tx.CreateOperator(name, hash, now)
		if err != nil {
			return err
		}
		return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "operator_created",
			Detail: "from the command line", CreatedAt: now})
	})
}

// remote is the client's address as the logs show it (the server faces clients directly; no
// proxy header is trusted).
func remote(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

type ctxKey struct{}

// operator is the logged-in operator of a request that went through auth.
func operator(r *http.Request) sqlite.OperatorSession {
	o, _ := r.Context().Value(ctxKey{}).(sqlite.OperatorSession)
	return o
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// auth lets a request through only with a live operator session; a page asked for without one
// is sent to the login page, anything else is refused.
func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, hash, err := s.session(r)
		if err != nil {
			if !fault.Is(err, fault.NotLoggedIn) {
				s.fail(w, r, err)
				return
			}
			if r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, "/status") {
				http.Redirect(w, r, "/admin/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, s.t(r, "Not logged in."), http.StatusUnauthorized)
			return
		}
		now := s.now()
		if now.Sub(time.Unix(sess.LastSeen, 0)) > time.Minute {
			// Activity is recorded at most once a minute: enough for the idle timeout.
			if err := s.db.Update(r.Context(), func(tx *sqlite.Tx) error { return tx.TouchOperatorSession(hash, now) }); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		next(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, sess)))
	}
}

// session finds the request's live session, ending it if it has expired.
func (s *Server) session(r *http.Request) (sqlite.OperatorSession, []byte, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return sqlite.OperatorSession{}, nil, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	hash := tokenHash(c.Value)
	sess, err := s.db.OperatorSession(r.Context(), hash)
	if err != nil {
		return sess, nil, err
	}
	now := s.now()
	if now.Sub(time.Unix(sess.LastSeen, 0)) > s.cfg.SessionIdle || now.Sub(time.Unix(sess.CreatedAt, 0)) > s.cfg.SessionLifetime {
		if err := s.db.Update(r.Context(), func(tx *sqlite.Tx) error { return tx.DeleteOperatorSession(hash) }); err != nil {
			return sess, nil, err
		}
		return sess, nil, fault.Errorf(fault.NotLoggedIn, "session expired")
	}
	return sess, hash, nil
}

// record appends an action of the request's operator to the log.
func (s *Server) record(ctx context.Context, r *http.Request, action, detail string) error {
	o := operator(r)
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: o.OperatorID, Name: o.Name, Action: action,
			Detail: detail, Remote: remote(r), CreatedAt: s.now()})
	})
}

type loginData struct {
	Name, Next, Error string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, _, err := s.session(r); err == nil {
		http.Redirect(w, r, "/admin/", http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", s.t(r, "Log in"), loginData{Next: safeNext(r.URL.Query().Get("next"))})
}

// safeNext keeps a return address only if it is a page of the back office.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/admin/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/admin/"
	}
	return next
}

// maxForm bounds the body of a form of the back office; its forms are a few fields.
const maxForm = 16 << 10

// readForm reads a posted form, at most maxForm bytes: a larger one is an error that fail answers
// with 413 (PostFormValue alone would drop the error and read the form as empty).
func readForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	err := r.ParseForm()
	var tooLarge *http.MaxBytesError
	if err != nil && !errors.As(err, &tooLarge) {
		return fault.Errorf(fault.Invalid, "The form could not be read: %v.", err)
	}
	return err
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	password := r.PostFormValue("password")
	data := loginData{Name: name, Next: safeNext(r.PostFormValue("next"))}
	addr := remote(r)
	now := s.now()
	o, err := s.db.OperatorByName(r.Context(), name)
	if err != nil && !fault.Is(err, fault.NotFound) {
		s.fail(w, r, err)
		return
	}
	// A name that does not exist goes through the same checks, with a stand-in hash, and is
	// answered the same (login.Guard); failures lock a name from one address only.
	subject, from := sqlite.OperatorSubject(name), throttle.Address(r.RemoteAddr)
	if err := s.guard.Check(r.Context(), subject, from, password, o.PasswordHash); err != nil {
		status, msg, detail := http.StatusUnauthorized, s.t(r, "Wrong name or password."), "wrong password"
		switch fault.CodeOf(err) {
		case fault.NotLoggedIn:
			if o.ID == 0 {
				detail = "unknown name"
			}
		case fault.TooManyAttempts:
			wait := fault.RetryAfter(err)
			status, msg, detail = http.StatusTooManyRequests, s.t(r, "Too many failed attempts: try again in %s.", wait), err.Error()
			w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		case fault.Unavailable:
			w.Header().Set("Retry-After", strconv.Itoa(int(fault.RetryAfter(err)/time.Second)))
			data.Error = s.t(r, "The server is busy checking passwords: try again in a moment.")
			s.render(w, r, http.StatusServiceUnavailable, "login", s.t(r, "Log in"), data)
			return
		default:
			s.fail(w, r, err)
			return
		}
		err := s.db.Update(r.Context(), func(tx *sqlite.Tx) error {
			return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: o.ID, Name: name, Action: "login_failed",
				Detail: detail, Remote: addr, CreatedAt: now})
		})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data.Error = msg
		s.render(w, r, status, "login", s.t(r, "Log in"), data)
		return
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	err = s.db.Update(r.Context(), func(tx *sqlite.Tx) error {
		if err := tx.ClearLogin(subject, from); err != nil {
			return err
		}
		if err := tx.DeleteExpiredOperatorSessions(now.Add(-s.cfg.SessionIdle), now.Add(-s.cfg.SessionLifetime)); err != nil {
			return err
		}
		if err := tx.CreateOperatorSession(tokenHash(token), o.ID, now); err != nil {
			return err
		}
		return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "login", Remote: addr, CreatedAt: now})
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: "/admin", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: int(s.cfg.SessionLifetime / time.Second)})
	http.Redirect(w, r, data.Next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Cookie(CookieName)
	o := operator(r)
	err := s.db.Update(r.Context(), func(tx *sqlite.Tx) error {
		if err := tx.DeleteOperatorSession(tokenHash(c.Value)); err != nil {
			return err
		}
		return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: o.OperatorID, Name: o.Name, Action: "logout", Remote: remote(r), CreatedAt: s.now()})
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/admin", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/admin/login", http.StatusSeeOther)
}

// fail answers an unexpected error: logged in full, told in short, in the operator's language.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, title, msg := http.StatusInternalServerError, s.t(r, "Error"), s.t(r, "Something went wrong; the error is in the server's log.")
	var tooLarge *http.MaxBytesError
	switch code := fault.CodeOf(sqlite.AsFault(err)); {
	case errors.As(err, &tooLarge):
		status, title, msg = http.StatusRequestEntityTooLarge, s.t(r, "Too large"), s.t(r, "The request is too large.")
	case errors.Is(err, emission.ErrCorrupt):
		s.log.Error("back office: the store is damaged", "method", r.Method, "path", r.URL.Path, "err", err)
		status, title, msg = http.StatusServiceUnavailable, s.t(r, "Unavailable"), s.t(r, "The stored units do not match their commitment (%s): restore the database from a copy, then run starcolor ledger check.", err.Error())
	case code == fault.NotFound || errors.Is(err, emission.ErrNotFound):
		status, title, msg = http.StatusNotFound, s.t(r, "Not found"), s.t(r, "Nothing here answers to this address (%s).", err.Error())
	case code == fault.Invalid:
		status, title, msg = http.StatusBadRequest, s.t(r, "Bad request"), s.t(r, "The request could not be understood (%s).", err.Error())
	case code == fault.Unavailable:
		s.log.Error("back office: the store", "method", r.Method, "path", r.URL.Path, "err", err, "cause", errors.Unwrap(sqlite.AsFault(err)))
		status, title, msg = http.StatusServiceUnavailable, s.t(r, "Unavailable"), s.t(r, "The store cannot serve this now: try again shortly.")
	default:
		s.log.Error("back office", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	s.render(w, r, status, "error", title, msg)
}
