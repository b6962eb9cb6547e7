-- Why the server paid a player's whole balance out (docs/spec/API.md 1.2, lottery.PaidAtExclusion …): at a
-- self-exclusion, at a closure by the player, or at a closure by an import of the list of excluded
-- persons. Only such a withdrawal has one; every other transfer keeps NULL, so that nothing that
-- counts withdrawals changes. A column added, not a kind: every sum of withdrawals would have to
-- learn a new kind. The column is NULL in every row already there, so its check need not read
-- them all under a lock that stops every sale meanwhile (NOT VALID): it holds for every row
-- written from now on, and for the others by construction.
ALTER TABLE transfers ADD COLUMN reason text;
ALTER TABLE transfers ADD CONSTRAINT transfers_reason
	CHECK (reason IS NULL OR (kind = 'withdrawal' AND reason IN ('exclusion', 'closure', 'register'))) NOT VALID;
