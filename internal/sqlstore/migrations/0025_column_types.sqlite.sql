-- SQLite only: PostgreSQL has these types already, from 0001_schema, 0013_exclusion,
-- 0014_closure, 0017_wallet_outbox and 0018_wallet_players.
--
-- The columns' types agree on both dialects, by one rule: a time a person reads is a time
-- (timestamptz on PostgreSQL; here text, RFC 3339 in UTC at a fixed width, storedTime, which
-- sorts as the time does), a time only compared is an integer of unix seconds or milliseconds on
-- both (sessions, keys, games' last move, jobs, leases); a colour not chosen yet is -1, and no
-- column PostgreSQL holds NOT NULL is nullable here. The rows kept are converted, to the same
-- instants (the integers held whole seconds or milliseconds). SQLite changes a column's type by
-- a new column, filled, that takes the old one's name (DROP COLUMN rewrites the table once).

-- A player's self-exclusion and closure: unix seconds, now times.
ALTER TABLE players ADD COLUMN excluded_until_t TEXT;
ALTER TABLE players ADD COLUMN closed_at_t TEXT;
UPDATE players SET excluded_until_t = strftime('%Y-%m-%dT%H:%M:%S.000000000Z', excluded_until, 'unixepoch'),
	closed_at_t = strftime('%Y-%m-%dT%H:%M:%S.000000000Z', closed_at, 'unixepoch');
ALTER TABLE players DROP COLUMN excluded_until;
ALTER TABLE players DROP COLUMN closed_at;
ALTER TABLE players RENAME COLUMN excluded_until_t TO excluded_until;
ALTER TABLE players RENAME COLUMN closed_at_t TO closed_at;

-- A player's login key is never NULL (0009 set it for every row, and every sign-up sets it).
DROP INDEX players_by_name_key;
ALTER TABLE players ADD COLUMN name_key_t TEXT NOT NULL DEFAULT '';
UPDATE players SET name_key_t = coalesce(name_key, lower(username));
ALTER TABLE players DROP COLUMN name_key;
ALTER TABLE players RENAME COLUMN name_key_t TO name_key;
CREATE INDEX players_by_name_key ON players(name_key);

-- A game's colour before it is chosen is -1, as on PostgreSQL and in demo_games (it was NULL);
-- its stake transfer is never NULL (0005 set it for the games before it, 0 where none was).
ALTER TABLE games ADD COLUMN color_t INTEGER NOT NULL DEFAULT -1 CHECK (color_t BETWEEN -1 AND 5);
ALTER TABLE games ADD COLUMN stake_transfer_t INTEGER NOT NULL DEFAULT 0;
UPDATE games SET color_t = coalesce(color, -1), stake_transfer_t = coalesce(stake_transfer, 0);
ALTER TABLE games DROP COLUMN color;
ALTER TABLE games DROP COLUMN stake_transfer;
ALTER TABLE games RENAME COLUMN color_t TO color;
ALTER TABLE games RENAME COLUMN stake_transfer_t TO stake_transfer;

-- The wallet's calls: unix milliseconds, now times.
DROP INDEX wallet_calls_open;
ALTER TABLE wallet_calls ADD COLUMN next_at_t TEXT NOT NULL DEFAULT '';
ALTER TABLE wallet_calls ADD COLUMN created_at_t TEXT NOT NULL DEFAULT '';
ALTER TABLE wallet_calls ADD COLUMN acked_at_t TEXT;
UPDATE wallet_calls SET
	next_at_t = strftime('%Y-%m-%dT%H:%M:%S', next_at / 1000, 'unixepoch') || printf('.%03d000000Z', next_at % 1000),
	created_at_t = strftime('%Y-%m-%dT%H:%M:%S', created_at / 1000, 'unixepoch') || printf('.%03d000000Z', created_at % 1000),
	acked_at_t = strftime('%Y-%m-%dT%H:%M:%S', acked_at / 1000, 'unixepoch') || printf('.%03d000000Z', acked_at % 1000);
ALTER TABLE wallet_calls DROP COLUMN next_at;
ALTER TABLE wallet_calls DROP COLUMN created_at;
ALTER TABLE wallet_calls DROP COLUMN acked_at;
ALTER TABLE wallet_calls RENAME COLUMN next_at_t TO next_at;
ALTER TABLE wallet_calls RENAME COLUMN created_at_t TO created_at;
ALTER TABLE wallet_calls RENAME COLUMN acked_at_t TO acked_at;
CREATE INDEX wallet_calls_open ON wallet_calls (status, next_at) WHERE status <> 'acked';

-- The launch tokens, made again (a small table: a token lives 60 seconds): the expiry a time,
-- used a boolean (SQLite keeps it as 0 or 1, as it kept it), the token never NULL.
CREATE TABLE launch_tokens_t (
	token_hash       BLOB NOT NULL PRIMARY KEY,
	player_id        INTEGER NOT NULL REFERENCES players(id),
	expires_at       TEXT NOT NULL,
	used             BOOLEAN NOT NULL DEFAULT FALSE,
	nonce            TEXT,
	operator_session TEXT,
	session_hash     BLOB
);
INSERT INTO launch_tokens_t (token_hash, player_id, expires_at, used, nonce, operator_session, session_hash)
	SELECT token_hash, player_id, strftime('%Y-%m-%dT%H:%M:%S', expires_at / 1000, 'unixepoch') || printf('.%03d000000Z', expires_at % 1000),
		used, nonce, operator_session, session_hash FROM launch_tokens;
DROP TABLE launch_tokens;
ALTER TABLE launch_tokens_t RENAME TO launch_tokens;
CREATE UNIQUE INDEX launch_tokens_nonce ON launch_tokens (nonce);
CREATE UNIQUE INDEX launch_tokens_session ON launch_tokens (session_hash);
