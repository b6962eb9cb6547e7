package storetest

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// OperatorRolesAndTokens: an operator's roles are kept as given; one made with no role is
// refused; roles a hand wrote that do not read are an error, never read as others. A token is
// kept by the hash of its secret, revoked once, never deleted or rewritten.
func testOperatorRolesAndTokens(t *testing.T, h Harness) {
	f := newFixture(t, h)
	made := lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now}
	if _, err := f.s.CreateOperator(f.ctx, "nobody", "hash", 0, made); !fault.Is(err, fault.Invalid) {
		t.Fatalf("an operator with no role: %v, want refused", err)
	}
	if _, err := f.s.OperatorByName(f.ctx, "nobody"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("the operator refused was made: %v", err)
	}
	roles := lottery.Roles(lottery.Finance) | lottery.Roles(lottery.Approver)
	o, err := f.s.CreateOperator(f.ctx, "fanny", "hash", roles, made)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.OperatorByID(f.ctx, o.ID); err != nil || got.Roles != roles {
		t.Fatalf("the roles kept: %v (%v), want %v", got.Roles, err, roles)
	}
	if err := f.raw.Exec(`UPDATE operators SET roles = ? WHERE id = ?`, "finance,superuser", o.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.OperatorByName(f.ctx, "fanny"); err == nil || !strings.Contains(err.Error(), "superuser") {
		t.Fatalf("roles that do not read: %v, %v; want an error naming them", got.Roles, err)
	}
	if err := f.raw.Exec(`UPDATE operators SET roles = ? WHERE id = ?`, roles.String(), o.ID); err != nil {
		t.Fatal(err)
	}

	hash := sha256.Sum256([]byte("a secret"))
	id, err := f.s.CreateOperatorToken(f.ctx, o.ID, hash, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "token_created",
		Detail: `{"via":"command_line"}`, CreatedAt: f.now})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := f.s.OperatorToken(f.ctx, id)
	if err != nil || tok.ID != id || tok.OperatorID != o.ID || tok.SecretHash != hash || !tok.CreatedAt.Equal(f.now) || !tok.RevokedAt.IsZero() {
		t.Fatalf("the token kept: %+v, %v", tok, err)
	}
	if _, err := f.s.OperatorToken(f.ctx, id+1); !fault.Is(err, fault.NotFound) {
		t.Fatalf("a token never made: %v", err)
	}
	for _, bad := range []string{`DELETE FROM operator_tokens WHERE id = ?`, `UPDATE operator_tokens SET secret_hash = secret_hash || secret_hash WHERE id = ?`,
		`UPDATE operator_tokens SET operator_id = operator_id + 1 WHERE id = ?`} {
		if err := f.raw.Exec(bad, id); err == nil {
			t.Errorf("%s: done, want refused by the table's trigger", bad)
		}
	}
	revokedAt := f.now.Add(time.Hour)
	revoke := lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "token_revoked", CreatedAt: revokedAt}
	if err := f.s.RevokeOperatorToken(f.ctx, id+1, revoke); !fault.Is(err, fault.NotFound) {
		t.Fatalf("revoking a token never made: %v", err)
	}
	if err := f.s.RevokeOperatorToken(f.ctx, id, revoke); err != nil {
		t.Fatal(err)
	}
	if tok, err := f.s.OperatorToken(f.ctx, id); err != nil || !tok.RevokedAt.Equal(revokedAt) {
		t.Fatalf("the token revoked: %+v, %v", tok, err)
	}
	if err := f.s.RevokeOperatorToken(f.ctx, id, revoke); !fault.Is(err, fault.InvalidState) {
		t.Fatalf("a token revoked twice: %v, want invalid_state", err)
	}
	if err := f.raw.Exec(`UPDATE operator_tokens SET revoked_at = NULL WHERE id = ?`, id); err == nil {
		t.Error("a revoked token brought back by hand: done, want refused by the trigger")
	}
	lines, err := f.s.OperatorLog(f.ctx, 3, 0)
	if err != nil || len(lines) != 3 {
		t.Fatalf("the log: %+v, %v", lines, err)
	}
	want := []string{`token_revoked {"token":` + strconv.FormatInt(id, 10) + `}`, `token_created {"token":` + strconv.FormatInt(id, 10) + `,"via":"command_line"}`, "operator_created "}
	for i, l := range lines {
		if got := l.Action + " " + l.Detail; got != want[i] {
			t.Errorf("log line %d: %s, want %s", i, got, want[i])
		}
	}
}
