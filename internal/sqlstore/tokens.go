package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateOperatorToken keeps a new API token of an operator, as the SHA-256 of its secret, and
// logs it, in one write: its id.
func (s *DB) CreateOperatorToken(ctx context.Context, operatorID int64, secretHash [32]byte, log lottery.OperatorAction) (int64, error) {
	var id int64
	err := s.write(ctx, func(q Querier) error {
		err := q.QueryRow(ctx, `INSERT INTO operator_tokens (operator_id, secret_hash, created_at) VALUES ($1, $2, $3) RETURNING id`,
			operatorID, secretHash[:], s.d.Time(log.CreatedAt)).Scan(&id)
		if err != nil {
			return err
		}
		log.Detail = tokenDetail(id, log.Detail)
		return s.logAction(ctx, q, log)
	})
	return id, s.fault(err)
}

// OperatorToken finds a token by id, live or revoked; fault.NotFound if it was never made.
func (s *DB) OperatorToken(ctx context.Context, id int64) (lottery.OperatorToken, error) {
	var t lottery.OperatorToken
	var hash []byte
	row := s.read.QueryRow(ctx, `SELECT id, operator_id, secret_hash, created_at, revoked_at FROM operator_tokens WHERE id = $1`, id)
	err := row.Scan(&t.ID, &t.OperatorID, &hash, ScanTime(&t.CreatedAt), ScanTime(&t.RevokedAt))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fault.Errorf(fault.NotFound, "no token %d", id)
	}
	if err != nil {
		return t, s.fault(err)
	}
	if len(hash) != len(t.SecretHash) {
		return t, errors.New("a token's secret_hash is not 32 bytes")
	}
	copy(t.SecretHash[:], hash)
	return t, nil
}

// RevokeOperatorToken ends a live token and logs it, in one write. A token never made is
// fault.NotFound; one revoked already is fault.InvalidState, and nothing is written.
func (s *DB) RevokeOperatorToken(ctx context.Context, id int64, log lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `UPDATE operator_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`,
			s.d.Time(log.CreatedAt), id)
		if err != nil {
			return err
		}
		if n == 0 {
			var one int
			err := q.QueryRow(ctx, `SELECT 1 FROM operator_tokens WHERE id = $1`, id).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fault.Errorf(fault.NotFound, "no token %d", id)
			}
			if err != nil {
				return err
			}
			return fault.Errorf(fault.InvalidState, "the token %d is revoked already", id)
		}
		log.Detail = tokenDetail(id, log.Detail)
		return s.logAction(ctx, q, log)
	}))
}

// tokenDetail puts the token's id first in a log line's detail, a JSON object ("" for none).
func tokenDetail(id int64, detail string) string {
	field := `{"token":` + strconv.FormatInt(id, 10)
	if len(detail) < 2 || detail == "{}" {
		return field + "}"
	}
	return field + "," + detail[1:]
}
