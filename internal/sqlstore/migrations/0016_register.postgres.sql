-- The operator's list of excluded persons (issue 12, docs/spec/API.md 1.1): the national register of
-- gaming bans, replaced whole by each import; each import kept with its counts.
CREATE TABLE register (
	identity_key text PRIMARY KEY, -- identity.Person.Key: names without case or accents, birth date
	last_name    text NOT NULL,
	first_names  text NOT NULL,
	birth_date   date NOT NULL,
	import_id    bigint NOT NULL
);
CREATE TABLE register_imports (
	id         bigserial PRIMARY KEY,
	created_at timestamptz NOT NULL,
	by         text NOT NULL,
	source     text NOT NULL,
	listed     integer NOT NULL,
	added      integer NOT NULL,
	gone       integer NOT NULL,
	closed     integer NOT NULL,
	closed_players jsonb NOT NULL -- the accounts it closed
);
-- Who closed an account: its player, or an import of the register.
ALTER TABLE players ADD COLUMN closed_by text;
UPDATE players SET closed_by = 'player' WHERE closed_at IS NOT NULL;
