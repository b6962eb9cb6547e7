-- Account closure (issue 12, docs/spec/API.md 1.1): when the player closed their account (unix seconds),
-- its balance paid out first; a closed account cannot log in.
ALTER TABLE players ADD COLUMN closed_at INTEGER;
