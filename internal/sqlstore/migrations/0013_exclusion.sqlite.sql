-- Self-exclusion (issue 12, docs/spec/API.md 1.1): until when a player excluded themselves (unix seconds),
-- never shortened; an exclusion also bars a new account with the same identity meanwhile.
ALTER TABLE players ADD COLUMN excluded_until INTEGER;
