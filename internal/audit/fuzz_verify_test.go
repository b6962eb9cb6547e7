package audit

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"
)

const fuzzHeader = `{"format":"starcolor-audit/1","emission":"E1","price":1,"block":0,"units":1000000,"tiers":[{"amount":2000000,"count":1,"composite":true},{"amount":100000,"count":1,"composite":false},{"amount":10000,"count":10,"composite":false},{"amount":1200,"count":24100,"composite":true},{"amount":400,"count":28000,"composite":false},{"amount":200,"count":85000,"composite":false},{"amount":100,"count":106800,"composite":false},{"amount":0,"count":756088,"composite":false}],"root":"0000000000000000000000000000000000000000000000000000000000000000","definition":"starcolor-fdj-2013/1"}`

// FuzzVerify feeds the verifier any file: it must never panic, and since no small input can be
// a whole block, it must always answer with a *Defect.
func FuzzVerify(f *testing.F) {
	line := `{"i":0,"prize":0,"salt":"00000000000000000000000000000000","b1":"0 0 0 0 0 0 0 1 1 1 1 1 1 1 2 2 2 2 2 2 2 3 3 3 3 3 3 3 4 4 4 4 4 4 4 5 5 5 5 5 5 5"}`
	f.Add([]byte(fuzzHeader + "\n" + line + "\n"))
	f.Add([]byte(fuzzHeader + "\n"))
	f.Add([]byte(fuzzHeader))
	f.Add([]byte(`{"format":"starcolor-audit/1"}`))
	f.Add([]byte("emission,block\n"))
	f.Add([]byte{})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(fuzzHeader + "\n" + line + "\n"))
	w.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Verify(bytes.NewReader(data))
		if err == nil {
			t.Fatalf("a %d-byte input verified as a block: %+v", len(data), s)
		}
		var d *Defect
		if !errors.As(err, &d) || !errors.Is(err, ErrDefect) {
			t.Fatalf("error %v (%T) is not a *Defect", err, err)
		}
	})
}
