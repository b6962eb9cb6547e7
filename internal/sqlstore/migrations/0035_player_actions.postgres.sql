-- What an operator does to a player's account: see the SQLite step.
ALTER TABLE players ADD COLUMN blocked_at timestamptz;

CREATE TABLE player_notes (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	player_id   bigint NOT NULL REFERENCES players(id),
	operator_id bigint NOT NULL REFERENCES operators(id),
	by_name     text NOT NULL,
	note        text NOT NULL,
	created_at  timestamptz NOT NULL
);
CREATE INDEX player_notes_by_player ON player_notes (player_id, id);
CREATE TRIGGER player_notes_append_only BEFORE UPDATE OR DELETE ON player_notes
	FOR EACH ROW EXECUTE FUNCTION refuse('a note on a player is never changed nor deleted');
