-- Names compared as a person reads them (issue 19, docs/spec/API.md 1.2). The keys are made by the server
-- (lottery.KeysOf), and made again for every row by a Go step after the migrations whenever the
-- comparison changes (key_scheme, sqlite/keys.go): this file only makes room for them.

-- A username's skeleton (identity.UsernameSkeleton) is unique: no new name may read like one
-- taken, whatever two sign-ups do at once. Accounts made before that read alike keep their
-- names: the first keeps twin 0, the others are its twins 1, 2 … (a sign-up is always twin 0,
-- so it meets the first). Their login keys (name_key) may then be one, so that index is no
-- longer unique: the login tells them apart (identity.PickUsername).
ALTER TABLE players ADD COLUMN name_skeleton TEXT;
ALTER TABLE players ADD COLUMN name_twin INTEGER NOT NULL DEFAULT 0;
DROP INDEX players_by_name_key;
CREATE INDEX players_by_name_key ON players(name_key);
CREATE UNIQUE INDEX players_by_name_skeleton ON players(name_skeleton, name_twin);

-- Persons are looked up by their folded last name and birth date (identity.Person.LookupKey),
-- and their first names compared in Go (identity.SamePerson): one key string no longer finds a
-- person.
ALTER TABLE players ADD COLUMN lookup_key TEXT;
DROP INDEX players_by_identity;
CREATE INDEX players_by_lookup_key ON players(lookup_key) WHERE lookup_key IS NOT NULL;
ALTER TABLE register ADD COLUMN lookup_key TEXT NOT NULL DEFAULT '';
CREATE INDEX register_by_lookup_key ON register(lookup_key);

-- The comparison the keys were made with (identity.KeyScheme); the first one folded case and
-- accents only.
CREATE TABLE key_scheme (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	scheme TEXT NOT NULL
);
INSERT INTO key_scheme (id, scheme) VALUES (1, '1: case and accents');
