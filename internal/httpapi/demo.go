package httpapi

import (
	"context"
	"net/http"

	"starcolor/internal/game"
	"starcolor/internal/throttle"
)

// Demo play (docs/spec/API.md 1.2): POST /api/v1/demo opens a demo session, in the same cookie as a
// player's; its token is known for a demo one by its prefix (game.IsDemoToken), and each call
// of the API then answers as for a player with play money, or refuses (403 demo_mode).

// demoFunc is a call's handler for a demo session.
type demoFunc func(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error

// sessionToken is the session cookie's token ("" without one).
func sessionToken(r *http.Request) string {
	if c, err := r.Cookie(CookieName); err == nil {
		return c.Value
	}
	return ""
}

// demoOr serves a call with h, or with d when its session is a demo one; a nil d refuses demo
// sessions with fault.DemoMode, once the session is found live (an ended one is a 401, as a
// player's is).
func (s *Server) demoOr(h handlerFunc, d demoFunc) handlerFunc {
	return s.demoWith(s.svc.AuthenticateDemo, h, d)
}

// demoWriteOr is demoOr for a demo play or move, which checks its session in its own write
// (game.Service.AuthenticateDemoWrite).
func (s *Server) demoWriteOr(h handlerFunc, d demoFunc) handlerFunc {
	return s.demoWith(s.svc.AuthenticateDemoWrite, h, d)
}

func (s *Server) demoWith(check func(context.Context, string) (game.DemoPlayer, error), h handlerFunc, d demoFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token := sessionToken(r)
		if !game.IsDemoToken(token) {
			return h(w, r)
		}
		p, err := check(r.Context(), token)
		if err != nil {
			return err
		}
		if d == nil {
			return game.ErrDemoMode
		}
		return d(w, r, p)
	}
}

// startDemo opens a demo session: 201 {"demo": true, "balance"} and its cookie, which lasts as
// long as a demo session may.
func (s *Server) startDemo(w http.ResponseWriter, r *http.Request) error {
	token, p, err := s.svc.StartDemo(r.Context(), throttle.Address(r.RemoteAddr), sessionToken(r))
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.svc.Config().Demo.Lifetime.Seconds())})
	return writeJSON(w, http.StatusCreated, p)
}

func (s *Server) demoMe(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error {
	return writeJSON(w, http.StatusOK, p)
}

func (s *Server) demoPlay(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error {
	req, stake, mode, err := readPlay(r)
	if err != nil {
		return err
	}
	ans, err := s.svc.PlayDemo(r.Context(), p, req, stake, mode, throttle.Address(r.RemoteAddr))
	if err != nil {
		return err
	}
	writeBody(w, ans.Status, ans.Body)
	return nil
}

func (s *Server) demoGames(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error {
	limit, before, err := historyPage(r)
	if err != nil {
		return err
	}
	vs, err := s.svc.DemoGames(r.Context(), p, limit, before)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"demo": true, "games": vs})
}

func (s *Server) demoGame(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	v, err := s.svc.DemoGame(r.Context(), p, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// demoMoveOf is the handler of a move of a demo game, its body read by read.
func (s *Server) demoMoveOf(read func(*http.Request) (game.Move, error)) demoFunc {
	return func(w http.ResponseWriter, r *http.Request, p game.DemoPlayer) error {
		id, err := pathID(r)
		if err != nil {
			return err
		}
		m, err := read(r)
		if err != nil {
			return err
		}
		v, err := s.svc.DemoMove(r.Context(), p, id, m, throttle.Address(r.RemoteAddr))
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, v)
	}
}

// finishMove is the move of a finish, which has no body.
func finishMove(*http.Request) (game.Move, error) { return game.Move{Finish: true}, nil }
