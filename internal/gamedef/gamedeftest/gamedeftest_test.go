package gamedeftest

import "testing"

func TestMiniIsValid(t *testing.T) {
	def := Mini(t)
	table, err := def.Table(100)
	if err != nil {
		t.Fatal(err)
	}
	// Every tier of the regulation is kept, the two jackpots whole: the return is far above 70 %.
	if def.BlockUnits != 1000 || table.Payout() != 2_187_700 || table.Winners() != 248 {
		t.Errorf("mini: %d units, payout %d cents", def.BlockUnits, table.Payout())
	}
}
