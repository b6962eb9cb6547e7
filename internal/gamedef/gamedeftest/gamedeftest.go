// Package gamedeftest holds game definitions made for tests: the regulation's table scaled down
// to blocks of 1,000 units, so that tests can build, sell out and verify whole emissions in
// milliseconds. It is never linked into the starcolor binary.
package gamedeftest

import (
	_ "embed"
	"testing"

	"starcolor/internal/gamedef"
)

//go:embed mini.json
var mini []byte

// MiniJSON is the file of the mini definition.
func MiniJSON() []byte { return mini }

// Mini is a definition with the regulation's three tables (1, 2 and 3 €) whose blocks hold 1,000
// units: the regulation's tiers scaled down, composite tiers included.
func Mini(tb testing.TB) *gamedef.Definition {
	tb.Helper()
	def, err := gamedef.Parse(mini)
	if err != nil {
		tb.Fatal(err)
	}
	return def
}
