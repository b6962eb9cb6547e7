-- The operator's list of excluded persons (issue 12, docs/spec/API.md 1.1): the national register of
-- gaming bans, replaced whole by each import; each import kept with its counts.
CREATE TABLE register (
	identity_key TEXT PRIMARY KEY, -- identity.Person.Key: names without case or accents, birth date
	last_name    TEXT NOT NULL,
	first_names  TEXT NOT NULL,
	birth_date   TEXT NOT NULL,
	import_id    INTEGER NOT NULL
);
CREATE TABLE register_imports (
	id         INTEGER PRIMARY KEY,
	created_at TEXT NOT NULL,
	by         TEXT NOT NULL,
	source     TEXT NOT NULL,
	listed     INTEGER NOT NULL,
	added      INTEGER NOT NULL,
	gone       INTEGER NOT NULL,
	closed     INTEGER NOT NULL,
	closed_players TEXT NOT NULL -- JSON: the accounts it closed
);
-- Who closed an account: its player, or an import of the register.
ALTER TABLE players ADD COLUMN closed_by TEXT;
UPDATE players SET closed_by = 'player' WHERE closed_at IS NOT NULL;
