package admin

import (
	"context"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/session"
	"starcolor/internal/store"
)

// MakeToken makes an API token for the operator named name and logs it: the token, to be shown
// once, and its id. Only the SHA-256 of its secret is kept (session.NewAPISecret).
func MakeToken(ctx context.Context, db store.Operators, name string, now time.Time) (string, int64, error) {
	o, err := db.OperatorByName(ctx, name)
	if err != nil {
		return "", 0, err
	}
	secret, hash := session.NewAPISecret()
	id, err := db.CreateOperatorToken(ctx, o.ID, hash, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "token_created",
		Detail: logDetail{Via: "command_line"}.encode(), CreatedAt: now})
	if err != nil {
		return "", 0, err
	}
	return session.FormatAPIToken(id, secret), id, nil
}

// RevokeToken ends the token id and logs it under its operator's name: a call made with it is
// refused from then on, on every server, for every call reads the token's row.
func RevokeToken(ctx context.Context, db store.Operators, id int64, now time.Time) error {
	t, err := db.OperatorToken(ctx, id)
	if err != nil {
		return err
	}
	o, err := db.OperatorByID(ctx, t.OperatorID)
	if err != nil {
		return err
	}
	return db.RevokeOperatorToken(ctx, id, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Action: "token_revoked",
		Detail: logDetail{Via: "command_line"}.encode(), CreatedAt: now})
}
