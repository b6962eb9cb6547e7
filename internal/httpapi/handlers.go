package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/lottery"
	"starcolor/internal/throttle"
)

type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// registration is a sign-up (docs/spec/API.md 1.1): the credentials and who the player is.
type registration struct {
	credentials
	LastName   string `json:"last_name"`
	FirstNames string `json:"first_names"`
	BirthDate  string `json:"birth_date"`
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) error {
	var c registration
	if _, err := readJSON(r, &c); err != nil {
		return err
	}
	p, err := s.svc.Register(r.Context(), game.Registration{Username: c.Username, Password: c.Password,
		LastName: c.LastName, FirstNames: c.FirstNames, BirthDate: c.BirthDate}, throttle.Address(r.RemoteAddr))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, map[string]string{"username": p.Username})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var c credentials
	if _, err := readJSON(r, &c); err != nil {
		return err
	}
	token, p, err := s.svc.Login(r.Context(), c.Username, c.Password, throttle.Address(r.RemoteAddr))
	if err != nil {
		return err
	}
	if old := sessionToken(r); game.IsDemoToken(old) {
		// The demo session this login's cookie replaces is forgotten now rather than at its
		// expiry; if that fails, the sweep forgets it.
		_ = s.svc.EndDemo(r.Context(), old)
	}
	s.setSession(w, r, token)
	return writeJSON(w, http.StatusOK, p)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(CookieName); err == nil {
		end := s.svc.Logout
		if game.IsDemoToken(c.Value) {
			end = s.svc.EndDemo // a demo session is forgotten with its games
		}
		if err := end(r.Context(), c.Value); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type authedFunc func(w http.ResponseWriter, r *http.Request, p game.Player) error

// auth requires a session.
func (s *Server) auth(h authedFunc) handlerFunc {
	return s.authWith(s.svc.Authenticate, h)
}

// authWrite requires a session for a call that moves money or plays, which checks its session
// again in its own transaction (game.Service.AuthenticateWrite).
func (s *Server) authWrite(h authedFunc) handlerFunc {
	return s.authWith(s.svc.AuthenticateWrite, h)
}

func (s *Server) authWith(check func(context.Context, string) (game.Player, error), h authedFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token := ""
		if c, err := r.Cookie(CookieName); err == nil {
			token = c.Value
		}
		p, err := check(r.Context(), token)
		if err != nil {
			return err
		}
		return h(w, r, p)
	}
}

// meJSON is GET /api/v1/me: the player (docs/spec/API.md) and their play session, from which every tab
// and device shows the same reality checks.
type meJSON struct {
	game.Player
	Session playSessionJSON `json:"session"`
}

// playSessionJSON is a play session as the API says it (README, openapi.json): when it began,
// the stakes, the prizes and the net result of the games sold since, in cents, and the minutes
// into it of the last reality check answered « Continuer » (0: none).
type playSessionJSON struct {
	StartedAt string `json:"started_at"`
	Staked    int64  `json:"staked"`
	Won       int64  `json:"won"`
	Net       int64  `json:"net"`
	Games     int    `json:"games"`
	Checked   int    `json:"checked_minutes"`
}

func playSessionOf(ps lottery.PlaySession) playSessionJSON {
	return playSessionJSON{StartedAt: ps.StartedAt.UTC().Format(time.RFC3339), Staked: ps.Staked, Won: ps.Won,
		Net: ps.Net(), Games: ps.Games, Checked: ps.Checked}
}

func (s *Server) me(w http.ResponseWriter, r *http.Request, p game.Player) error {
	ps, err := s.svc.PlaySession(r.Context(), p)
	if err != nil {
		return err
	}
	if p, err = s.svc.Me(r.Context(), p); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, meJSON{Player: p, Session: playSessionOf(ps)})
}

// answerRealityCheck is POST /api/v1/me/reality-check: the player answered « Continuer » to the
// check due `minutes` into their play session; 200 with the play session after it.
func (s *Server) answerRealityCheck(w http.ResponseWriter, r *http.Request, p game.Player) error {
	var b struct {
		Minutes *int `json:"minutes"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return err
	}
	if b.Minutes == nil {
		return fault.Errorf(fault.Invalid, "minutes is required")
	}
	ps, err := s.svc.AnswerRealityCheck(r.Context(), p, *b.Minutes)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]playSessionJSON{"session": playSessionOf(ps)})
}

type amountBody struct {
	Amount *int64 `json:"amount"`
}

// moneyRequest is what a money-moving request's Idempotency-Key binds: the call and the body.
func moneyRequest(r *http.Request, body []byte) game.Request {
	return game.Request{Key: r.Header.Get("Idempotency-Key"), Call: r.Method + " " + r.URL.Path, Body: body}
}

// money runs a payment (a deposit or a withdrawal) under its Idempotency-Key.
func (s *Server) money(w http.ResponseWriter, r *http.Request, p game.Player,
	pay func(ctx context.Context, p game.Player, req game.Request, amount int64) (lottery.Answer, error)) error {
	var b amountBody
	raw, err := readJSON(r, &b)
	if err != nil {
		return err
	}
	if b.Amount == nil {
		return fault.Errorf(fault.Invalid, "amount (cents) is required")
	}
	ans, err := pay(r.Context(), p, moneyRequest(r, raw), *b.Amount)
	if err != nil {
		return err
	}
	writeBody(w, ans.Status, ans.Body)
	return nil
}

// exclude is a self-exclusion (docs/spec/API.md 1.2): 201 with its end and the balance paid out, in cents;
// every session of the player ends.
func (s *Server) exclude(w http.ResponseWriter, r *http.Request, p game.Player) error {
	var b struct {
		Days *int `json:"days"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return err
	}
	if b.Days == nil {
		return fault.Errorf(fault.Invalid, "days is required: %d to %d", game.MinExclusionDays, game.MaxExclusionDays)
	}
	until, paid, err := s.svc.Exclude(r.Context(), p, *b.Days)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, exclusionAnswer{Until: until.UTC().Format(time.RFC3339), PaidOut: paid})
}

// exclusionAnswer is the answer to a self-exclusion: its end, and what was paid out.
type exclusionAnswer struct {
	Until   string `json:"until"`
	PaidOut int64  `json:"paid_out"`
}

// closeAccount closes the player's account (docs/spec/API.md 1.1), its balance paid out first: 204.
func (s *Server) closeAccount(w http.ResponseWriter, r *http.Request, p game.Player) error {
	if _, err := s.svc.Close(r.Context(), p); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// changePassword changes the player's password: 204, with the cookie of a fresh session, every
// other session of the player ended. A wrong current password is 403 wrong_password (and a
// failed login for throttling); a new one that a sign-up would refuse, 400 weak_password; in
// wallet mode, where the operator keeps its players' access, 403 wallet_mode.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, p game.Player) error {
	var b struct {
		Current *string `json:"current"`
		New     *string `json:"new"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return err
	}
	if b.Current == nil || b.New == nil {
		return fault.Errorf(fault.Invalid, "current and new (the passwords) are required")
	}
	token, err := s.svc.ChangePassword(r.Context(), p, *b.Current, *b.New, throttle.Address(r.RemoteAddr))
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// setSession gives the client the cookie of a session.
func (s *Server) setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.svc.Config().SessionLifetime.Seconds())})
}

func (s *Server) deposit(w http.ResponseWriter, r *http.Request, p game.Player) error {
	return s.money(w, r, p, s.svc.Deposit)
}

func (s *Server) withdraw(w http.ResponseWriter, r *http.Request, p game.Player) error {
	return s.money(w, r, p, s.svc.Withdraw)
}

type playBody struct {
	Stake *int64 `json:"stake"`
	Mode  string `json:"mode"`
}

// readPlay reads the body of a sale: the request its key binds, the stake and the mode.
func readPlay(r *http.Request) (req game.Request, stake int64, mode string, err error) {
	var b playBody
	raw, err := readJSON(r, &b)
	if err != nil {
		return game.Request{}, 0, "", err
	}
	stake = -1 // missing: refused with the other invalid stakes
	if b.Stake != nil {
		stake = *b.Stake
	}
	return moneyRequest(r, raw), stake, b.Mode, nil
}

func (s *Server) play(w http.ResponseWriter, r *http.Request, p game.Player) error {
	req, stake, mode, err := readPlay(r)
	if err != nil {
		return err
	}
	ans, sold, err := s.svc.Play(r.Context(), p, req, stake, mode)
	if sold != nil && s.metrics != nil {
		// Counted once the sale is committed (even if its answer then fails), and not again for
		// its retries.
		s.metrics.sale(sold.Stake, sold.Prize)
	}
	if err != nil {
		return err
	}
	writeBody(w, ans.Status, ans.Body)
	return nil
}

func (s *Server) games(w http.ResponseWriter, r *http.Request, p game.Player) error {
	limit, before, err := historyPage(r)
	if err != nil {
		return err
	}
	vs, err := s.svc.Games(r.Context(), p, limit, before)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"games": vs})
}

// historyPage reads the page of a history asked for: ?limit=N (1 to 100, 20 by default) and
// ?before=ID.
func historyPage(r *http.Request) (limit int, before int64, err error) {
	limit = 20
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return 0, 0, fault.Errorf(fault.Invalid, "limit is 1 to 100")
		}
		limit = n
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return 0, 0, fault.Errorf(fault.Invalid, "before is a game id")
		}
		before = n
	}
	return limit, before, nil
}

func (s *Server) game(w http.ResponseWriter, r *http.Request, p game.Player) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	v, err := s.svc.Game(r.Context(), p, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) move(w http.ResponseWriter, r *http.Request, p game.Player, m game.Move) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	v, err := s.svc.Move(r.Context(), p, id, m)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) color(w http.ResponseWriter, r *http.Request, p game.Player) error {
	m, err := colorMove(r)
	if err != nil {
		return err
	}
	return s.move(w, r, p, m)
}

// colorMove reads the body of a choice of colour.
func colorMove(r *http.Request) (game.Move, error) {
	var b struct {
		Color *int `json:"color"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return game.Move{}, err
	}
	if b.Color == nil {
		return game.Move{}, fault.Errorf(fault.Invalid, "color (0 to 5) is required")
	}
	return game.Move{Color: b.Color}, nil
}

func (s *Server) reveal(w http.ResponseWriter, r *http.Request, p game.Player) error {
	m, err := revealMove(r)
	if err != nil {
		return err
	}
	return s.move(w, r, p, m)
}

// revealMove reads the body of a reveal.
func revealMove(r *http.Request) (game.Move, error) {
	var b struct {
		Cell *int `json:"cell"`
	}
	if _, err := readJSON(r, &b); err != nil {
		return game.Move{}, err
	}
	if b.Cell == nil {
		return game.Move{}, fault.Errorf(fault.Invalid, "cell (0 to 41) is required")
	}
	return game.Move{Cell: b.Cell}, nil
}

func (s *Server) finish(w http.ResponseWriter, r *http.Request, p game.Player) error {
	return s.move(w, r, p, game.Move{Finish: true})
}

func (s *Server) proof(w http.ResponseWriter, r *http.Request, p game.Player) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	pr, err := s.svc.Prove(r.Context(), p, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, pr)
}

type emissionJSON struct {
	ID     string      `json:"id"`
	Price  int64       `json:"price"`
	Status string      `json:"status"`
	Blocks []blockJSON `json:"blocks"`
}

type blockJSON struct {
	Block int    `json:"block"`
	Units int    `json:"units"`
	Sold  int    `json:"sold"`
	Root  string `json:"root"`
}

func (s *Server) emissions(w http.ResponseWriter, r *http.Request) error {
	es, err := s.db.Emissions(r.Context())
	if err != nil {
		return err
	}
	statuses, err := s.db.EmissionStatuses(r.Context())
	if err != nil {
		return err
	}
	out := []emissionJSON{}
	for _, e := range es {
		ej := emissionJSON{ID: e.ID, Price: e.Price, Status: "sold_out", Blocks: []blockJSON{}}
		for _, b := range e.Blocks {
			if b.Sold < b.Units {
				ej.Status = "open"
			}
			ej.Blocks = append(ej.Blocks, blockJSON{Block: b.Index, Units: b.Units, Sold: b.Sold, Root: hexOf(b.Root[:])})
		}
		// Units left, but its sales not yet open, stopped by the operator, or ended
		// (docs/spec/OPERATOR.md). A scheduled emission's roots are public before it sells.
		if st := statuses[e.ID]; ej.Status == "open" && (st == lottery.Scheduled || st == lottery.Suspended || st == lottery.Withdrawn) {
			ej.Status = st
		}
		out = append(out, ej)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"emissions": out})
}
