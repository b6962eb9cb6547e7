package httpapi_test

import (
	"testing"
	"time"
)

// meView is GET /api/v1/me with the play session of the reality checks.
type meView struct {
	Username string `json:"username"`
	Balance  int64  `json:"balance"`
	Session  struct {
		StartedAt string `json:"started_at"`
		Staked    int64  `json:"staked"`
		Won       int64  `json:"won"`
		Net       int64  `json:"net"`
		Games     int    `json:"games"`
		Checked   int    `json:"checked_minutes"`
	} `json:"session"`
}

// The play session through the API, on both stores:
//   - it begins at the player's first session still live;
//   - a second device joins it, with the same figures;
//   - a reality check answered on one device holds on the other;
//   - bad answers are refused and change nothing;
//   - once the first device logs out, the play session is the second's.
func TestPlaySessionFigures(t *testing.T) {
	srv := newTestServer(t, 1)
	phone := srv.client(t)
	phone.signUp("solène", 10_00)
	start := srv.clock.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	var me meView
	phone.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Username == "" || me.Session.StartedAt != start || me.Session.Staked != 0 || me.Session.Won != 0 ||
		me.Session.Net != 0 || me.Session.Games != 0 || me.Session.Checked != 0 {
		t.Fatalf("GET /api/v1/me at the start: %+v, want the session begun at %s and nothing played", me, start)
	}
	var won int64
	for range 3 {
		srv.clock.Advance(time.Minute)
		var g struct{ Prize int64 }
		phone.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, phone.key())
		won += g.Prize
	}
	srv.clock.Advance(time.Minute)
	desk := srv.client(t)
	desk.login("solène")
	for _, c := range []*client{phone, desk} {
		c.must(200, &me, "GET", "/api/v1/me", nil, "")
		if me.Session.StartedAt != start || me.Session.Staked != 300 || me.Session.Won != won || me.Session.Net != won-300 || me.Session.Games != 3 {
			t.Fatalf("the play session on each device: %+v, want begun at %s, 300 staked, %d won", me.Session, start, won)
		}
	}

	var answer struct {
		Session struct {
			Checked int `json:"checked_minutes"`
		}
	}
	desk.must(200, &answer, "POST", "/api/v1/me/reality-check", map[string]int{"minutes": 15}, "")
	if answer.Session.Checked != 15 {
		t.Fatalf("after « Continuer » at 15 minutes: %+v", answer)
	}
	for _, bad := range []string{`{}`, `{"minutes":0}`, `{"minutes":-15}`, `{"minutes":1000001}`, `{"minutes":null}`} {
		phone.refused(400, "invalid_input", "POST", "/api/v1/me/reality-check", bad, "")
	}
	for _, bad := range []string{`{"minutes":1.5}`, `{"minutes":"30"}`, `{"Minutes":30}`, `{"minutes":30,"minutes":45}`, `{"minutes":30,"at":1}`} {
		phone.refused(400, "invalid_request", "POST", "/api/v1/me/reality-check", bad, "")
	}
	phone.must(200, &answer, "POST", "/api/v1/me/reality-check", map[string]int{"minutes": 10}, "") // a tab behind
	phone.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Session.Checked != 15 || answer.Session.Checked != 15 {
		t.Errorf("after refused and late answers: %d, %d, want the check of 15 minutes still answered", me.Session.Checked, answer.Session.Checked)
	}
	srv.client(t).refused(401, "not_logged_in", "POST", "/api/v1/me/reality-check", map[string]int{"minutes": 30}, "")

	// The phone logs out: the play session is now the desk's, begun at its login, with none of
	// the phone's games or checks.
	phone.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	desk.must(200, &me, "GET", "/api/v1/me", nil, "")
	deskStart := srv.clock.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	if me.Session.StartedAt != deskStart || me.Session.Games != 0 || me.Session.Staked != 0 || me.Session.Checked != 0 {
		t.Errorf("the play session once the first device logged out: %+v, want begun at %s, empty", me.Session, deskStart)
	}
}
