package sqlstore

import (
	"context"

	"starcolor/internal/fault"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// What an operator does to a player's account from the back office. Each is one write with its
// line in the operators' log (and so its operator entry in the journal), and, where money moves
// or the account changes, the journal's own entries.

// BlockPlayer blocks play on a player's account, ending their sessions, or unblocks it. Blocking
// one blocked, or unblocking one that is not, is fault.InvalidState.
func (s *DB) BlockPlayer(ctx context.Context, playerID int64, block bool, log lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		p, err := ScanPlayer(q.QueryRow(ctx, `SELECT `+PlayerColumns(s.d)+` FROM players p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`+s.d.forNoKeyUpdate("p"), playerID))
		if err != nil {
			return err
		}
		switch {
		case block && !p.BlockedAt.IsZero():
			return fault.Errorf(fault.InvalidState, "play is blocked on %s already", p.Username)
		case !block && p.BlockedAt.IsZero():
			return fault.Errorf(fault.InvalidState, "play is not blocked on %s", p.Username)
		}
		var at any // NULL: unblocked
		if block {
			at = s.d.Time(log.CreatedAt)
		}
		if _, err := q.Exec(ctx, `UPDATE players SET blocked_at = $1 WHERE id = $2`, at, playerID); err != nil {
			return err
		}
		if block {
			if _, err := q.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND owner_id = $2`, lottery.PlayerSession, playerID); err != nil {
				return err
			}
		}
		return s.logAction(ctx, q, log)
	}))
}

// NotePlayer keeps an operator's note on a player's account, append-only.
func (s *DB) NotePlayer(ctx context.Context, playerID int64, note string, log lottery.OperatorAction) error {
	return s.fault(s.write(ctx, func(q Querier) error {
		var id int64
		if err := q.QueryRow(ctx, `SELECT id FROM players WHERE id = $1`, playerID).Scan(&id); err != nil {
			return NotFound(err, "no such player")
		}
		if _, err := q.Exec(ctx, `INSERT INTO player_notes (player_id, operator_id, by_name, note, created_at) VALUES ($1, $2, $3, $4, $5)`,
			playerID, log.OperatorID, log.Name, note, s.d.Time(log.CreatedAt)); err != nil {
			return err
		}
		return s.logAction(ctx, q, log)
	}))
}

// PlayerNotes lists the notes kept on a player's account, newest first.
func (s *DB) PlayerNotes(ctx context.Context, playerID int64) ([]lottery.PlayerNote, error) {
	var out []lottery.PlayerNote
	err := each(s.read.Query(ctx, `SELECT id, by_name, note, created_at FROM player_notes WHERE player_id = $1 ORDER BY id DESC`, playerID))(func(r Rows) error {
		var n lottery.PlayerNote
		err := r.Scan(&n.ID, &n.By, &n.Note, ScanTime(&n.At))
		out = append(out, n)
		return err
	})
	return out, s.fault(err)
}

// PayOutPlayer pays a player's whole balance out to their bank, as a withdrawal, their account
// staying open: what it paid (0 for an empty balance, and nothing written but the log).
func (s *DB) PayOutPlayer(ctx context.Context, playerID int64, log lottery.OperatorAction) (int64, error) {
	var paid int64
	err := s.write(ctx, func(q Querier) error {
		out, err := payBalance(ctx, q, s.d, playerID, nil, "", log.CreatedAt)
		if err != nil {
			return err
		}
		paid = out.Withdrawal.Amount
		if err := s.AppendJournal(ctx, q, log.CreatedAt, out.Events()...); err != nil {
			return err
		}
		return s.logAction(ctx, q, log)
	})
	return paid, s.fault(err)
}

// CloseByOperator closes a player's account from the back office, as ClosePlayer does for its
// player: the whole balance paid out (a withdrawal marked lottery.PaidAtClosure), the account
// closed by lottery.ClosedByOperator, every session ended. An account closed already is
// fault.InvalidState.
func (s *DB) CloseByOperator(ctx context.Context, playerID int64, log lottery.OperatorAction) (int64, error) {
	var paid int64
	err := s.write(ctx, func(q Querier) error {
		out, err := PayOut(ctx, q, s.d, playerID, nil, lottery.PaidAtClosure, log.CreatedAt)
		if err != nil {
			return err
		}
		paid = out.Withdrawal.Amount
		closed, err := q.Exec(ctx, `UPDATE players SET closed_at = $1, closed_by = $2 WHERE id = $3 AND closed_at IS NULL`,
			s.d.Time(log.CreatedAt), lottery.ClosedByOperator, playerID)
		if err != nil {
			return err
		}
		if closed != 1 {
			return fault.Errorf(fault.InvalidState, "the account is closed already")
		}
		events := append(out.Events(), journal.Closure{AccountID: out.Account, Paid: paid, By: lottery.ClosedByOperator})
		if err := s.AppendJournal(ctx, q, log.CreatedAt, events...); err != nil {
			return err
		}
		return s.logAction(ctx, q, log)
	})
	return paid, s.fault(err)
}
