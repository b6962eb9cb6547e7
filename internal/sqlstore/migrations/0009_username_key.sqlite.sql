-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- Usernames may hold accented letters and other alphabets (issue 10). SQLite's NOCASE folds only
-- ASCII, so usernames are compared by a key of their own, made by the server (NFC, then Unicode
-- case folding: identity.UsernameKey): "Élodie" and "ÉLODIE" are one account. The names so far
-- are ASCII, whose key is their lower case.
ALTER TABLE players ADD COLUMN name_key TEXT;
UPDATE players SET name_key = lower(username);
CREATE UNIQUE INDEX players_by_name_key ON players(name_key);
