-- Why the server paid a player's whole balance out (docs/spec/API.md 1.2, lottery.PaidAtExclusion …): at a
-- self-exclusion, at a closure by the player, or at a closure by an import of the list of excluded
-- persons. Only such a withdrawal has one; every other transfer keeps NULL, so that nothing that
-- counts withdrawals changes. A column added, not a kind: a new kind would mean rebuilding the
-- whole ledger table for its CHECK, and every sum of withdrawals would have to learn it.
-- (Adding the column reads the ledger once to check it; it writes nothing.)
ALTER TABLE transfers ADD COLUMN reason TEXT
	CHECK (reason IS NULL OR (kind = 'withdrawal' AND reason IN ('exclusion', 'closure', 'register')));
