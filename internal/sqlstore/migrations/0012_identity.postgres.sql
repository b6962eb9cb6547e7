-- Who holds each account (issue 12, docs/spec/API.md 1.1): last name, first names and birth date, asked at
-- registration; and the key identities are compared by (identity.Person.Key: no case, no
-- accents), for self-exclusions and the operator's list of excluded persons. Accounts made
-- before have none.
ALTER TABLE players ADD COLUMN last_name text;
ALTER TABLE players ADD COLUMN first_names text;
ALTER TABLE players ADD COLUMN birth_date date;
ALTER TABLE players ADD COLUMN identity_key text;
CREATE INDEX players_by_identity ON players (identity_key) WHERE identity_key IS NOT NULL;
