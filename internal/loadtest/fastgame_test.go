package loadtest

import (
	"encoding/json"
	"reflect"
	"testing"
)

var gameSamples = []string{
	`{"id":12,"stake":100,"mode":"auto","status":"finished","prize":200,"balance":99900,"created_at":"2026-01-01T00:00:00Z","unit":{"emission":"E1","block":0,"index":11},"color":3,"boards":[{"colors":[0,1,2],"cells":[null,{"kind":"amount","amount":200},{"kind":"supernova","color":2}]}],"events":[{"board":1,"cell":4,"cause":"supernova","from":9}]}`,
	` { "id" : "g-7f\u00e9" , "stake":300, "mode":"manual" ,"status":"choose_color","prize":0,"balance":0,"color":null,"boards":[],"events":[]}`,
	`{"id":"a\"b","stake":1}`,
	`{"events":[{"x":"}]\"{["}],"id":"x","status":"play\u0069ng","prize":null}`,
	`{"Status":"finished","id":1}`,
	`{"prize":1e3,"id":1}`,
	`{"prize":-0,"balance":-12,"stake":007}`,
	`{"prize":5,"prize":null,"balance":1,"balance":2}`,
	`{"color":1.5}`,
	`{}`, ` {} `, `[]`, `null`, `{"id":1`, `{"id":1,}`, `{"id" 1}`, `{"a":[1,2}`, `{"id":1} x`, `{"id":tru}`,
	`{"balance":123456789012345678901}`, "{\"mode\":\"a\nb\"}", `{"unit":{"a":[{"b":"}"}]},"stake":5}`,
}

func TestLoadtestDecodeGame(t *testing.T) {
	for _, s := range gameSamples {
		checkDecode(t, []byte(s))
	}
}

// checkDecode: whenever the one-pass reader accepts valid JSON, it agrees with encoding/json;
// and decodeGame fails exactly when encoding/json would, on valid input.
func checkDecode(t *testing.T, b []byte) {
	var fast, slow gameAnswer
	ok := fastGame(b, &fast)
	errSlow := json.Unmarshal(b, &slow)
	if !json.Valid(b) {
		return
	}
	if ok && errSlow == nil && !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s:\n one pass      %+v\n encoding/json %+v", b, show(fast), show(slow))
	}
	if ok && errSlow != nil {
		t.Errorf("%s: one pass accepted what encoding/json refuses: %v", b, errSlow)
	}
	var g gameAnswer
	if err := decodeGame(b, &g); (err == nil) != (errSlow == nil) || (err == nil && !reflect.DeepEqual(g, slow)) {
		t.Errorf("%s: decodeGame %+v %v, encoding/json %+v %v", b, show(g), err, show(slow), errSlow)
	}
}

func show(g gameAnswer) map[string]any {
	m := map[string]any{"id": g.ID, "stake": g.Stake, "mode": g.Mode, "status": g.Status}
	if g.Prize != nil {
		m["prize"] = *g.Prize
	}
	if g.Balance != nil {
		m["balance"] = *g.Balance
	}
	if g.Color != nil {
		m["color"] = *g.Color
	}
	return m
}

func FuzzLoadtestDecodeGame(f *testing.F) {
	for _, s := range gameSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecode(t, b) })
}

func BenchmarkLoadtestDecodeGame(b *testing.B) {
	msg := []byte(gameSamples[0])
	b.Run("one-pass", func(b *testing.B) {
		var g gameAnswer
		for b.Loop() {
			decodeGame(msg, &g)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		var g gameAnswer
		for b.Loop() {
			g = gameAnswer{}
			json.Unmarshal(msg, &g)
		}
	})
}
