-- Names compared as a person reads them (issue 19, docs/spec/API.md 1.2): the same columns as
-- 0020_names_read_alike.sqlite.sql, where each is explained. The keys are made again by a Go
-- step after the migrations whenever the comparison changes (key_scheme, postgres/keys.go).
ALTER TABLE players ADD COLUMN name_skeleton text;
ALTER TABLE players ADD COLUMN name_twin integer NOT NULL DEFAULT 0;
ALTER TABLE players DROP CONSTRAINT players_name_key_key; -- players_by_key_prefix still finds a key
CREATE UNIQUE INDEX players_by_name_skeleton ON players (name_skeleton, name_twin);

ALTER TABLE players ADD COLUMN lookup_key text;
DROP INDEX players_by_identity;
CREATE INDEX players_by_lookup_key ON players (lookup_key) WHERE lookup_key IS NOT NULL;
ALTER TABLE register ADD COLUMN lookup_key text NOT NULL DEFAULT '';
CREATE INDEX register_by_lookup_key ON register (lookup_key);

CREATE TABLE key_scheme (
	id     integer PRIMARY KEY CHECK (id = 1),
	scheme text NOT NULL
);
INSERT INTO key_scheme (id, scheme) VALUES (1, '1: case and accents');
