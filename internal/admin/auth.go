package admin

import (
	"context"
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
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$`)

// MinPassword is the shortest operator password accepted.
const MinPassword = 10

// CreateOperator registers an operator of the back office with their roles, and logs it. A name
// already taken is fault.UsernameTaken; a name or password that does not qualify, or no role, is
// fault.Invalid.
func CreateOperator(ctx context.Context, db store.Operators, name, password string, roles lottery.Roles, a passhash.Argon2, now time.Time) error {
	if !namePattern.MatchString(name) {
		return fault.Errorf(fault.Invalid, "an operator's name is 3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	if err := (passhash.Policy{MinRunes: MinPassword}).Check(name, password); err != nil {
		return fault.Errorf(fault.Invalid, "an operator's password: %v", err)
	}
	if a == (passhash.Argon2{}) {
		a = passhash.Default
	}
	if roles == 0 {
		return fault.Errorf(fault.Invalid, "an operator has at least one role: %s", lottery.AllRoles)
	}
	_, err := db.CreateOperator(ctx, name, a.Hash(password), roles, lottery.OperatorAction{Action: "operator_created",
		Detail: logDetail{Via: "command_line", Roles: roles.String()}.encode(), CreatedAt: now})
	return err
}

// Remote is the client's address as the operators' log keeps it (RemoteAddr: behind a trusted
// load balancer, the address it forwarded), for the back office and the operator API alike.
func Remote(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

type ctxKey struct{}

// operatorOf is the logged-in operator of a request, with their roles.
type operatorOf struct {
	ID    int64
	Name  string
	Roles lottery.Roles
}

// The roles a page or an action of the back office is open to: an operator holding any of them
// may use it (docs/spec/OPERATOR.md). Reading is the viewer's; each role reads what its own
// actions need (the register for compliance, the emissions for emissions…).
const (
	reads      = lottery.Roles(lottery.Viewer)
	finance    = lottery.Roles(lottery.Finance)
	emissions  = lottery.Roles(lottery.Emissions)
	compliance = lottery.Roles(lottery.Compliance)
	approver   = lottery.Roles(lottery.Approver)
	anyRole    = lottery.AllRoles
)

// operator is the logged-in operator of a request that went through auth.
func operator(r *http.Request) operatorOf {
	o, _ := r.Context().Value(ctxKey{}).(operatorOf)
	return o
}

// auth lets a request through only with a live operator session of an operator holding one of
// roles. A page asked for without a session is sent to the login page, anything else is
// refused; outside the operator's roles, it is 403 and says which roles it needs.
func (s *Server) auth(roles lottery.Roles, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o, err := s.session(r)
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
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, o))
		if o.Roles&roles == 0 {
			s.log.Info("back office: outside the operator's roles", "operator", o.Name, "roles", o.Roles.String(), "path", r.URL.Path)
			s.render(w, r, http.StatusForbidden, "error", s.t(r, "Not allowed"),
				s.t(r, "Your roles (%s) do not open this page or action: it needs one of %s.", rolesText(langOf(r), o.Roles), rolesText(langOf(r), roles)))
			return
		}
		next(w, r)
	}
}

// session finds the request's operator by their live session (session.Manager.Check: ended if
// expired, its activity recorded).
func (s *Server) session(r *http.Request) (operatorOf, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return operatorOf{}, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	sess, err := s.sessions.Check(r.Context(), c.Value)
	if err != nil {
		return operatorOf{}, err
	}
	o, err := s.db.OperatorByID(r.Context(), sess.OwnerID)
	if fault.Is(err, fault.NotFound) || err == nil && o.Disabled {
		return operatorOf{}, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return operatorOf{ID: o.ID, Name: o.Name, Roles: o.Roles}, err
}

// record appends an action of the request's operator to the log, its detail as fields.
func (s *Server) record(ctx context.Context, r *http.Request, action string, d logDetail) error {
	return s.db.LogOperatorAction(ctx, s.line(r, action, d))
}

// line is a line of the log of an action of the request's operator, its detail as fields.
func (s *Server) line(r *http.Request, action string, d logDetail) lottery.OperatorAction {
	o := operator(r)
	return lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: action, Detail: d.encode(), Remote: Remote(r), CreatedAt: s.now()}
}

type loginData struct {
	Name, Next, Error string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, err := s.session(r); err == nil {
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
	addr := Remote(r)
	now := s.now()
	o, err := s.db.OperatorByName(r.Context(), name)
	if err != nil && !fault.Is(err, fault.NotFound) {
		s.fail(w, r, err)
		return
	}
	// A name that does not exist goes through the same checks, with a stand-in hash, and is
	// answered the same (login.Guard); failures lock a name from one address only.
	subject, from := lottery.OperatorSubject(name), throttle.Address(r.RemoteAddr)
	if err := s.guard.Check(r.Context(), subject, from, password, o.PasswordHash); err != nil {
		status, msg, detail := http.StatusUnauthorized, s.t(r, "Wrong name or password."), logDetail{Reason: "wrong_password"}
		switch fault.CodeOf(err) {
		case fault.NotLoggedIn:
			if o.ID == 0 {
				detail.Reason = "unknown_name"
			}
		case fault.TooManyAttempts:
			wait := fault.RetryAfter(err)
			status, msg = http.StatusTooManyRequests, s.t(r, "Too many failed attempts: try again in %s.", span(langOf(r), wait))
			detail = logDetail{Reason: "locked", WaitSec: int64((wait + time.Second - 1) / time.Second)}
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
		err := s.db.LogOperatorAction(r.Context(), lottery.OperatorAction{OperatorID: o.ID, Name: name, Action: "login_failed",
			Detail: detail.encode(), Remote: addr, CreatedAt: now})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		data.Error = msg
		s.render(w, r, status, "login", s.t(r, "Log in"), data)
		return
	}
	// A disabled operator is told so once the password is right, and only then.
	if o.Disabled {
		if err := s.db.LogOperatorAction(r.Context(), lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "login_failed",
			Detail: logDetail{Reason: "disabled"}.encode(), Remote: addr, CreatedAt: now}); err != nil {
			s.fail(w, r, err)
			return
		}
		data.Error = s.t(r, "This operator is disabled: an admin can enable it again.")
		s.render(w, r, http.StatusForbidden, "login", s.t(r, "Log in"), data)
		return
	}
	// Logged before the session opens: a session is never without its line in the log.
	if err := s.db.ClearLogin(r.Context(), subject, from); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.db.LogOperatorAction(r.Context(), lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "login", Remote: addr, CreatedAt: now}); err != nil {
		s.fail(w, r, err)
		return
	}
	token, err := s.sessions.Open(r.Context(), o.ID)
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
	err := s.sessions.End(r.Context(), c.Value)
	if err == nil {
		err = s.db.LogOperatorAction(r.Context(), lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "logout", Remote: Remote(r), CreatedAt: s.now()})
	}
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
	switch code := fault.CodeOf(err); {
	case errors.As(err, &tooLarge):
		status, title, msg = http.StatusRequestEntityTooLarge, s.t(r, "Too large"), s.t(r, "The request is too large.")
	case errors.Is(err, emission.ErrCorrupt):
		s.log.Error("back office: the store is damaged", "method", r.Method, "path", r.URL.Path, "err", err)
		status, title, msg = http.StatusServiceUnavailable, s.t(r, "Unavailable"), s.t(r, "The stored units do not match their commitment: restore the database from a copy, then run starcolor ledger check.")
	case errors.Is(err, emission.ErrUnsold):
		status, title, msg = http.StatusConflict, s.t(r, "Not sold yet"), s.t(r, "This block still has units for sale: its export, in sale order, would show them before they are sold (docs/spec/RULES.md §6). It can be downloaded once the block is sold out. To check a block before its sale, rebuild it from the emission's seed with starcolor emission derive.")
	case code == fault.NotFound || errors.Is(err, emission.ErrNotFound):
		s.log.Info("back office: not found", "method", r.Method, "path", r.URL.Path, "err", err)
		status, title, msg = http.StatusNotFound, s.t(r, "Not found"), s.t(r, "Nothing here answers to this address (%s).", r.URL.Path)
	case code == fault.Invalid:
		s.log.Info("back office: bad request", "method", r.Method, "path", r.URL.Path, "err", err)
		status, title, msg = http.StatusBadRequest, s.t(r, "Bad request"), s.t(r, "The request could not be understood.")
	case code == fault.Unavailable:
		s.log.Error("back office: the store", "method", r.Method, "path", r.URL.Path, "err", err, "cause", errors.Unwrap(err))
		status, title, msg = http.StatusServiceUnavailable, s.t(r, "Unavailable"), s.t(r, "The store cannot serve this now: try again shortly.")
	default:
		s.log.Error("back office", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	s.render(w, r, status, "error", title, msg)
}
