package gamedef

import (
	"os"
	"testing"
)

// FuzzParse: any bytes either parse into a definition that validates, or fail; never a panic.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("definitions/starcolor-fdj-2013.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"starcolor-game/1","version":"x","block_units":1,"max_gains":2,"tables":[{"price":1,"tiers":[{"amount":0,"count":1}],"amounts":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Parse accepted a definition that does not validate: %v", err)
		}
	})
}
