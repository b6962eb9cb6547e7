package loadtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// fakeServer implements, minimally but honestly, the part of docs/spec/API.md the load tool uses:
//   - players, session cookies and deposits;
//   - games: auto, and manual through colour and reveal, with a real 6×7 board of 7 stars of each
//     colour, where a milky way explodes its neighbours;
//   - idempotency keys;
//   - 402 when the balance is short, and 503 once its stock of units is sold.
type fakeServer struct {
	mu       sync.Mutex
	users    map[string]*fakeUser
	sessions map[string]*fakeUser
	games    map[int64]*fakeGame
	nextID   int64
	rng      *mrand.Rand

	stock             int64 // units left to sell; < 0: no limit
	wrongBalanceEvery int64 // > 0: every n-th auto game answers a balance one cent too high
	metrics           bool  // publish process_cpu_seconds_total at /metrics: 2 ms a game sold

	requests  atomic.Int64
	sold      int64
	prizes    int64
	cascaded  int64 // stars of the selected colour revealed by an explosion, not a click
	badClicks int64 // reveals refused with 409
}

type fakeUser struct {
	name, password string
	balance        int64
	keys           map[string]fakeReply
	keyOrder       []string
}

type fakeReply struct {
	request string
	status  int
	body    []byte
}

type fakeGame struct {
	id       int64
	owner    *fakeUser
	stake    int64
	mode     string
	status   string
	prize    int64
	color    int // -1 before the choice
	colors   [42]int
	content  [42]string // "empty", "amount", "milky_way"
	revealed [42]bool
	events   []fakeEvent
	created  time.Time
}

type fakeEvent struct {
	Board int    `json:"board"`
	Cell  int    `json:"cell"`
	Cause string `json:"cause"`
	From  *int   `json:"from,omitempty"`
}

func newFakeServer(stock int64) *fakeServer {
	return &fakeServer{
		users: map[string]*fakeUser{}, sessions: map[string]*fakeUser{}, games: map[int64]*fakeGame{},
		rng: mrand.New(mrand.NewPCG(1, 2)), stock: stock,
	}
}

func (s *fakeServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", s.cpuMetrics)
	mux.HandleFunc("POST /api/v1/players", s.register)
	mux.HandleFunc("POST /api/v1/session", s.login)
	mux.HandleFunc("PUT /api/v1/me/limits", s.auth(false, func(*fakeUser, *http.Request, []byte) (int, []byte) {
		return 200, []byte(`{"deposit_weekly":100000000,"stake_weekly":100000000,"deposited_7d":0,"staked_7d":0,"pending":[],"reality_check_minutes":null}`)
	}))
	mux.HandleFunc("POST /api/v1/deposits", s.auth(true, s.deposit))
	mux.HandleFunc("POST /api/v1/games", s.auth(true, s.newGame))
	mux.HandleFunc("POST /api/v1/games/{id}/color", s.auth(false, s.onGame(s.chooseColor)))
	mux.HandleFunc("POST /api/v1/games/{id}/reveal", s.auth(false, s.onGame(s.reveal)))
	mux.HandleFunc("POST /api/v1/games/{id}/finish", s.auth(false, s.onGame(s.finish)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

func apiError(status int, code, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return b
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, apiError(status, code, msg))
}

func readBody(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4096))
	if err != nil {
		fail(w, 413, "too_large", "The body is too large.")
		return nil, false
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			fail(w, 400, "bad_json", "The body is not the JSON expected.")
			return nil, false
		}
	}
	return raw, true
}

func (s *fakeServer) register(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Username, Password string
		LastName           string `json:"last_name"`
		FirstNames         string `json:"first_names"`
		BirthDate          string `json:"birth_date"`
	}
	if _, ok := readBody(w, r, &in); !ok {
		return
	}
	if in.LastName == "" || in.FirstNames == "" || in.BirthDate == "" {
		fail(w, 400, "invalid_identity", "A last name, first names and a birth date are needed.")
		return
	}
	if in.Username == "" || len(in.Password) < 8 {
		fail(w, 400, "invalid", "A username and a password of 8 characters or more are needed.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users[in.Username] != nil {
		fail(w, 409, "username_taken", "This username is taken.")
		return
	}
	s.users[in.Username] = &fakeUser{name: in.Username, password: in.Password, keys: map[string]fakeReply{}}
	b, _ := json.Marshal(map[string]string{"username": in.Username})
	writeJSON(w, 201, b)
}

func (s *fakeServer) login(w http.ResponseWriter, r *http.Request) {
	var in struct{ Username, Password string }
	if _, ok := readBody(w, r, &in); !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[in.Username]
	if u == nil || u.password != in.Password {
		fail(w, 401, "bad_credentials", "Unknown username or wrong password.")
		return
	}
	var sid [16]byte
	rand.Read(sid[:])
	id := hex.EncodeToString(sid[:])
	s.sessions[id] = u
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	b, _ := json.Marshal(map[string]any{"username": u.name, "balance": u.balance})
	writeJSON(w, 200, b)
}

// authed is a handler for a logged-in user, called with s.mu held; it returns the status and
// body of its answer.
type authed func(u *fakeUser, r *http.Request, body []byte) (int, []byte)

// auth checks the session cookie and, when needed, the idempotency key: a retry with the same
// key and body replays the first answer, with another body is a 422.
func (s *fakeServer) auth(needKey bool, h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, ok := readBody(w, r, nil)
		if !ok {
			return
		}
		c, err := r.Cookie("sid")
		s.mu.Lock()
		defer s.mu.Unlock()
		var u *fakeUser
		if err == nil {
			u = s.sessions[c.Value]
		}
		if u == nil {
			fail(w, 401, "not_logged_in", "Log in first.")
			return
		}
		key := r.Header.Get("Idempotency-Key")
		if key == "" && needKey {
			fail(w, 400, "idempotency_key_missing", "An Idempotency-Key header is needed.")
			return
		}
		if key != "" {
			if len(key) > 255 {
				fail(w, 400, "idempotency_key_invalid", "The key is too long.")
				return
			}
			req := r.URL.Path + "\n" + string(raw)
			if prev, ok := u.keys[key]; ok {
				if prev.request != req {
					fail(w, 422, "idempotency_key_reused", "This key was used for another request.")
					return
				}
				writeJSON(w, prev.status, prev.body)
				return
			}
			status, body := h(u, r, raw)
			if status < 500 {
				u.keys[key] = fakeReply{req, status, body}
				u.keyOrder = append(u.keyOrder, key)
				if len(u.keyOrder) > 64 { // a test server keeps only the last keys
					delete(u.keys, u.keyOrder[0])
					u.keyOrder = u.keyOrder[1:]
				}
			}
			writeJSON(w, status, body)
			return
		}
		status, body := h(u, r, raw)
		writeJSON(w, status, body)
	}
}

func (s *fakeServer) deposit(u *fakeUser, r *http.Request, raw []byte) (int, []byte) {
	var in struct{ Amount int64 }
	if json.Unmarshal(raw, &in) != nil || in.Amount <= 0 {
		return 400, apiError(400, "invalid_amount", "A positive amount of cents is needed.")
	}
	u.balance += in.Amount
	b, _ := json.Marshal(map[string]int64{"balance": u.balance})
	return 201, b
}

// drawPrize draws a prize from a small table shaped like docs/spec/RULES.md §2.
func (s *fakeServer) drawPrize(stake int64) int64 {
	x := s.rng.IntN(1000)
	switch {
	case x < 756:
		return 0
	case x < 863:
		return stake
	case x < 948:
		return 2 * stake
	case x < 976:
		return 4 * stake
	case x < 999:
		return 12 * stake
	}
	return 100 * stake
}

func (s *fakeServer) newGame(u *fakeUser, r *http.Request, raw []byte) (int, []byte) {
	var in struct {
		Stake int64
		Mode  string
	}
	if json.Unmarshal(raw, &in) != nil || in.Stake <= 0 || (in.Mode != "auto" && in.Mode != "manual") {
		return 400, apiError(400, "invalid_game", "A stake and a mode (auto or manual) are needed.")
	}
	if s.stock == 0 {
		return 503, apiError(503, "sold_out", "Every unit at this price is sold.")
	}
	if u.balance < in.Stake {
		return 402, apiError(402, "insufficient_funds", "Not enough money in the account.")
	}
	if s.stock > 0 {
		s.stock--
	}
	s.nextID++
	g := &fakeGame{id: s.nextID, owner: u, stake: in.Stake, mode: in.Mode, status: "choose_color",
		prize: s.drawPrize(in.Stake), color: -1, created: time.Now().UTC()}
	s.games[g.id] = g
	s.sold++
	s.prizes += g.prize
	u.balance -= g.stake
	if in.Mode == "auto" {
		s.setColor(g, s.rng.IntN(6))
		for i := range g.colors {
			if g.colors[i] == g.color && !g.revealed[i] {
				s.click(g, i, "auto")
			}
		}
	}
	answer := g.json(u.balance)
	if in.Mode == "auto" && s.wrongBalanceEvery > 0 && s.sold%s.wrongBalanceEvery == 0 {
		answer = g.json(u.balance + 1) // the bug the tool must catch
	}
	return 201, answer
}

// setColor deals board 1 for colour c: 7 stars of each colour in a random order; under the
// stars of colour c, the prize (if any) and a milky way.
func (s *fakeServer) setColor(g *fakeGame, c int) {
	g.color = c
	for i := range g.colors {
		g.colors[i] = i / 7
		g.content[i] = "empty"
	}
	s.rng.Shuffle(42, func(i, j int) { g.colors[i], g.colors[j] = g.colors[j], g.colors[i] })
	var mine []int
	for i, col := range g.colors {
		if col == c {
			mine = append(mine, i)
		}
	}
	s.rng.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
	g.content[mine[0]] = "milky_way"
	if g.prize > 0 {
		g.content[mine[1]] = "amount"
	}
	g.status = "playing"
}

// click reveals cell i and what it explodes; the game finishes (and the prize is credited) when
// every star of the selected colour is revealed.
func (s *fakeServer) click(g *fakeGame, i int, cause string) {
	var reveal func(i int, cause string, from *int)
	reveal = func(i int, cause string, from *int) {
		if g.revealed[i] {
			return
		}
		g.revealed[i] = true
		g.events = append(g.events, fakeEvent{Board: 1, Cell: i, Cause: cause, From: from})
		if from != nil && g.colors[i] == g.color {
			s.cascaded++
		}
		if g.content[i] == "milky_way" {
			r, c := i/7, i%7
			for dr := -1; dr <= 1; dr++ {
				for dc := -1; dc <= 1; dc++ {
					if rr, cc := r+dr, c+dc; (dr != 0 || dc != 0) && rr >= 0 && rr < 6 && cc >= 0 && cc < 7 {
						reveal(rr*7+cc, "milky_way", &i)
					}
				}
			}
		}
	}
	reveal(i, cause, nil)
	for j, col := range g.colors {
		if col == g.color && !g.revealed[j] {
			return
		}
	}
	g.status = "finished"
	g.owner.balance += g.prize
}

func (s *fakeServer) onGame(h func(g *fakeGame, raw []byte) (int, []byte)) authed {
	return func(u *fakeUser, r *http.Request, raw []byte) (int, []byte) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		g := s.games[id]
		if g == nil || g.owner != u {
			return 404, apiError(404, "unknown_game", "No such game.")
		}
		return h(g, raw)
	}
}

func (s *fakeServer) chooseColor(g *fakeGame, raw []byte) (int, []byte) {
	var in struct{ Color *int }
	if json.Unmarshal(raw, &in) != nil || in.Color == nil || *in.Color < 0 || *in.Color > 5 {
		return 400, apiError(400, "invalid_color", "A colour from 0 to 5 is needed.")
	}
	if g.status != "choose_color" {
		return 409, apiError(409, "wrong_step", "The colour is already chosen.")
	}
	s.setColor(g, *in.Color)
	return 200, g.json(g.owner.balance)
}

func (s *fakeServer) reveal(g *fakeGame, raw []byte) (int, []byte) {
	var in struct{ Cell *int }
	if json.Unmarshal(raw, &in) != nil || in.Cell == nil || *in.Cell < 0 || *in.Cell > 41 {
		return 400, apiError(400, "invalid_cell", "A cell from 0 to 41 is needed.")
	}
	i := *in.Cell
	if g.status != "playing" || g.colors[i] != g.color || g.revealed[i] {
		s.badClicks++
		return 409, apiError(409, "wrong_step", "This star cannot be revealed.")
	}
	s.click(g, i, "click")
	return 200, g.json(g.owner.balance)
}

func (s *fakeServer) finish(g *fakeGame, raw []byte) (int, []byte) {
	if g.status == "choose_color" {
		s.setColor(g, s.rng.IntN(6))
	}
	for i := range g.colors {
		if g.status != "finished" && g.colors[i] == g.color && !g.revealed[i] {
			s.click(g, i, "auto")
		}
	}
	return 200, g.json(g.owner.balance)
}

// json is the game as docs/spec/API.md shows it.
func (g *fakeGame) json(balance int64) []byte {
	type cell struct {
		Kind   string `json:"kind"`
		Amount int64  `json:"amount,omitempty"`
	}
	type board struct {
		Colors []int   `json:"colors"`
		Cells  []*cell `json:"cells"`
	}
	out := map[string]any{
		"id": g.id, "stake": g.stake, "mode": g.mode, "status": g.status, "prize": g.prize,
		"balance": balance, "created_at": g.created.Format(time.RFC3339),
		"unit":  map[string]any{"emission": "E1", "block": 0, "index": g.id - 1},
		"color": nil, "boards": []board{}, "events": g.events,
	}
	if g.events == nil {
		out["events"] = []fakeEvent{}
	}
	if g.color >= 0 {
		out["color"] = g.color
		b := board{Colors: g.colors[:], Cells: make([]*cell, 42)}
		for i, ok := range g.revealed {
			if ok {
				c := &cell{Kind: g.content[i]}
				if c.Kind == "amount" {
					c.Amount = g.prize
				}
				b.Cells[i] = c
			}
		}
		out["boards"] = []board{b}
	}
	b, _ := json.Marshal(out)
	return b
}

// cpuMetrics publishes, when asked to, a CPU time of exactly 2 ms a game sold, in Prometheus'
// text format.
func (s *fakeServer) cpuMetrics(w http.ResponseWriter, r *http.Request) {
	if !s.metrics {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	sold := s.sold
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	io.WriteString(w, "# HELP go_goroutines Number of goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines 12\n"+
		"# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n# TYPE process_cpu_seconds_total counter\n"+
		"process_cpu_seconds_total "+strconv.FormatInt(2*sold, 10)+"e-3\n")
}
