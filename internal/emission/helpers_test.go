package emission

import (
	"testing"

	"starcolor/internal/gamedef"
	"starcolor/internal/scenario"
)

func newTestWorker(t testing.TB, def *gamedef.Definition, table *gamedef.Table) *pageWorker {
	gen, err := scenario.New(def, table)
	if err != nil {
		t.Fatal(err)
	}
	cdc, err := newCodec(table)
	if err != nil {
		t.Fatal(err)
	}
	return &pageWorker{gen: gen, cdc: cdc, table: table}
}
