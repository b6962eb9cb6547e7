-- What an operator does to a player's account (docs/spec/OPERATOR.md, issue 23): play blocked
-- (the player cannot log in; their sessions end; unblocked, they can again), and notes kept on
-- the account, append-only. A payout and a closure by an operator are a withdrawal and a
-- closure as the others, closed_by 'operator'.
ALTER TABLE players ADD COLUMN blocked_at TEXT;

CREATE TABLE player_notes (
	id          INTEGER PRIMARY KEY,
	player_id   INTEGER NOT NULL REFERENCES players(id),
	operator_id INTEGER NOT NULL REFERENCES operators(id),
	by_name     TEXT NOT NULL,
	note        TEXT NOT NULL,
	created_at  TEXT NOT NULL
);
CREATE INDEX player_notes_by_player ON player_notes (player_id, id);
CREATE TRIGGER player_notes_append_only BEFORE UPDATE ON player_notes
BEGIN SELECT RAISE(ABORT, 'a note on a player is never changed'); END;
CREATE TRIGGER player_notes_kept BEFORE DELETE ON player_notes
BEGIN SELECT RAISE(ABORT, 'a note on a player is never deleted'); END;
