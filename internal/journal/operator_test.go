package journal

import "testing"

// TestPublicDetail: an operator's entry keeps of its detail only the fields that name no person,
// in one order, and nothing of a detail that is not a JSON object.
func TestPublicDetail(t *testing.T) {
	for _, c := range []struct{ detail, want string }{
		{`{"player":"petra","why":"asked by phone","amount":500}`, `{"amount":500}`},
		{`{"player":"petra"}`, ``},
		{`{"emission":"E1","why":"a display fault"}`, `{"emission":"E1"}`},
		{`{"proposal":4,"proposed":"emission_withdraw","emission":"E1","note":"call Mr Dupont"}`, `{"emission":"E1","proposal":4,"proposed":"emission_withdraw"}`},
		{`{"counts":{"listed":3,"added":1,"gone":0,"closed":1},"closed":[{"username":"petra","paid_out":120}],"file":"dupont.csv"}`, `{"counts":{"listed":3,"added":1,"gone":0,"closed":1}}`},
		{`{"accounts":[{"id":3,"username":"petra"}],"name":"Jeanne Martin","born":"1990-01-01","until":"2027-01-01T00:00:00Z"}`, ``},
		{`{"problem":"bad_lines","lines":[{"line":3,"reason":"date_layout","date":"01/13/1990"}]}`, `{"problem":"bad_lines"}`},
		{`{"reason":"wrong_password","wait_s":2}`, `{"reason":"wrong_password","wait_s":2}`},
		{`the open account 3 "petra" (Jeanne Martin, born 1990-01-01) matches a person on the register`, ``},
		{``, ``},
		{`["player"]`, ``},
	} {
		if got := PublicDetail(c.detail); got != c.want {
			t.Errorf("PublicDetail(%s) = %s, want %s", c.detail, got, c.want)
		}
	}
}

// TestOperatorEntryAccount: an operator's entry about a player carries the account's reference,
// sealed like any other, and reads back; one about no player has no account field, as before.
func TestOperatorEntryAccount(t *testing.T) {
	key := AccountKey{1}
	got := string(Encode(9, at, Operator{Operator: "cora", Action: "player_blocked", AccountID: 7}, &key))
	want := `{"seq":9,"time":"2026-12-02T06:30:00.123Z","kind":"operator","operator":"cora","action":"player_blocked","detail":"","account":"` + key.Ref(7, 9) + `"}`
	if got != want {
		t.Errorf("an operator's entry about a player:\n%s\nwant\n%s", got, want)
	}
	if _, _, err := parseEntry([]byte(got)); err != nil {
		t.Errorf("it does not read back: %v", err)
	}
	got = string(Encode(10, at, Operator{Operator: "cora", Action: "emission_suspended", Detail: `{"emission":"E1"}`}, &key))
	want = `{"seq":10,"time":"2026-12-02T06:30:00.123Z","kind":"operator","operator":"cora","action":"emission_suspended","detail":"{\"emission\":\"E1\"}"}`
	if got != want {
		t.Errorf("an operator's entry about no player:\n%s\nwant\n%s", got, want)
	}
}
