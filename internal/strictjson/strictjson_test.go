package strictjson

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// registration is the shape of a sign-up: an unexported struct embedded, as the API's own.
type registration struct {
	credentials
	LastName string `json:"last_name"`
}

type payment struct {
	Amount int64          `json:"amount"`
	Note   string         `json:"note"`
	Flag   bool           `json:"flag"`
	Raw    jsontext.Value `json:"raw"`
	List   []int          `json:"list"`
}

func TestDecodeAccepts(t *testing.T) {
	var p payment
	if err := Decode([]byte(" {\"amount\": 50, \"note\": \"é\", \"flag\": true, \"raw\": null, \"list\": [1,2]}\n"), &p); err != nil {
		t.Fatal(err)
	}
	if p.Amount != 50 || p.Note != "é" || !p.Flag || string(p.Raw) != "null" || len(p.List) != 2 {
		t.Fatalf("decoded %+v", p)
	}
	var r registration
	if err := Decode([]byte(`{"username":"ana","password":"pw","last_name":"Durand"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Username != "ana" || r.Password != "pw" || r.LastName != "Durand" {
		t.Fatalf("decoded %+v", r)
	}
	var absent payment
	if err := Decode([]byte(`{}`), &absent); err != nil || absent.Raw != nil {
		t.Fatalf("an absent raw field is nil: %q, %v", absent.Raw, err)
	}
}

// TestDecodeRefuses: every body a lenient decoder would read differently from a strict proxy,
// refused with a reason in words that names no Go type, leaving the value zero.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct{ body, field, reason string }{
		{`{"amount":-5,"amount":50}`, "amount", `the field "amount" is given twice`},
		{`{"amount":5,"note":"a","amount":5}`, "amount", `given twice`},
		{`{"AMOUNT":7}`, "AMOUNT", `unknown field "AMOUNT" (the fields are "amount", "note", "flag", "raw", "list", written exactly so)`},
		{`{"Amount":7}`, "Amount", `unknown field "Amount"`},
		{`{"ſtake":100}`, "ſtake", `unknown field "ſtake"`},
		{`{"amount":1,"extra":true}`, "extra", `unknown field "extra"`},
		{`{"amount":"5"}`, "amount", `the field "amount" must be a whole number`},
		{`{"amount":1.5}`, "amount", `must be a whole number within range`},
		{`{"amount":1e2}`, "amount", `must be a whole number within range`},
		{`{"amount":99999999999999999999}`, "amount", `must be a whole number within range`},
		{`{"note":5}`, "note", `the field "note" must be a string`},
		{`{"flag":"yes"}`, "flag", `the field "flag" must be true or false`},
		{`{"list":{}}`, "list", `the field "list" must be a list`},
		{"{\"note\":\"\xff\"}", "note", `not valid UTF-8`},
		{`[1]`, "", `the body must be one JSON object`},
		{`null`, "", `the body must be one JSON object`},
		{`"x"`, "", `the body must be one JSON object`},
		{``, "", `the body must be one JSON object`},
		{`{"amount":1} {}`, "", `more than one JSON value`},
		{`{"amount":1}x`, "", `more than one JSON value`},
		{`{"amount":1`, "", `not valid JSON`},
		{`{"amount":01}`, "", `not valid JSON`},
	} {
		p := payment{Amount: 99}
		err := Decode([]byte(c.body), &p)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", c.body, err)
			continue
		}
		if !strings.Contains(e.Reason, c.reason) || e.Field != c.field {
			t.Errorf("%s: %q at %q, want %q at %q", c.body, e.Reason, e.Field, c.reason, c.field)
		}
		if strings.Contains(e.Reason, "Go ") || strings.Contains(e.Reason, "int64") || strings.Contains(e.Reason, "strictjson") {
			t.Errorf("%s: the reason names a Go type: %q", c.body, e.Reason)
		}
		if p.Amount != 0 || p.Note != "" {
			t.Errorf("%s: the value was left half decoded: %+v", c.body, p)
		}
	}
}

// FuzzDecode: any bytes either decode to a value that re-decodes the same, or are refused with
// a reason; never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"amount":5}`, `{"amount":-5,"amount":50}`, `{"AMOUNT":7}`, `{"raw":[1,{"a":2}],"list":[1]}`, `[`, "{\"note\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p payment
		err := Decode(body, &p)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason == "" {
				t.Fatalf("%q: an error without a reason: %v", body, err)
			}
			return
		}
		if !jsontext.Value(body).IsValid() {
			t.Fatalf("%q: accepted, but it is not valid JSON", body)
		}
	})
}

// gameBody is the body of the sale, the API's busiest call.
var gameBody = []byte(`{"stake":100,"mode":"auto"}`)

type gameRequest struct {
	Stake int64  `json:"stake"`
	Mode  string `json:"mode"`
}

// BenchmarkDecode is the strict decoding of a sale's body (go test ./internal/strictjson -run XXX
// -bench Decode), beside BenchmarkDecodeLenient, the decoding the API used before (encoding/json,
// a Decoder refusing unknown fields), measured in the same run.
func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var g gameRequest
		if err := Decode(gameBody, &g); err != nil || g.Stake != 100 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeLenient(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var g gameRequest
		dec := stdjson.NewDecoder(bytes.NewReader(gameBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil || g.Stake != 100 || dec.More() {
			b.Fatal(err)
		}
	}
}
