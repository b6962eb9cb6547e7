package wallet_test

import (
	"encoding/json"
	"testing"

	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// A call kept without its body is sent with the body its sale would have kept: the same bytes
// as json.Marshal of its request, which is what the outbox kept before, naming the debit it
// settles or undoes.
func TestBodyOf(t *testing.T) {
	credit := wallet.CreditCall("01a24a290376ae16a26929118bc3", "op-7", "38636", 1200)
	want, _ := json.Marshal(wallet.CreditRequest{TransactionID: "credit-01a24a290376ae16a26929118bc3", Player: "op-7", RoundID: "38636",
		Amount: 1200, Currency: "EUR", DebitTransactionID: "debit-01a24a290376ae16a26929118bc3"})
	const golden = `{"transaction_id":"credit-01a24a290376ae16a26929118bc3","player":"op-7","round_id":"38636","amount":1200,"currency":"EUR","debit_transaction_id":"debit-01a24a290376ae16a26929118bc3"}`
	if got, err := wallet.BodyOf(credit); err != nil || string(got) != string(want) || string(got) != golden {
		t.Errorf("credit: %s, %v", got, err)
	}
	rollback := wallet.RollbackCall("01a24a29039", "op-7", "38771", 300)
	if rollback.Status != lottery.CallHeld || rollback.Amount != 300 {
		t.Errorf("a rollback is kept held, with its amount: %+v", rollback)
	}
	const goldenRollback = `{"transaction_id":"rollback-01a24a29039","player":"op-7","round_id":"38771","rolled_back_transaction_id":"debit-01a24a29039"}`
	if got, err := wallet.BodyOf(rollback); err != nil || string(got) != goldenRollback {
		t.Errorf("rollback: %s, %v", got, err)
	}
	// A call kept with a body is sent with it, whatever its fields.
	kept := lottery.WalletCall{Call: wallet.CallCredit, TransactionID: "c-1", Body: []byte(`{"kept":1}`)}
	if got, err := wallet.BodyOf(kept); err != nil || string(got) != `{"kept":1}` {
		t.Errorf("kept body: %s, %v", got, err)
	}
	// Without a body, an id not named after its debit has nothing to send.
	for _, c := range []lottery.WalletCall{
		{Call: wallet.CallCredit, TransactionID: "c-1"},
		{Call: wallet.CallCredit, TransactionID: "credit-"},
		{Call: wallet.CallCredit, TransactionID: "rollback-x"},
		{Call: "refund", TransactionID: "refund-x"},
	} {
		if got, err := wallet.BodyOf(c); err == nil {
			t.Errorf("%+v: sent as %s", c, got)
		}
	}
}
