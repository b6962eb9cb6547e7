-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- A player's transfers, found without reading the whole ledger (the back office's player page).
-- An index on the transfers' accounts would add a page to every sale's commit, so instead:
--  * a game keeps the id of its stake transfer; its prize transfer, when it won, is the next one
--    (the writer gives them these ids: sales.go). A player's latest games (games_by_player) give
--    their latest stakes and prizes;
--  * deposits and withdrawals, which are few, are indexed by account, and only they: the indexes
--    are partial, so a sale's transfers add nothing to them.
-- `ledger check` proves every game's ids point to its transfers.
ALTER TABLE games ADD COLUMN stake_transfer INTEGER;

CREATE INDEX transfers_money_out ON transfers(from_account) WHERE kind IN ('deposit', 'withdrawal');
CREATE INDEX transfers_money_in ON transfers(to_account) WHERE kind IN ('deposit', 'withdrawal');

-- The games sold before this migration, through an index kept only for the time of it.
CREATE INDEX transfers_by_game_once ON transfers(game_id) WHERE kind = 'stake';
UPDATE games SET stake_transfer = (SELECT t.id FROM transfers t WHERE t.game_id = games.id AND t.kind = 'stake');
DROP INDEX transfers_by_game_once;
