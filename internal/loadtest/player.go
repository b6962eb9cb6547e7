package loadtest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/wallet"
)

// Kind is a type of request the tool sends.
type Kind int

const (
	KindRegister Kind = iota // POST /api/v1/players
	KindLogin                // POST /api/v1/session
	KindLimits               // PUT /api/v1/me/limits
	KindDeposit              // POST /api/v1/deposits
	KindGame                 // POST /api/v1/games
	KindColor                // POST /api/v1/games/{id}/color
	KindReveal               // POST /api/v1/games/{id}/reveal
	KindFinish               // POST /api/v1/games/{id}/finish
	NumKinds
)

var kindNames = [NumKinds]string{
	"POST /players", "POST /session", "PUT /me/limits", "POST /deposits", "POST /games",
	"POST /games/{id}/color", "POST /games/{id}/reveal", "POST /games/{id}/finish",
}

func (k Kind) String() string {
	if k >= 0 && k < NumKinds {
		return kindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// maxBody bounds the answer the tool reads.
const maxBody = 1 << 20

var jsonContentType = []string{"application/json"}

// player is one simulated player. It is used by one goroutine at a time.
type player struct {
	r              *runner
	ep             *endpoint    // the server it plays on
	client         *http.Client // the play phase's: requests time out after cfg.Timeout
	setupClient    *http.Client // the setup's, same cookie jar: bounded by the setup's deadline
	name, password string
	rng            *mrand.Rand    // colours and clicks
	keys           *mrand.ChaCha8 // idempotency keys

	raw *httpConn // the play phase's connection, for a plain http target (conn.go)

	buf        *bytes.Buffer    // the last answer's body
	retryAfter time.Duration    // the last answer's Retry-After (setup requests), or 0
	lim        io.LimitedReader // reused to read it
	key        [36]byte         // an idempotency key
	seq        uint16           // counts keys, for the UUIDs' rand_a
	g          gameAnswer       // the last game decoded
	cnd        [42]uint8        // candidate cells of a manual game

	balance int64 // the balance the server last said, when known
	known   bool  // false after an answer that may have moved money unseen

	consecutive int // failed requests in a row
	stop        stopReason
	t           tally
}

type stopReason int

const (
	stopDone     stopReason = iota // deadline or play budget
	stopSoldOut                    // 503
	stopAborted                    // too many errors in a row
	stopCanceled                   // ctx
	stopSetup                      // setup failed
)

// tally is what one player measured; the players' tallies are merged at the end.
type tally struct {
	count, ok, transport [NumKinds]int64
	statuses             [NumKinds]map[int]int64
	lat                  [NumKinds][]time.Duration
	whole                []time.Duration // manual games, first request to last answer

	games, stakes, prizes int64
	deposits, deposited   int64
	insufficient, soldOut int64 // 402 and 503 answers to POST /games
	violations            int64
}

// errStatus is a request answered with a status the step did not expect.
type errStatus struct {
	kind   Kind
	status int
}

func (e *errStatus) Error() string { return fmt.Sprintf("%s answered %d", e.kind, e.status) }

// do sends one POST and reads its answer into p.buf. It counts the request, its latency and
// its status. A transport failure is counted and returned; a cancelled ctx is returned uncounted.
func (p *player) do(ctx context.Context, kind Kind, u string, body []byte, key bool) (int, error) {
	var keyHeader []byte
	if key {
		keyHeader = p.newKey()
	}
	var status int
	var err error
	start := time.Now()
	if p.raw != nil && kind >= KindGame {
		status, err = p.raw.post(ctx, u[len(p.raw.origin):], keyHeader, body, p.buf)
	} else {
		method := http.MethodPost
		if kind == KindLimits {
			method = http.MethodPut
		}
		status, err = p.httpDo(ctx, method, u, keyHeader, body)
	}
	d := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		p.t.count[kind]++
		p.t.transport[kind]++
		if p.r.samples.wantError() {
			p.r.samples.addError(fmt.Sprintf("%s: %v", kind, err))
		}
		return 0, err
	}
	p.t.count[kind]++
	p.t.lat[kind] = append(p.t.lat[kind], d)
	if status/100 == 2 {
		p.t.ok[kind]++
		return status, nil
	}
	m := p.t.statuses[kind]
	if m == nil {
		m = make(map[int]int64)
		p.t.statuses[kind] = m
	}
	m[status]++
	expected := kind == KindGame && (status == http.StatusPaymentRequired || status == http.StatusServiceUnavailable)
	if !expected && p.r.samples.wantError() {
		b := p.buf.Bytes()
		if len(b) > 300 {
			b = b[:300]
		}
		p.r.samples.addError(fmt.Sprintf("%s → %d: %s", kind, status, bytes.TrimSpace(b)))
	}
	return status, nil
}

// newKey makes a fresh idempotency key (Config.Keys).
func (p *player) newKey() []byte {
	var raw [16]byte
	p.keys.Read(raw[:])
	if p.r.cfg.Keys == "random" {
		hex.Encode(p.key[:], raw[:])
		return p.key[:32]
	}
	// RFC 9562 §5.7: 48 bits of Unix milliseconds, the version, 12 bits of a counter (so that a
	// player's keys keep their order within a millisecond), the variant, 62 random bits.
	ms := uint64(time.Now().UnixMilli())
	p.seq++
	raw[0], raw[1], raw[2], raw[3], raw[4], raw[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	raw[6], raw[7] = 0x70|byte(p.seq>>8&0x0f), byte(p.seq)
	raw[8] = 0x80 | raw[8]&0x3f
	hex.Encode(p.key[0:8], raw[0:4])
	hex.Encode(p.key[9:13], raw[4:6])
	hex.Encode(p.key[14:18], raw[6:8])
	hex.Encode(p.key[19:23], raw[8:10])
	hex.Encode(p.key[24:36], raw[10:16])
	p.key[8], p.key[13], p.key[18], p.key[23] = '-', '-', '-', '-'
	return p.key[:]
}

// httpDo sends a POST through net/http: the setup's requests, and every request to an https
// target.
func (p *player) httpDo(ctx context.Context, method, u string, key, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header["Content-Type"] = jsonContentType
	if key != nil {
		req.Header["Idempotency-Key"] = []string{string(key)}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	p.retryAfter = 0
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		p.retryAfter = time.Duration(secs) * time.Second
	}
	p.buf.Reset()
	p.lim.R, p.lim.N = resp.Body, maxBody
	_, err = p.buf.ReadFrom(&p.lim)
	resp.Body.Close()
	p.lim.R = nil
	return resp.StatusCode, err
}

// violation records an answer that contradicts the API or the player's own history.
func (p *player) violation(format string, args ...any) {
	p.t.violations++
	if p.r.samples.wantViolation() {
		p.r.samples.addViolation(p.name + ": " + fmt.Sprintf(format, args...))
	}
}

// retrySetup sends a setup request, retrying a 429 (too many attempts from this address) or a
// 503 (the server busy hashing passwords) after the wait the server asks for (Retry-After), or a
// growing one, until the setup's deadline. A server limits logins and sign-ups by address
// (serve --auth-per-minute): a load test from one address wants it off.
func (p *player) retrySetup(ctx context.Context, kind Kind, u string, body []byte, key bool) (int, error) {
	for attempt := 1; ; attempt++ {
		status, err := p.do(ctx, kind, u, body, key)
		if err != nil || (status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable) || attempt == maxSetupAttempts {
			return status, err
		}
		wait := p.retryAfter
		if wait <= 0 {
			wait = time.Duration(attempt) * 200 * time.Millisecond
		}
		t := time.NewTimer(min(wait, 30*time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
	}
}

// launch opens the game for the player as the operator would (wallet mode): the signed launch
// call, then its link, which sets the session cookie.
func (p *player) launch(ctx context.Context) error {
	link, err := wallet.Launch(ctx, p.setupClient, p.ep.target.base, p.r.walletKey, p.name, "loadtest", time.Now())
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return err
	}
	resp, err := p.setupClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("opening the launch link: %d", resp.StatusCode)
	}
	return nil
}

// limitsBody sets a player's weekly limits as high as they go (lottery.MaxLimit).
var limitsBody = []byte(`{"deposit_weekly":100000000,"stake_weekly":100000000}`)

// maxSetupAttempts bounds the tries of one setup request.
const maxSetupAttempts = 20

// setup registers the player, logs it in, sets its weekly limits (docs/spec/API.md 1.1: asked for before
// the first deposit and stake; as high as they go, so that they bound nothing in a run) and makes
// its first deposit.
func (p *player) setup(ctx context.Context) error {
	p.stop = stopSetup
	play := p.client
	p.client = p.setupClient
	defer func() { p.client = play }()
	if p.r.cfg.WalletSecret != nil {
		if err := p.launch(ctx); err != nil {
			return err
		}
		p.stop = stopDone
		return nil
	}
	cred, _ := json.Marshal(map[string]string{"username": p.name, "password": p.password})
	// A sign-up says who the player is (docs/spec/API.md 1.1): an adult, the same for every player.
	signUp, _ := json.Marshal(map[string]string{"username": p.name, "password": p.password,
		"last_name": "Charge", "first_names": "Test", "birth_date": "1990-01-01"})
	status, err := p.retrySetup(ctx, KindRegister, p.ep.urlPlayers, signUp, false)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return &errStatus{KindRegister, status}
	}
	if status != http.StatusCreated {
		p.violation("registration answered %d, not 201", status)
	}
	status, err = p.retrySetup(ctx, KindLogin, p.ep.urlSession, cred, false)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return &errStatus{KindLogin, status}
	}
	var who struct {
		Username string `json:"username"`
		Balance  *int64 `json:"balance"`
	}
	if err := json.Unmarshal(p.buf.Bytes(), &who); err != nil || who.Balance == nil {
		p.violation("login answer without a balance: %.200s", p.buf.Bytes())
	} else {
		p.balance, p.known = *who.Balance, true
		if who.Username != p.name {
			p.violation("login answered username %q", who.Username)
		}
	}
	status, err = p.retrySetup(ctx, KindLimits, p.ep.urlLimits, limitsBody, false)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return &errStatus{KindLimits, status}
	}
	if err := p.deposit(ctx); err != nil {
		return err
	}
	p.stop = stopDone
	return nil
}

// deposit puts cfg.Deposit on the player's account.
func (p *player) deposit(ctx context.Context) error {
	status, err := p.retrySetup(ctx, KindDeposit, p.ep.urlDeposits, p.r.depositBody, true)
	if err != nil {
		p.known = false
		return err
	}
	if status/100 != 2 {
		if status >= 500 {
			p.known = false
		}
		return &errStatus{KindDeposit, status}
	}
	if status != http.StatusCreated {
		p.violation("POST /deposits answered %d, not 201", status)
	}
	var ans struct {
		Balance *int64 `json:"balance"`
	}
	if err := json.Unmarshal(p.buf.Bytes(), &ans); err != nil || ans.Balance == nil {
		p.violation("deposit answer without a balance: %.200s", p.buf.Bytes())
		p.known = false
		return nil
	}
	amount := p.r.cfg.Deposit
	if p.known && *ans.Balance != p.balance+amount {
		p.violation("deposit of %d: balance %d, expected %d + %d", amount, *ans.Balance, p.balance, amount)
	}
	p.balance, p.known = *ans.Balance, true
	p.t.deposits++
	p.t.deposited += amount
	return nil
}

// failed notes a failed step; it reports whether the player should stop.
func (p *player) failed() bool {
	p.consecutive++
	if p.consecutive >= maxConsecutiveErrors {
		p.stop = stopAborted
		return true
	}
	return false
}

// play loops over games until the deadline, the play budget, a sold-out answer, too many
// errors or ctx says stop.
func (p *player) play(ctx context.Context) {
	manual := p.r.cfg.Mode == "manual"
	if u, err := url.Parse(p.ep.target.base); err == nil && u.Scheme == "http" {
		var cookie []string
		for _, c := range p.setupClient.Jar.Cookies(u) {
			cookie = append(cookie, c.Name+"="+c.Value)
		}
		p.raw = &httpConn{t: p.ep.target, origin: "http://" + u.Host, host: u.Host, timeout: p.r.cfg.Timeout, cookie: strings.Join(cookie, "; ")}
		defer p.raw.close()
	}
	for {
		if ctx.Err() != nil {
			p.stop = stopCanceled
			return
		}
		if !time.Now().Before(p.r.deadline) || !p.r.reservePlay() {
			p.stop = stopDone
			return
		}
		var cont bool
		if manual {
			cont = p.manualGame(ctx)
		} else {
			cont = p.autoGame(ctx)
		}
		if !cont {
			return
		}
	}
}

// gameID is a game's id, a JSON string or number (docs/spec/API.md does not say which).
type gameID string

func (id *gameID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = gameID(s)
		return nil
	}
	if string(b) == "null" {
		*id = ""
		return nil
	}
	*id = gameID(b)
	return nil
}

// gameAnswer holds the fields of a game the tool checks. Boards are decoded for manual games
// only: colours, and whether each cell is revealed.
type gameAnswer struct {
	ID      gameID `json:"id"`
	Stake   int64  `json:"stake"`
	Mode    string `json:"mode"`
	Status  string `json:"status"`
	Prize   *int64 `json:"prize"`
	Balance *int64 `json:"balance"`
	Color   *int   `json:"color"`
}

type manualAnswer struct {
	gameAnswer
	Boards []struct {
		Colors []int8      `json:"colors"`
		Cells  []*struct{} `json:"cells"`
	} `json:"boards"`
}

// create sends POST /games. It returns whether a game was sold (the answer is in p.buf) and
// whether the player should go on; on 402 it deposits and tries again, at most twice.
func (p *player) create(ctx context.Context) (sold, cont bool) {
	for tries := 0; ; tries++ {
		status, err := p.do(ctx, KindGame, p.ep.urlGames, p.r.gameBody, true)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				p.stop = stopCanceled
				return false, false
			}
			p.known = false
			return false, !p.failed()
		case status == http.StatusPaymentRequired && p.r.cfg.WalletSecret != nil:
			p.t.insufficient++ // the wallet's money: no deposit here
			return false, !p.failed()
		case status == http.StatusPaymentRequired:
			p.t.insufficient++
			if p.known && p.balance >= p.r.cfg.Stake {
				p.violation("402 not enough money with a balance of %d for a stake of %d", p.balance, p.r.cfg.Stake)
			}
			if tries == 2 {
				return false, !p.failed()
			}
			if err := p.deposit(ctx); err != nil {
				if ctx.Err() != nil {
					p.stop = stopCanceled
					return false, false
				}
				return false, !p.failed()
			}
		case status == http.StatusServiceUnavailable:
			p.t.soldOut++
			p.stop = stopSoldOut
			return false, false
		case status/100 != 2:
			if status >= 500 {
				p.known = false
			}
			return false, !p.failed()
		default:
			if status != http.StatusCreated {
				p.violation("POST /games answered %d, not 201", status)
			}
			return true, true
		}
	}
}

// checkGame checks the fields every answer about the game just sold must have. prev is the
// balance before the sale (when p.known), final whether the game must be finished. It returns
// the prize (0 if absent).
func (p *player) checkGame(g *gameAnswer, prev int64, final bool) int64 {
	stake := p.r.cfg.Stake
	if g.ID == "" {
		p.violation("game without an id")
	}
	if g.Stake != stake || g.Mode != p.r.cfg.Mode {
		p.violation("game %s: stake %d mode %q, asked %d %q", g.ID, g.Stake, g.Mode, stake, p.r.cfg.Mode)
	}
	var prize int64
	if g.Prize == nil {
		p.violation("game %s (%s) without a prize", g.ID, g.Status)
	} else if prize = *g.Prize; prize < 0 {
		p.violation("game %s: negative prize %d", g.ID, prize)
	}
	if g.Balance == nil {
		p.violation("game %s (%s) without a balance", g.ID, g.Status)
		return prize
	}
	if p.known {
		want := prev - stake + prize
		// Until the reveal ends the prize may not be credited yet (docs/spec/RULES.md §7).
		if *g.Balance != want && (final || *g.Balance != prev-stake) {
			p.violation("game %s (%s): balance %d, expected %d - %d + %d = %d", g.ID, g.Status, *g.Balance, prev, stake, prize, want)
		}
	}
	return prize
}

// autoGame plays one « Auto » game; it reports whether the player goes on.
func (p *player) autoGame(ctx context.Context) bool {
	sold, cont := p.create(ctx)
	if !sold {
		return cont
	}
	g := &p.g
	if err := decodeGame(p.buf.Bytes(), g); err != nil {
		p.violation("game answer is not a game: %v", err)
		p.known = false
		return !p.failed()
	}
	p.consecutive = 0
	prev := p.balance
	if g.Status != "finished" {
		p.violation("auto game %s answered with status %q", g.ID, g.Status)
	}
	prize := p.checkGame(g, prev, true)
	p.t.games++
	p.t.stakes += p.r.cfg.Stake
	p.t.prizes += prize
	if g.Balance != nil && p.r.cfg.WalletSecret == nil {
		p.balance, p.known = *g.Balance, true
	} else {
		p.known = false // the wallet's balance: its credits come later
	}
	return true
}

// manualGame plays one « Jouer » game: create, choose a colour, click each star of that colour
// still hidden until the game is finished. It reports whether the player goes on.
func (p *player) manualGame(ctx context.Context) bool {
	start := time.Now()
	sold, cont := p.create(ctx)
	if !sold {
		return cont
	}
	var g manualAnswer
	if err := json.Unmarshal(p.buf.Bytes(), &g); err != nil {
		p.violation("game answer is not a game: %v", err)
		p.known = false
		return !p.failed()
	}
	stake := p.r.cfg.Stake
	prev, wasKnown := p.balance, p.known
	if g.Status != "choose_color" {
		p.violation("new manual game %s has status %q", g.ID, g.Status)
	}
	if g.Color != nil {
		p.violation("new manual game %s already has colour %d", g.ID, *g.Color)
	}
	prize := p.checkGame(&g.gameAnswer, prev, false)
	p.t.stakes += stake
	p.t.prizes += prize
	id := g.ID
	gameURL := p.ep.urlGame + url.PathEscape(string(id))
	if id == "" {
		p.known = false
		return !p.failed()
	}

	// settle ends a game that went wrong through /finish, so that its prize is credited
	// now and not behind the player's back later.
	settle := func() bool {
		if ctx.Err() != nil {
			p.stop = stopCanceled
			return false
		}
		status, err := p.do(ctx, KindFinish, gameURL+"/finish", nil, true)
		p.known = false
		if err != nil || status/100 != 2 {
			return !p.failed()
		}
		var f gameAnswer
		if decodeGame(p.buf.Bytes(), &f) != nil || f.Status != "finished" || f.Balance == nil {
			p.violation("finish of game %s did not answer a finished game: %.200s", id, p.buf.Bytes())
			return !p.failed()
		}
		p.known = wasKnown
		p.checkGame(&f, prev, true)
		p.balance, p.known = *f.Balance, true
		p.t.games++
		return !p.failed()
	}

	c := p.rng.IntN(6)
	status, err := p.do(ctx, KindColor, gameURL+"/color", p.r.colorBodies[c], true)
	if err != nil || status/100 != 2 {
		return settle()
	}
	for clicks := 0; ; clicks++ {
		g = manualAnswer{}
		if err := json.Unmarshal(p.buf.Bytes(), &g); err != nil {
			p.violation("answer about game %s is not a game: %v", id, err)
			return settle()
		}
		if g.ID != id {
			p.violation("answer about game %s names game %s", id, g.ID)
		}
		if g.Color == nil || *g.Color != c {
			p.violation("game %s: colour %v, chose %d", id, g.Color, c)
		}
		if g.Prize != nil && *g.Prize != prize {
			p.violation("game %s: prize changed from %d to %d", id, prize, *g.Prize)
		}
		finished := g.Status == "finished"
		if !finished && g.Status != "playing" {
			p.violation("game %s: status %q after a colour was chosen", id, g.Status)
			return settle()
		}
		p.checkGame(&g.gameAnswer, prev, finished)
		if finished {
			if g.Balance != nil {
				p.balance, p.known = *g.Balance, true
			} else {
				p.known = false
			}
			p.consecutive = 0
			p.t.games++
			p.t.whole = append(p.t.whole, time.Since(start))
			return true
		}
		if len(g.Boards) == 0 || len(g.Boards[0].Colors) != 42 || len(g.Boards[0].Cells) != 42 {
			p.violation("game %s: board 1 is not 42 colours and 42 cells", id)
			return settle()
		}
		b := &g.Boards[0]
		n, ofColor := 0, 0
		for i, col := range b.Colors {
			if int(col) == c {
				ofColor++
				if b.Cells[i] == nil {
					p.cnd[n] = uint8(i)
					n++
				}
			}
		}
		if ofColor != 7 {
			p.violation("game %s: board 1 has %d stars of colour %d, not 7", id, ofColor, c)
		}
		if n == 0 || clicks >= 7 {
			p.violation("game %s: still %q with every star of colour %d revealed", id, g.Status, c)
			return settle()
		}
		cell := int(p.cnd[p.rng.IntN(n)])
		status, err := p.do(ctx, KindReveal, gameURL+"/reveal", p.r.revealBodies[cell], true)
		if err != nil || status/100 != 2 {
			return settle()
		}
	}
}
